import type { Job } from "bullmq";
import type { Logger } from "pino";
import type { Faults } from "../../policy/faults";
import type { MetricsSink } from "../../policy/metrics-sink";
import type { Store } from "../../store/connection/client";
import { settleDrain } from "../../store/control/drain";
import type { QueueBase } from "../base";
import type { DeliveryLoop } from "../delivery/delivery-loop";
import { runRelease } from "./run-release";

export interface ControlWorkerDeps {
  base: QueueBase;
  store: Store;
  log: Logger;
  now: () => Date;
  /** This process, as the owner of the release leases it takes. */
  instanceId: string;
  delivery: DeliveryLoop;
  /** The trusted scheduler's resume of a pause's `until` (the bot's resume handlers). */
  autoResume(scope: string, until: Date): Promise<void>;
  metrics?: MetricsSink;
  faults?: Faults;
  /** At most this many triggers per release step. */
  releaseBatch?: number;
}

/** Control jobs worked at once in this process. */
const CONCURRENCY = 4;

/**
 * The BullMQ worker of the `control` queue: release jobs (worked under the release's lease, so one process
 * at a time works each), drain deadlines and auto-resumes. Releases this process works are kept here, so the
 * reconciler's take-over of an orphaned release and a release job never run it twice side by side.
 */
export class ControlWorker {
  /** Releases this process works now (a cache: the release's lease decides who works it). */
  private readonly working = new Map<string, Promise<unknown>>();

  constructor(private readonly deps: ControlWorkerDeps) {
    const worker = deps.base.worker("control", (job) => this.process(job), { concurrency: CONCURRENCY });
    worker.on("failed", (job, error) => deps.log.warn({ job: job?.name, err: error.message }, "job failed"));
  }

  /** Works the release to its end here, or joins the run of it already under way. */
  work(releaseId: string): Promise<unknown> {
    let running = this.working.get(releaseId);
    if (!running) {
      running = this.release(releaseId).finally(() => this.working.delete(releaseId));
      this.working.set(releaseId, running);
    }
    return running;
  }

  isWorking(releaseId: string): boolean {
    return this.working.has(releaseId);
  }

  /** Resolves once every release under way here has ended, one way or the other. */
  async settled(): Promise<void> {
    await Promise.allSettled(this.working.values());
  }

  private async process(job: Job): Promise<void> {
    const { deps } = this;
    if (job.name === "release") {
      await this.work(job.data.releaseId as string);
    } else if (job.name === "drain") {
      await settleDrain(deps.store, job.data.scope as string, deps.now());
    } else if (job.name === "auto-resume") {
      await deps.autoResume(job.data.scope as string, new Date(job.data.until as string));
    }
  }

  private release(releaseId: string) {
    const { deps } = this;
    return runRelease(
      {
        store: deps.store,
        log: deps.log,
        now: deps.now,
        metrics: deps.metrics,
        instanceId: deps.instanceId,
        planned: () => deps.delivery.nudge(),
        afterBatch: (id) => this.haltIfArmed(id),
        triggersPerStep: deps.releaseBatch,
      },
      releaseId,
    );
  }

  /**
   * The test-only `release-batch` point. Not a plain `faults.reach` (an instant SIGKILL): the process tests
   * wait for its log line and choose when to kill, so it freezes outbound work (sends under way finish) and
   * hangs, and the kill lands between release steps.
   */
  private async haltIfArmed(releaseId: string): Promise<void> {
    if (!this.deps.faults?.armed("release-batch")) return;
    await this.deps.delivery.stop();
    this.deps.log.warn({ crashPoint: "release-batch", releaseId }, "test crash point reached");
    await new Promise(() => {});
  }
}
