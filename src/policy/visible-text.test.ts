import { describe, expect, it } from "vitest";
import { visibleText } from "./visible-text";

describe("agent text made visible", () => {
  it("shows bidi controls as markers, so a reordered number reads as written", () => {
    expect(visibleText("\u202e00001")).toBe("⟨U+202E⟩00001");
    expect(visibleText("a\u2066b\u2069\u200f\u061c")).toBe("a⟨U+2066⟩b⟨U+2069⟩⟨U+200F⟩⟨U+061C⟩");
  });

  it("shows zero-width, control, separator, filler, tag and lone surrogate characters", () => {
    const cases: Array<[string, string]> = [
      ["pay\u200bpal", "pay⟨U+200B⟩pal"],
      ["\ufeffid", "⟨U+FEFF⟩id"],
      ["a\u0000b\u007f\u0085", "a⟨U+0000⟩b⟨U+007F⟩⟨U+0085⟩"],
      ["x\u00ady", "x⟨U+00AD⟩y"],
      ["one\u2028two", "one⟨U+2028⟩two"],
      ["\u3164", "⟨U+3164⟩"],
      ["ok\u{e0041}", "ok⟨U+E0041⟩"],
      ["\ud800", "⟨U+D800⟩"],
      ["a\rb", "a⟨U+000D⟩b"],
    ];
    for (const [text, shown] of cases) expect(visibleText(text), JSON.stringify(text)).toBe(shown);
  });

  it("leaves ordinary text alone: lines, tabs, accents, scripts and joined emoji", () => {
    for (const text of ["invoice 42\n\tline two", "Zoë, Ærø", "مرحبا", "می‌خواهم", "🏳️‍🌈 👩‍💻", "<b>&amp;</b>"])
      expect(visibleText(text)).toBe(text);
    expect(visibleText("a\r\nb")).toBe("a\nb");
  });
});
