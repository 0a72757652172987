import crypto from "node:crypto";
import os from "node:os";
import type { Store } from "../../store/connection/client";
import { beat, type PreviousRun, registerInstance } from "../../store/maintenance/instances";

/** This process: its name (HOLDFAST_INSTANCE), this run of it, and how the name's previous run ended. */
export interface Identity {
  instance: string;
  /** This run: the owner of its leases and the prefix of its lease tokens (`<instance>-<8 hex>`). */
  bootId: string;
  startedAt: Date;
  previous: PreviousRun | null;
  /**
   * The heartbeat of the start itself (migrations done, the work and the server still starting), so a slow
   * start is never taken for a lost process; the maintenance runtime stops it when its own beat takes over.
   */
  stopStartBeat(): void;
}

/**
 * The default name is the host name and a short suffix of the working directory, port and database, so the
 * same service restarted on the same host keeps its name (and finds its predecessor's unclean stop), and two
 * services on one host differ. Set HOLDFAST_INSTANCE where that is not enough (PORT=0, containers).
 */
export function defaultInstanceName(host: string, cwd: string, port: number, databaseUrl: string): string {
  const suffix = crypto.createHash("sha256").update(`${cwd}|${port}|${databaseUrl}`).digest("hex").slice(0, 6);
  return `${host.replace(/[^A-Za-z0-9_.-]/g, "-").slice(0, 50)}-${suffix}`;
}

export async function takeIdentity(
  store: Store,
  env: { HOLDFAST_INSTANCE?: string; PORT: number; DATABASE_URL: string },
  heartbeatMs: number,
  now: Date,
): Promise<Identity> {
  const instance =
    env.HOLDFAST_INSTANCE ?? defaultInstanceName(os.hostname(), process.cwd(), env.PORT, env.DATABASE_URL);
  const bootId = `${instance}-${crypto.randomUUID().slice(0, 8)}`;
  const previous = await registerInstance(store.db, { instance, bootId, heartbeatMs, now });
  const starting = setInterval(() => {
    const at = new Date();
    void beat(store.db, { instance, bootId }, { state: "RUNNING", acceptingWork: true, inFlight: 0, at }).catch(
      () => {},
    );
  }, heartbeatMs);
  starting.unref();
  return { instance, bootId, startedAt: now, previous, stopStartBeat: () => clearInterval(starting) };
}
