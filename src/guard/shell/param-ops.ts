import type { WordPart } from './syntax/ast.ts';

/**
 * Parameter expansions the guard can work out when the value is known on the line: `${X#pat}`, `${X##pat}`,
 * `${X%pat}`, `${X%%pat}` (bash's shortest and longest prefix and suffix removal), `${#X}`, `${X^^}`, `${X,,}`,
 * `${X/pat/rep}` with `//`, `/#`, `/%` (see replaced) and `${X:off:len}` (see sliced). `rm -rf "${D%/*}"` with
 * `D=/x` removes `/`, which must be judged as such. Anything not worked out exactly stays unknown (null).
 */

/** A value with any sentinel (home, unknown, live globs, field splits) is not worked on: its real text is not known. */
const SENTINEL = /[\u0000\uE000-\uE005\uE010\uE020]/;

/**
 * The pattern of `${X#PATTERN}` as a regular expression: unquoted `*`, `?`, `[…]` are live, quoted text is literal
 * (in a bracket too: `[\]]` and `["]"]` are the class of `]`); null when it holds an expansion.
 */
export function patternRegex(parts: readonly WordPart[]): string | null {
  // one glob, quoted characters written `\x`: a bracket may open in one part and close in another
  let glob = '';
  for (const p of parts) {
    if (p.kind === 'sq') glob += quotedGlob(p.value);
    else if (p.kind === 'dq') {
      if (!p.parts.every((q) => q.kind === 'lit')) return null;
      glob += quotedGlob(p.parts.map((q) => (q.kind === 'lit' ? q.value : '')).join(''));
    } else if (p.kind === 'lit') glob += p.value;
    else return null;
  }
  return globRegex(glob);
}

const quotedGlob = (text: string): string => text.replace(/[\s\S]/g, '\\$&');

const escape = (s: string): string => s.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');

/**
 * A glob as a regular expression (`\x` is a literal x, in a bracket too); null for forms not read here (extglob,
 * which `shopt -s extglob` turns on, and `[[:class:]]`).
 */
