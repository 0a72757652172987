import { describe, expect, it } from "vitest";
import { isDatabaseConnectionLoss } from "./database-watch";

describe("a database connection loss", () => {
  it("is told from a failure of its own by what the driver says", () => {
    for (const message of [
      "Can't reach database server at 127.0.0.1:5432",
      "Client has encountered a connection error and is not queryable",
      "terminating connection due to administrator command",
      "Connection terminated unexpectedly",
      "the database system is shutting down",
    ])
      expect(isDatabaseConnectionLoss({ message }), message).toBe(true);
    expect(isDatabaseConnectionLoss({ message: "x", code: "ECONNREFUSED" })).toBe(true);
    expect(isDatabaseConnectionLoss({ message: 'duplicate key value violates unique constraint "x"' })).toBe(false);
    expect(isDatabaseConnectionLoss({ message: "Unique constraint failed", code: "P2002" })).toBe(false);
  });
});
