import pino from "pino";
import { describe, expect, it } from "vitest";
import { QueueOptionsError } from "../../src/queue/base";
import { DeliveryLoop } from "../../src/queue/delivery/delivery-loop";
import { createExpiryScheduler } from "../../src/queue/expiry";
import { startRepeatingJob } from "../../src/queue/repeating-job";

const log = pino({ level: "silent" });
const refusal = (run: () => unknown) => {
  try {
    run();
  } catch (error) {
    return error;
  }
  return null;
};

describe("queue component options", () => {
  it("are refused at construction with a typed error naming the component and the option", async () => {
    const expiry = refusal(() =>
      createExpiryScheduler({ redisUrl: "", prefix: "p", log, onDue: async () => "done" as const }),
    );
    expect(expiry).toBeInstanceOf(QueueOptionsError);
    expect(expiry).toMatchObject({ code: "queue_options_invalid", message: "queue option redisUrl: a redis:// URL" });

    const loop = refusal(() => new DeliveryLoop({ store: { db: {} } as never, log, batchSize: 0 }));
    expect(loop).toMatchObject({ message: "delivery loop option batchSize: above 0" });
    expect(refusal(() => new DeliveryLoop({ store: { db: {} } as never, log, leaseMs: 1.5 }))).toMatchObject({
      message: "delivery loop option leaseMs: whole milliseconds",
    });

    await expect(
      startRepeatingJob({
        redisUrl: "redis://127.0.0.1:6379",
        prefix: "p",
        log,
        name: "x",
        everyMs: 0,
        run: async () => {},
        failedMessage: "x failed",
      }),
    ).rejects.toMatchObject({ message: "repeating job x option everyMs: above 0 ms" });
  });

  it("take their documented defaults", () => {
    const loop = new DeliveryLoop({
      store: { db: {} } as never,
      log,
      transport: { send: async () => ({ kind: "not_sent", error: "" }), lookup: async () => "unknown" },
    });
    expect(loop.leaseMs).toBe(30_000);
    expect(loop.intakeRoom()).toBe(500 * 3);
  });
});
