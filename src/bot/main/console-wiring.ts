import type { FastifyInstance } from "fastify";
import type { KnownUser } from "../../store/directory/directory";
import { createSignInPath } from "../app/auth/console-sessions";
import type { AttemptCounter } from "../app/auth/sign-in-limits";
import type { HandlerContext } from "../app/context";
import { seedDemo } from "../app/demo/seed";
import type { ChatRouter } from "../surfaces/chat/types";
import { type DemoReceiver, registerDemoReceiver } from "../surfaces/console/demo-receiver";
import { registerConsole } from "../surfaces/console/server";

export interface ConsoleWiringOptions {
  ctx: HandlerContext;
  http: FastifyInstance;
  /** The example config file when the bot runs on it (HOLDFAST_CONFIG unset): only then is a demo seeded. */
  exampleConfig: string | null;
  /** The key the demo's agent signs with (demo-signing.ts): the demo receiver takes only what it signed. */
  demoKey?: Buffer;
  /** HOLDFAST_PUBLIC_URL: the console's address as people reach it (default: the address the bot listens on). */
  publicUrl?: string;
  /** Counts sign-in attempts for every process at once (on Redis); absent: each process counts its own. */
  attempts?: AttemptCounter;
}

export interface ConsoleWiring {
  /** For `/console` in chat: a one-time sign-in link. */
  consoleLink(user: KnownUser): Promise<string>;
  /** Mounts the console (and, on the example config, the demo receiver) before the server listens. */
  mount(router: ChatRouter): void;
  /** Once listening: seeds the demo on the example config and returns its start line; null otherwise. */
  listening(url: string): Promise<string | null>;
}

export function wireConsole(options: ConsoleWiringOptions): ConsoleWiring {
  const { ctx, http, exampleConfig } = options;
  let baseUrl = options.publicUrl?.replace(/\/+$/, "") ?? "";
  let receiver: DemoReceiver | null = null;
  return {
    consoleLink: async (user) => `${baseUrl}${await createSignInPath(ctx, user)}`,
    mount(router) {
      const demoHint = exampleConfig
        ? "Demo: the start log prints a one-time link for alice; the others' demo keys are in holdfast.example.yaml (rita demo-key-acme-rita-0004 is the reviewer)."
        : undefined;
      registerConsole(http, { ctx, router, demoHint, attempts: options.attempts });
      if (exampleConfig && options.demoKey) receiver = registerDemoReceiver(http, ctx, { key: options.demoKey });
    },
    async listening(url) {
      if (!options.publicUrl) baseUrl = url;
      if (!exampleConfig) return null;
      const demo = await seedDemo(ctx, { configFile: exampleConfig, baseUrl });
      if (demo.seeded) receiver?.open();
      return demo.line;
    },
  };
}