function globRegex(g: string): string | null {
  let re = '';
  for (let i = 0; i < g.length; i++) {
    const c = g[i]!;
    if (c === '\\' && i + 1 < g.length) re += escape(g[++i]!);
    else if ('*?@+!'.includes(c) && g[i + 1] === '(') return null;
    else if (c === '*') re += '[\\s\\S]*';
    else if (c === '?') re += '[\\s\\S]';
    else if (c === '[') {
      // `[!…]`/`[^…]` negate; a `]` first is a member, not the end (bash's `${X/[!]]/…}` matches nothing: not read)
      let from = i + 1;
      if (g[from] === '!' || g[from] === '^') from++;
      if (g[from] === ']' && from > i + 1) return null;
      if (g[from] === ']') from++;
      // `\x` in a bracket is x itself (`[\]]` is the class of `]`): skipped when looking for the closing `]`
      let end = -1;
      for (let k = from; k < g.length && end < 0; k++) {
        if (g[k] === '\\') k++;
        else if (g[k] === ']') end = k;
      }
      if (end < 0) {
        // no closing `]`: the `[` is itself
        re += '\\[';
        continue;
      }
      const body = g.slice(i + 1, end);
      if (/\[[:=.]/.test(body)) return null;
      const negated = body[0] === '!' || body[0] === '^';
      let members = '';
      for (let k = negated ? 1 : 0; k < body.length; k++) {
        const escaped = body[k] === '\\' && k + 1 < body.length;
        const m = escaped ? body[++k]! : body[k]!;
        // an escaped `-` is a member, not a range
        members += /[\\\]\[^]/.test(m) || (escaped && m === '-') ? `\\${m}` : m;
      }
      re += `[${negated ? '^' : ''}${members}]`;
      i = end;
    } else re += escape(c);
  }
  return re;
}

/** `${X#pat}` and the rest on a known value; null when the value or pattern is not known. */
export function trimmed(value: string, op: string, pattern: string | null): string | null {
  if (SENTINEL.test(value)) return null;
  if (op === '^^' && pattern === '') return value.toUpperCase();
  if (op === ',,' && pattern === '') return value.toLowerCase();
  if (pattern === null || !['#', '##', '%', '%%'].includes(op)) return null;
  let whole: RegExp;
  try {
    whole = new RegExp(`^(?:${pattern})$`);
  } catch {
    return null;
  }
  const n = value.length;
  // shortest first for `#` and `%`, longest first for `##` and `%%`
  const lengths = op.length === 1 ? [...Array(n + 1).keys()] : [...Array(n + 1).keys()].reverse();
  for (const k of lengths) {
    if (op[0] === '#' && whole.test(value.slice(0, k))) return value.slice(k);
    if (op[0] === '%' && whole.test(value.slice(n - k))) return value.slice(0, n - k);
  }
  return value;
}

/** Longer values are not searched (each position tries each length). */
const MAX_SEARCHED = 256;
/** Outside ASCII, what `?` and `${X:1}` count (characters or bytes) depends on the locale. */
const NON_ASCII = /[^\x00-\x7f]/;

/** One reading of `${X/pat/rep}` (`flags`: `i` for `shopt -s nocasematch`), as bash's pat_subst does it. */
function replaceOnce(v: string, op: string, pattern: string, by: string, flags: string): string {
  const re = new RegExp(`^(?:${pattern})$`, flags);
  const starts = new RegExp(`^(?:${pattern})`, flags);
  const n = v.length;
  // `/#` the longest matching prefix, `/%` the longest matching suffix (an empty pattern prefixes or appends)
  if (op === '/#') {
    for (let k = n; k >= 0; k--) if (re.test(v.slice(0, k))) return by + v.slice(k);
    return v;
  }
  if (op === '/%') {
    for (let i = 0; i <= n; i++) if (re.test(v.slice(i))) return v.slice(0, i) + by;
    return v;
  }
  // `/` the leftmost, then longest, match; `//` each one after the last; an empty pattern replaces nothing
  if (pattern === '') return v;
  if (n === 0) return re.test('') ? by : v;
  let out = '';
  let at = 0;
  while (at < n) {
    let match: [number, number] | null = null;
    for (let i = at; i < n && !match; i++) {
      if (starts.test(v.slice(i))) for (let k = n; k > i && !match; k--) if (re.test(v.slice(i, k))) match = [i, k];
    }
    if (!match) break;
    out += v.slice(at, match[0]) + by;
    at = match[1];
    if (op !== '//') break;
  }
  return out + v.slice(at);
}

/**
 * `${X/pat/rep}`, `${X//pat/rep}`, `${X/#pat/rep}`, `${X/%pat/rep}` on a known value; null when the value, pattern or
 * replacement is not known, or when the answer depends on a shell option: `nocasematch` (both readings must agree) and
 * `patsub_replacement`, under which an `&` in the replacement is the matched text.
 */
export function replaced(value: string, op: string, pattern: string | null, by: string | null): string | null {
  if (pattern === null || by === null || SENTINEL.test(value) || SENTINEL.test(by) || by.includes('&')) return null;
  if (value.length > MAX_SEARCHED || NON_ASCII.test(value) || NON_ASCII.test(pattern)) return null;
  try {
    const exact = replaceOnce(value, op, pattern, by, '');
    return exact === replaceOnce(value, op, pattern, by, 'i') ? exact : null;
  } catch {
    return null;
  }
}

/**
 * `${X:offset}` and `${X:offset:length}` on a known value: a negative offset counts from the end, a negative length
 * is where to stop counting from the end; null when a number is not known, the value holds more than ASCII, or bash
 * would stop with an error (`substring expression < 0`).
 */
export function sliced(value: string, offset: number | null, length: number | null | undefined): string | null {
  if (offset === null || length === null) return null;
  if (offset === 0 && length === undefined) return value;
  if (SENTINEL.test(value) || NON_ASCII.test(value)) return null;
  const n = value.length;
  const start = offset < 0 ? n + offset : offset;
  if (start < 0 || start > n) return '';
  if (length === undefined) return value.slice(start);
  const end = length < 0 ? n + length : start + length;
  return end < start ? (length < 0 ? null : '') : value.slice(start, end);
}
