import { Counter, Gauge, type Registry } from "prom-client";
import { MAINTENANCE_STATES } from "../../policy/maintenance";
import type { DeliveryLoop } from "../../queue/delivery/delivery-loop";
import { cardTargets } from "../app/cards/card-targets";
import type { HandlerContext } from "../app/context";
import type { UncleanReport } from "../app/maintenance/unclean";
import { uncleanStopCard } from "../surfaces/chat/maintenance-card";
import type { CardPublisher, Platform } from "../surfaces/chat/types";
import type { HoldfastEnv } from "./config/env";
import type { Identity } from "./instance-identity";
import { type MaintenanceRuntime, startMaintenance } from "./maintenance-wiring";
import { react } from "./reactions";

/** The runtime once it exists: the HTTP server is built before it, and reads it through this. */
export interface LiveMaintenance {
  runtime: MaintenanceRuntime | null;
}

export interface MaintenanceWiringOptions {
  env: HoldfastEnv;
  identity: Identity;
  delivery: DeliveryLoop;
  registry: Registry;
  publishers: Partial<Record<Platform, CardPublisher>>;
  onBeat: () => Promise<void>;
}

/** The maintenance runtime with its metrics, its chat message and its reaction to `maintenance.changed`. */
export function wireMaintenance(ctx: HandlerContext, options: MaintenanceWiringOptions): MaintenanceRuntime {
  const { env, registry } = options;
  const registers = [registry];
  const unclean = new Counter({
    name: "holdfast_unclean_boots_total",
    help: "Unclean stops found and classified by this process (its own previous run, or a lost peer)",
    registers,
  });
  let runtime: MaintenanceRuntime | null = null;
  new Gauge({
    name: "holdfast_maintenance_state",
    help: "This process's maintenance state: 1 for the state it is in (RUNNING, DRAINING, QUIESCED, STOPPED)",
    labelNames: ["state"],
    registers,
    collect() {
      for (const state of MAINTENANCE_STATES) this.set({ state }, runtime?.state() === state ? 1 : 0);
    },
  });
  runtime = startMaintenance({
    ctx,
    identity: options.identity,
    delivery: options.delivery,
    heartbeatMs: env.HOLDFAST_HEARTBEAT_INTERVAL,
    drainDelayMs: env.HOLDFAST_DRAIN_DELAY,
    drainTimeoutMs: env.HOLDFAST_DRAIN_TIMEOUT,
    onBeat: options.onBeat,
    unclean: {
      counted: () => unclean.inc(),
      tell: (userIds, report) => tellPrincipals(ctx, options.publishers, userIds, report),
    },
  });
  const started = runtime;
  const stopReacting = react(ctx, { maintenance: { windowsChanged: () => started.look() } });
  const close = started.close.bind(started);
  started.close = () => {
    stopReacting();
    close();
  };
  return started;
}

/** One message per principal and platform: a DM where the principal has an identity on an enabled platform. */
async function tellPrincipals(
  ctx: HandlerContext,
  publishers: Partial<Record<Platform, CardPublisher>>,
  userIds: string[],
  report: UncleanReport,
): Promise<void> {
  const onUnreachable = (platform: string, user: string, error: Error) =>
    ctx.log.warn({ platform, user, err: error.message }, "cannot open a DM for the unclean-stop message");
  const targets = await cardTargets(ctx, {}, userIds, publishers, onUnreachable);
  const card = uncleanStopCard(report);
  for (const target of targets) {
    await publishers[target.platform]!.post(target.channelId, card).catch((error: Error) =>
      ctx.log.warn({ ...target, err: error.message }, "unclean-stop message not posted"),
    );
  }
}
