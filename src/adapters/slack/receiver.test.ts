import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { formValue } from "./receiver";

/** What the click's form field decodes to by the standard's own parser, which `formValue` stands in for. */
const standard = (encoded: string) => new URLSearchParams(`payload=${encoded}`).get("payload");

describe("a click's payload field", () => {
  it("decodes as URLSearchParams does, for any text it encoded", () => {
    fc.assert(
      fc.property(fc.string({ unit: "grapheme" }), (text) => {
        const encoded = new URLSearchParams({ payload: text }).toString().slice("payload=".length);
        expect(formValue(encoded)).toBe(text);
        expect(formValue(encodeURIComponent(text))).toBe(standard(encodeURIComponent(text)));
      }),
    );
  });

  it("decodes as URLSearchParams does for hand-written escapes, broken ones too", () => {
    const pieces = fc.constantFrom(
      "a",
      "+",
      "%",
      "%2",
      "%2B",
      "%20",
      "%zz",
      "%C3%A9",
      "%C3",
      "%FF",
      "%E2%82",
      '"',
      "{",
    );
    fc.assert(
      fc.property(fc.array(pieces, { maxLength: 12 }), (parts) => {
        const encoded = parts.join("");
        expect(formValue(encoded)).toBe(standard(encoded));
      }),
    );
  });
});
