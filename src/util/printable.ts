/**
 * Control characters (C0, DEL, C1), line and paragraph separators, format characters (zero-width, bidi embeddings
 * and overrides, BOM, Unicode tags that a model reads as ASCII) and every other default-ignorable code point
 * (variation selectors, Hangul fillers, the combining grapheme joiner): what lets text forge rows, or hide itself,
 * on an admin's terminal (`audit list`, `runs show`) or in an approval prompt. Lone surrogates too.
 */
const UNPRINTABLE = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Cs}\p{Default_Ignorable_Code_Point}]/gu;

/** A backslash that would read as one of the escapes below: a model's literal `\u000a` must not pass for a line break. */
const ESCAPE_LOOKALIKE = /\\(?=u[0-9a-fA-F]{4}|u\{[0-9a-fA-F]+\})/g;

/** `\uXXXX`, or `\u{XXXXX}` beyond the first plane (a tag character is one escape, not two halves). */
const escapeOf = (c: string): string => {
  const code = c.codePointAt(0)!;
  return code > 0xffff ? `\\u{${code.toString(16)}}` : `\\u${code.toString(16).padStart(4, '0')}`;
};

/**
 * Model-supplied text (a tool name, a path) as it may appear in an audit record's rule reasons and names:
 * each unprintable character as its `\uXXXX` escape, so nothing is lost and nothing is hidden; cut to `max`.
 * Every `\uXXXX` in the result is such an escape (a backslash written before `uXXXX` becomes `\u005c`); other
 * backslashes (`C:\dir`, `printf 'a\nb'`) stay as written.
 */
export function printable(text: string, max = Infinity): string {
  const escaped = text.replace(ESCAPE_LOOKALIKE, escapeOf).replace(UNPRINTABLE, escapeOf);
  return escaped.length > max ? `${escaped.slice(0, max)}…` : escaped;
}

/** Lines for a terminal: a line break inside one (a model's text) is escaped too, so no line is forged. */
export function printableLines(lines: readonly string[]): string[] {
  return lines.map((l) => printable(l));
}

/** A value as indented JSON, one element per line (JSON keeps no raw line break inside a string). */
export function jsonLines(label: string, value: unknown): string[] {
  const [first, ...rest] = JSON.stringify(value, null, 2).split('\n');
  return [`${label}${first}`, ...rest.map((l) => `  ${l}`)];
}
