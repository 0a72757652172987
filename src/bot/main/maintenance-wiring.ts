import type { MaintenanceState } from "../../policy/maintenance";
import { watchDatabase } from "../../queue/database-watch";
import type { DeliveryLoop } from "../../queue/delivery/delivery-loop";
import { takeLease } from "../../store/connection/leases";
import { beat, liveInstances, lostUnrecovered } from "../../store/maintenance/instances";
import {
  auditMaintenance,
  type MaintenanceRecord,
  moveWindow,
  openWindow,
  updateWindowFacts,
  windowsFor,
} from "../../store/maintenance/windows";
import type { HandlerContext } from "../app/context";
import { classifyUncleanStop, type UncleanDeps } from "../app/maintenance/unclean";
import type { Identity } from "./instance-identity";

export interface MaintenanceOptions {
  ctx: HandlerContext;
  identity: Identity;
  delivery: DeliveryLoop;
  heartbeatMs: number;
  /** HOLDFAST_DRAIN_DELAY: after a signal, work is still taken this long (load balancers that notice late). */
  drainDelayMs: number;
  /** HOLDFAST_DRAIN_TIMEOUT: then what is still in flight is classified, and the drain ends. */
  drainTimeoutMs: number;
  unclean: Omit<UncleanDeps, "classify">;
  /** Each heartbeat: anything else that must be said again (the Redis prefix claim). */
  onBeat?: () => Promise<void>;
}

export interface MaintenanceRuntime {
  /** This process's state now. */
  state(): MaintenanceState;
  /** Whether a load balancer should send this process traffic (false while it drains for its own stop). */
  ready(): boolean;
  /** A signal's drain: DRAINING now, work taken for the drain delay, then QUIESCED once nothing is in flight. */
  drainForStop(signal: string): Promise<void>;
  /** STOPPED, recorded on the window and the instance, just before the process exits. */
  recordStopped(): Promise<void>;
  /** A look at the windows now (an API call or a chat command opened or ended one). */
  look(): void;
  close(): void;
}

/** How often the windows are read while nothing drains, and how often a drain looks at what is in flight. */
const POLL_MS = 1000;
const DRAIN_POLL_MS = 200;

/**
 * This process in a maintenance window (design.md section 7): the windows that apply to it are read from
 * the database (its own, and a deployment-wide one), so a window opened on any process reaches every
 * process; the heartbeat says what it does; a lost peer's effects are classified here.
 *
 * A test hook for "kill at a boundary" of this machine goes where the state moves: `enter` (DRAINING
 * recorded), `quiesce` (QUIESCED recorded) and `recordStopped` (STOPPED recorded), as `ctx.faults.reach(...)`
 * with new points in src/policy/faults.ts.
 */
export function startMaintenance(options: MaintenanceOptions): MaintenanceRuntime {
  return new MaintenanceProcess(options);
}

class MaintenanceProcess implements MaintenanceRuntime {
  private current: MaintenanceState = "RUNNING";
  private windows: MaintenanceRecord[] = [];
  /** The signal's window. */
  private own: MaintenanceRecord | null = null;
  /** The drain delay: work is taken until then. */
  private acceptingUntil = 0;
  private classifiedAtDeadline = false;
  private closed = false;
  private timer: NodeJS.Timeout | undefined;
  private readonly beats: NodeJS.Timeout;
  private quiesced: Array<() => void> = [];
  private readonly deps: UncleanDeps;

  constructor(private readonly o: MaintenanceOptions) {
    this.deps = { ...o.unclean, classify: (owner, since) => o.delivery.classifyLeft(owner, since) };
    o.identity.stopStartBeat();
    void this.heartbeat().catch(() => {});
    this.loop();
    this.beats = setInterval(() => {
      void this.heartbeat()
        .then(() => this.recoverLost())
        .then(() => o.onBeat?.())
        .catch((error: Error) => this.warnUnlessOutage(error, "heartbeat failed"));
    }, o.heartbeatMs);
    // This name's previous run, when it never reached STOPPED and nobody classified it yet.
    const previous = o.identity.previous;
    if (previous && !previous.clean && !previous.recovered) {
      const run = { instance: o.identity.instance, ...previous };
      void classifyUncleanStop(o.ctx, this.deps, run, o.identity.instance).catch((error: Error) =>
        o.ctx.log.error({ err: error.message }, "classifying the unclean stop failed"),
      );
    }
  }

  state = (): MaintenanceState => this.current;

  ready = (): boolean => !this.own && !this.windows.some((w) => w.scope === "instance");

  look = (): void => void this.lookNow().catch(() => {});

  close(): void {
    this.closed = true;
    clearTimeout(this.timer);
    clearInterval(this.beats);
    this.quiesced = [];
  }

  async drainForStop(signal: string): Promise<void> {
    const { ctx, identity } = this.o;
    const now = ctx.now();
    this.acceptingUntil = Date.now() + this.o.drainDelayMs;
    const deadline = new Date(now.getTime() + this.o.drainDelayMs + this.o.drainTimeoutMs);
    const opened = await openWindow(ctx.store.db, {
      scope: "instance",
      instance: identity.instance,
      reason: signal,
      by: `signal:${signal}`,
      drainDeadline: deadline,
      acceptingWork: this.o.drainDelayMs > 0,
      now,
    });
    this.own = opened.record;
    if (this.current !== "QUIESCED") await this.enter();
    await new Promise<void>((resolve) => {
      if (this.current === "QUIESCED") resolve();
      else this.quiesced.push(resolve);
      this.look();
    });
  }

