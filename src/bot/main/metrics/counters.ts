import { Counter, Histogram, type Registry } from "prom-client";
import type { MetricsSink } from "../../../policy/metrics-sink";

const HOUR = 3600;

/** The counters and histograms that handlers, the delivery loop and the release loop count through. */
export function countingSink(registry: Registry) {
  const registers = [registry];
  const counter = (name: string, help: string, labelNames: string[] = []) =>
    new Counter({ name, help, labelNames, registers });
  const histogram = (name: string, help: string, buckets: number[], labelNames: string[] = []) =>
    new Histogram({ name, help, labelNames, buckets, registers });

  const approvalWait = histogram(
    "holdfast_approval_wait_seconds",
    "Time from a packet version's submission to its outcome",
    [10, 60, 300, 900, HOUR, 4 * HOUR, 12 * HOUR, 24 * HOUR, 72 * HOUR, 168 * HOUR],
    ["outcome"],
  );
  const resolved = counter("holdfast_approvals_resolved_total", "Approvals that left waiting, by outcome", ["outcome"]);
  const releasesStarted = counter("holdfast_releases_started_total", "Releases opened (resumes and recoveries)");
  const releasesFinished = counter("holdfast_releases_finished_total", "Releases that finished");
  const releaseDuration = histogram(
    "holdfast_release_duration_seconds",
    "From a release's opening to its finish",
    [0.1, 0.5, 1, 5, 15, 60, 300, 1800],
  );
  const attempts = counter(
    "holdfast_delivery_attempts_total",
    "Delivery attempts by outbox kind and result (acknowledged, rejected, no_answer, not_sent)",
    ["kind", "result"],
  );
  const permanent = counter(
    "holdfast_delivery_permanent_failures_total",
    "Deliveries given up (FAILED) after their retries",
    ["kind"],
  );
  const suppressed = counter(
    "holdfast_duplicates_suppressed_total",
    "Repeated requests recognised and done once, by stage",
    ["stage"],
  );
  const duplicateEffects = counter(
    "holdfast_duplicate_effects_detected_total",
    "2xx answers for attempts whose lease had passed to another attempt (a possible double effect)",
  );
  const escalationsSent = counter("holdfast_escalations_sent_total", "Escalation pings sent, by level", ["level"]);
  const escalationsSuppressed = counter(
    "holdfast_escalations_suppressed_total",
    "Escalation pings not sent, by reason",
    ["reason"],
  );

  const sink: MetricsSink = {
    approvalResolved(outcome, waitSeconds) {
      resolved.inc({ outcome });
      approvalWait.observe({ outcome }, waitSeconds);
    },
    releaseStarted: () => releasesStarted.inc(),
    releaseFinished(duration) {
      releasesFinished.inc();
      releaseDuration.observe(duration);
    },
    deliveryAttempt: (kind, result) => attempts.inc({ kind, result }),
    deliveryPermanentFailure: (kind) => permanent.inc({ kind }),
    duplicateSuppressed: (stage) => suppressed.inc({ stage }),
    duplicateEffectDetected: () => duplicateEffects.inc(),
  };
  const escalations = {
    sent: (level: number) => escalationsSent.inc({ level: String(level) }),
    suppressed: (reason: string) => escalationsSuppressed.inc({ reason }),
  };
  return { sink, escalations };
}
