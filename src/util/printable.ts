/**
 * Control characters (C0, DEL, C1), line and paragraph separators, and the invisible format characters
 * (zero-width, bidi embeddings and overrides, BOM): what lets text forge rows or hide itself on an admin's
 * terminal (`audit list`, `runs show`).
 */
const UNPRINTABLE = /[\u0000-\u001f\u007f-\u009f\u00ad\u061c\u180e\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff]/g;

/**
 * Model-supplied text (a tool name, a path) as it may appear in an audit record's rule reasons and names:
 * each unprintable character as its `\uXXXX` escape, so nothing is lost and nothing is hidden; cut to `max`.
 */
export function printable(text: string, max = Infinity): string {
  const escaped = text.replace(UNPRINTABLE, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
  return escaped.length > max ? `${escaped.slice(0, max)}…` : escaped;
}
