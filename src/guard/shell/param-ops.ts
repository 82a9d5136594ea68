import type { WordPart } from './syntax/ast.ts';

/**
 * Parameter expansions the guard can work out when the value is known on the line: `${X#pat}`, `${X##pat}`,
 * `${X%pat}`, `${X%%pat}` (bash's shortest and longest prefix and suffix removal), `${#X}`, `${X^^}` and `${X,,}`.
 * `rm -rf "${D%/*}"` with `D=/x` removes `/`, which must be judged as such. Anything else stays unknown (null).
 */

/** A value with any sentinel (home, unknown, live globs, field splits) is not worked on: its real text is not known. */
const SENTINEL = /[\u0000\uE000-\uE005\uE010\uE020]/;

/** The pattern of `${X#PATTERN}` as a regular expression: unquoted `*`, `?`, `[…]` are live, quoted text is literal; null when it holds an expansion. */
export function patternRegex(parts: readonly WordPart[]): string | null {
  let re = '';
  for (const p of parts) {
    if (p.kind === 'sq') re += escape(p.value);
    else if (p.kind === 'dq') {
      if (!p.parts.every((q) => q.kind === 'lit')) return null;
      re += escape(p.parts.map((q) => (q.kind === 'lit' ? q.value : '')).join(''));
    } else if (p.kind === 'lit') {
      const g = globRegex(p.value);
      if (g === null) return null;
      re += g;
    } else return null;
  }
  return re;
}

const escape = (s: string): string => s.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');

/** An unquoted glob as a regular expression (`\x` is a literal x); null for forms not read here (extglob). */
function globRegex(g: string): string | null {
  let re = '';
  for (let i = 0; i < g.length; i++) {
    const c = g[i]!;
    if (c === '\\' && i + 1 < g.length) re += escape(g[++i]!);
    else if (c === '*') re += '[\\s\\S]*';
    else if (c === '?') re += '[\\s\\S]';
    else if (c === '[') {
      const end = g.indexOf(']', i + 2);
      if (end < 0) { re += '\\['; continue; }
      let body = g.slice(i + 1, end);
      if (body.startsWith('!') || body.startsWith('^')) body = '^' + body.slice(1);
      if (/\[:/.test(body)) return null;
      re += '[' + body.replace(/\\/g, '\\\\') + ']';
      i = end;
    } else if ((c === '@' || c === '+' || c === '!') && g[i + 1] === '(') return null;
    else re += escape(c);
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
