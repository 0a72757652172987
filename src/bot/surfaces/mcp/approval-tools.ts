import { z } from "zod";
import { agentRunView } from "../../app/approvals/agent-run";
import { createRunForAgent } from "../../app/approvals/create-run";
import { ApiError } from "../http/errors";
import { CreateRunBody, checkPacketSize, PacketBody, Params as RunParams, submitPacket } from "../http/run-routes";
import { defineTool, type ToolAnswer } from "./tool";
import { MAX_WAIT_SECONDS, waitForDecision } from "./wait";

/** The HTTP route's body without `agent`: over MCP the key names the agent, so there is nothing to repeat. */
const RequestApprovalArgs = CreateRunBody.omit({ agent: true });
/** `POST /v1/runs/:id/packet`: its path and its body, as one set of arguments. */
const UpdatePacketArgs = RunParams.extend(PacketBody.shape).strict();
const WaitArgs = RunParams.extend({
  timeoutSeconds: z.number().int().min(0).max(MAX_WAIT_SECONDS).default(30),
}).strict();

const runAnswer = (run: { id: string; state: string; version?: number }, extra: Record<string, unknown> = {}) =>
  ({
    structured: { ...run, ...extra },
    text: `run ${run.id} is ${run.state}${run.version ? ` (version ${run.version})` : ""}`,
  }) satisfies ToolAnswer;

export const requestApproval = defineTool({
  name: "request_approval",
  title: "Request an approval",
  description:
    "Propose an action for the agent's reviewers to approve, as POST /v1/runs: the packet is bound to its version " +
    "and digest. Answers at once with the run (state 'waiting'); wait for the decision with wait_for_approval.",
  schema: RequestApprovalArgs,
  async run({ ctx, agent }, body) {
    checkPacketSize(body.packet);
    const result = await createRunForAgent(ctx, { ...body, agent, escalateAfterSeconds: body.escalateAfter });
    if (result.kind === "invalid")
      throw new ApiError("invalid_body", `${result.field}: ${result.message}`, result.field);
    if (result.kind === "exists") throw new ApiError("conflict", `run '${body.id}' already exists`);
    return runAnswer(result.run);
  },
});

export const getApproval = defineTool({
  name: "get_approval",
  title: "Read a run",
  description:
    "One of the agent's runs, as GET /v1/runs/:id shows it to the agent: its state, version and digest, the " +
    "decision (action, by, at) once there is one, and the delivery state of the approved action.",
  schema: RunParams,
  readOnly: true,
  async run({ ctx, agent }, { id }) {
    const run = await agentRunView(ctx, agent, id);
    if (!run) throw new ApiError("not_found", `no run '${id}'`);
    return runAnswer(run);
  },
});

export const waitForApproval = defineTool({
  name: "wait_for_approval",
  title: "Wait for a decision",
  description:
    `Waits until the run is decided and answers it as get_approval does, or answers at the timeout (default 30 s, ` +
    `at most ${MAX_WAIT_SECONDS}) with state 'waiting' and timedOut: true. A timeout is not a denial: call again.`,
  schema: WaitArgs,
  readOnly: true,
  async run(call, { id, timeoutSeconds }) {
    const run = await waitForDecision(call, id, timeoutSeconds * 1000);
    if (!run) throw new ApiError("not_found", `no run '${id}'`);
    const timedOut = run.state === "waiting";
    const answer = runAnswer(run, { timedOut });
    return timedOut ? { ...answer, text: `${answer.text}: no decision yet, call again to keep waiting` } : answer;
  },
});

export const updatePacket = defineTool({
  name: "update_packet",
  title: "Change the packet",
  description:
    "Submit a changed packet for a waiting run, as POST /v1/runs/:id/packet: a new version with a new digest and a " +
    "new approval request; decisions on the earlier version become stale. The same packet again changes nothing.",
  schema: UpdatePacketArgs,
  async run({ ctx, agent }, { id, ...body }) {
    const { run, outcome } = await submitPacket(ctx, agent, id, body);
    return runAnswer(run, { outcome });
  },
});
