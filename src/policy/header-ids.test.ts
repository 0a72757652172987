import { describe, expect, it } from "vitest";
import { isHeaderSafe } from "./header-ids";

describe("ids that go into headers", () => {
  it("takes printable ASCII, spaces inside included", () => {
    for (const id of ["e1", "vendor reply #7 (ok)", "a:b|c~d", "!~"]) expect(isHeaderSafe(id), id).toBe(true);
  });
  it("refuses CR/LF, other control characters, bidi, beyond ASCII, spaces at either end, the empty id", () => {
    for (const id of ["a\r\nb", "a\nb", "a\u0000", "a\u007f", "a\u202e", "ü", "😀", " a", "a ", "a\t", ""])
      expect(isHeaderSafe(id), JSON.stringify(id)).toBe(false);
  });
});
