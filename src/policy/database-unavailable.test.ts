import { describe, expect, it } from "vitest";
import { isDatabaseConnectionLoss, isDatabaseUnavailable } from "./database-unavailable";

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

describe("a database unavailable to a request", () => {
  it("is a lost connection, or no connection or transaction to be had in time", () => {
    expect(isDatabaseUnavailable({ message: "Can't reach database server at 127.0.0.1:5432" })).toBe(true);
    expect(
      isDatabaseUnavailable({
        code: "P2028",
        message: "Transaction API error: Unable to start a transaction in the given time.",
      }),
    ).toBe(true);
    expect(isDatabaseUnavailable({ message: "timeout exceeded when trying to connect" })).toBe(true);
    expect(isDatabaseUnavailable({ code: "53300", message: "sorry, too many clients already" })).toBe(true);
  });

  it("is not a fault of the request or of Holdfast", () => {
    expect(isDatabaseUnavailable({ code: "P2002", message: "Unique constraint failed" })).toBe(false);
    expect(isDatabaseUnavailable({ code: "P2028", message: "Transaction already closed" })).toBe(false);
    expect(isDatabaseUnavailable({ message: "Cannot read properties of undefined (reading 'id')" })).toBe(false);
  });
});