  async recordStopped(): Promise<void> {
    const { ctx, identity } = this.o;
    const now = ctx.now();
    for (const w of [this.own, ...this.windows].filter((x): x is MaintenanceRecord => x?.scope === "instance")) {
      await moveWindow(ctx.store.db, w.id, "QUIESCED", "STOPPED", { by: identity.instance, now });
    }
    this.current = "STOPPED";
    await beat(ctx.store.db, identity, { ...this.facts(), acceptingWork: false, inFlight: 0 });
  }

  private accepting = () => this.current === "RUNNING" || Date.now() < this.acceptingUntil;

  private facts() {
    const { delivery, ctx } = this.o;
    return { state: this.current, acceptingWork: this.accepting(), inFlight: delivery.inFlight(), at: ctx.now() };
  }

  private async heartbeat(): Promise<void> {
    const { db } = this.o.ctx.store;
    await beat(db, this.o.identity, this.facts());
    const facts = { acceptingWork: this.accepting(), inFlight: this.o.delivery.inFlight() };
    for (const w of this.windows) await updateWindowFacts(db, w.id, facts);
  }

  private async enter(): Promise<void> {
    this.current = "DRAINING";
    this.o.ctx.log.info(
      { instance: this.o.identity.instance, windows: this.windows.map((w) => w.id) },
      "maintenance: DRAINING",
    );
    await beat(this.o.ctx.store.db, this.o.identity, this.facts());
  }

  private async lookNow(): Promise<void> {
    const { ctx, delivery, identity } = this.o;
    this.windows = await windowsFor(ctx.store.db, identity.instance);
    if (this.windows.length === 0 && !this.own) {
      if (this.current !== "RUNNING")
        ctx.log.info({ instance: identity.instance }, "maintenance over: taking work again");
      this.current = "RUNNING";
      this.classifiedAtDeadline = false;
      delivery.hold(false);
      return;
    }
    if (this.current === "RUNNING") await this.enter();
    if (this.current === "QUIESCED") await this.quiesceWindows(ctx.now()); // a deployment window waits for the others
    await this.drainStep();
  }

  /** A database outage is the database watch's one line (gone, back), not a warning every beat. */
  private warnUnlessOutage(error: Error, message: string): void {
    if (watchDatabase(this.o.ctx.store, this.o.ctx.log).outage(error)) return;
    this.o.ctx.log.warn({ err: error.message }, message);
  }

  private loop(): void {
    if (this.closed) return;
    const wait = this.current === "DRAINING" ? DRAIN_POLL_MS : POLL_MS;
    this.timer = setTimeout(() => {
      this.lookNow()
        .catch((error: Error) => this.warnUnlessOutage(error, "maintenance look failed"))
        .finally(() => this.loop());
    }, wait);
  }

  private async drainStep(): Promise<void> {
    const { ctx, delivery } = this.o;
    delivery.hold(!this.accepting());
    if (this.current !== "DRAINING" || this.accepting()) return;
    const now = ctx.now();
    const deadline = Math.min(...this.windows.map((w) => w.drainDeadline?.getTime() ?? Number.POSITIVE_INFINITY));
    if (delivery.inFlight() > 0 && !this.classifiedAtDeadline && now.getTime() >= deadline) {
      this.classifiedAtDeadline = true;
      await this.classifyAtDeadline(now);
    }
    if (delivery.inFlight() > 0 && !this.classifiedAtDeadline) return;
    this.current = "QUIESCED";
    await beat(ctx.store.db, this.o.identity, this.facts());
    await this.quiesceWindows(now);
    for (const wake of this.quiesced.splice(0)) wake();
  }

  /** The drain cannot finish: what is still in flight is classified by its recorded state, and the drain ends. */
  private async classifyAtDeadline(now: Date): Promise<void> {
    const { ctx, delivery, identity } = this.o;
    const classified = await delivery.classifyLeft(identity.bootId, now);
    await auditMaintenance(
      ctx.store.db,
      classified.map((c) => ({
        maintenanceId: this.windows[0]?.id ?? null,
        instance: identity.instance,
        action: "classified" as const,
        subject: c.id,
        fromState: c.from,
        toState: c.to,
        note: `drain deadline, ${c.step}: ${c.note}`,
        by: identity.instance,
        at: now,
      })),
    );
    ctx.log.warn(
      { instance: identity.instance, classified: classified.map((c) => ({ id: c.id, step: c.step, to: c.to })) },
      `drain deadline: ${classified.length} deliveries still in flight were classified`,
    );
  }

  /** Own windows go QUIESCED; a deployment-wide one once every live process is QUIESCED. */
  private async quiesceWindows(now: Date): Promise<void> {
    const { ctx, identity } = this.o;
    for (const w of this.windows.filter((x) => x.state === "DRAINING")) {
      if (w.scope === "deployment") {
        const live = await liveInstances(ctx.store.db, now);
        if (live.some((i) => i.state !== "QUIESCED" && i.state !== "STOPPED")) continue;
      }
      const facts = { acceptingWork: false, inFlight: 0, by: identity.instance, now };
      if (await moveWindow(ctx.store.db, w.id, "DRAINING", "QUIESCED", facts))
        ctx.log.info({ maintenance: w.id, scope: w.scope }, `maintenance window ${w.id} is QUIESCED`);
    }
  }

  private async recoverLost(): Promise<void> {
    const { ctx, identity } = this.o;
    for (const lost of await lostUnrecovered(ctx.store.db, ctx.now())) {
      if (lost.instance === identity.instance) continue;
      if (!(await takeLease(ctx.store, `recover:${lost.instance}`, identity.bootId, 60_000, ctx.now()))) continue;
      await classifyUncleanStop(ctx, this.deps, lost, identity.instance);
    }
  }
}
