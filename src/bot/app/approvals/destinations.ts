import type { KnownAgent } from "../../../store/directory/directory";

/**
 * The receiving contract an agent declared for a destination (config `destinations: { <url>: <contract> }`,
 * validated at load). Undefined when the destination is not declared: agents may only send where their
 * operator said they may.
 */
export function destinationContract(agent: Pick<KnownAgent, "settings">, destination: string): string | undefined {
  const declared = agent.settings.destinations;
  return declared && Object.hasOwn(declared, destination) ? declared[destination] : undefined;
}
