/**
 * Characters that change how text reads without being seen: bidi controls (`"\u202e00001"` reads "10000"),
 * zero-width and other format characters, control characters, line and paragraph separators, the Hangul
 * fillers used as blank names, and lone surrogates. Tab and newline stay, because packets and messages are
 * written in lines. ZWJ and ZWNJ stay too: they join emoji and letters in Persian and Indic scripts, and
 * alone they reorder nothing.
 */
const INVISIBLE = /(?![\t\n\u200c\u200d])[\p{Cc}\p{Cf}\p{Cs}\p{Zl}\p{Zp}\u115f\u1160\u3164\uffa0]/gu;

const marker = (character: string) =>
  `⟨U+${(character.codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, "0")}⟩`;

/**
 * Text as a reader should see it: each invisible character above shown as a marker such as ⟨U+202E⟩, the
 * rest unchanged. Every renderer (the console's pages, each platform's cards and messages, the terminal log)
 * calls this before its own escaping, so every surface shows the same thing the same way.
 */
export const visibleText = (text: string): string => text.replace(/\r\n/g, "\n").replace(INVISIBLE, marker);
