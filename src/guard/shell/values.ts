/**
 * Expanded values are strings with private sentinels so later steps can tell
 * what the shell would still expand or what the guard cannot know.
 */
export const UNKNOWN = '\u0000';
export const HOME = '\uE010';
export const GLOB_STAR = '\uE000';
export const GLOB_ONE = '\uE001';
export const GLOB_CLASS = '\uE002';
export const BRACE_OPEN = '\uE003';
export const BRACE_CLOSE = '\uE004';
export const BRACE_COMMA = '\uE005';
/** Where an unquoted expansion's value is split into words (IFS). */
export const FIELD_SPLIT = '\uE020';

const LIVE: Record<string, string> = { '*': GLOB_STAR, '?': GLOB_ONE, '[': GLOB_CLASS, '{': BRACE_OPEN, '}': BRACE_CLOSE, ',': BRACE_COMMA };
const PLAIN: Record<string, string> = { [FIELD_SPLIT]: ' ', [GLOB_STAR]: '*', [GLOB_ONE]: '?', [GLOB_CLASS]: '[', [BRACE_OPEN]: '{', [BRACE_CLOSE]: '}', [BRACE_COMMA]: ',', [HOME]: '$HOME', [UNKNOWN]: '$__unknown' };
const SENTINELS = /[\u0000\uE000-\uE005\uE010\uE020]/g;
const GLOBS = /[\uE000-\uE002]/;

/** Unquoted text: glob and brace characters stay live. */
export function live(text: string): string {
  let out = '';
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    out += c === '[' && text.indexOf(']', i + 2) < 0 ? c : LIVE[c] ?? c;
  }
  return out;
}

/** Shell text for a value (re-parsable: unknown parts become an unset variable). */
export function plain(v: string): string {
  return v.replace(SENTINELS, (c) => PLAIN[c] ?? c);
}

/** Text for people: home as `~`, unknown parts as `…`. */
export function display(v: string): string {
  return v.replace(SENTINELS, (c) => (c === HOME ? '~' : c === UNKNOWN ? '…' : PLAIN[c] ?? c));
}

export const isKnown = (v: string): boolean => !v.includes(UNKNOWN);
export const hasGlob = (v: string): boolean => GLOBS.test(v);

/** Literal text with sentinels removed (glob characters as typed); null when unknown. */
export function literal(v: string): string | null {
  if (!isKnown(v)) return null;
  return v.replace(SENTINELS, (c) => (c === HOME ? '~' : PLAIN[c] ?? c));
}

/**
 * Text a program is given, as it may print it: like `literal`, but the home directory stays the sentinel — the shell
 * expanded `~` before the program ran, so `$(echo ~)` is the home directory, not a file named `~`. Null when unknown.
 */
export function printed(v: string): string | null {
  if (!isKnown(v)) return null;
  return v.replace(SENTINELS, (c) => (c === HOME ? HOME : PLAIN[c] ?? c));
}

const MAX_BRACE = 64;

/** Bash brace expansion over live braces (`{a,b}`, `{1..3}`), bounded. */
export function expandBraces(v: string): string[] {
  const open = v.indexOf(BRACE_OPEN);
  if (open < 0) return [restoreBraces(v)];
  let depth = 0;
  const commas: number[] = [];
  for (let i = open + 1; i < v.length; i++) {
    const c = v[i];
    if (c === BRACE_OPEN) depth++;
    else if (c === BRACE_COMMA && depth === 0) commas.push(i);
    else if (c === BRACE_CLOSE) {
      if (depth > 0) { depth--; continue; }
      const head = v.slice(0, open);
      const tail = v.slice(i + 1);
      const inner = v.slice(open + 1, i);
      let alts: string[] | null = null;
      if (commas.length > 0) {
        alts = [];
        let from = open + 1;
        for (const c2 of [...commas, i]) { alts.push(v.slice(from, c2)); from = c2 + 1; }
      } else {
        alts = sequence(inner);
      }
      if (!alts) return expandBraces(head + '{' + inner + '}' + tail);
      const out: string[] = [];
      for (const a of alts) {
        for (const s of expandBraces(head + a + tail)) {
          out.push(s);
          if (out.length >= MAX_BRACE) return out;
        }
      }
      return out;
    }
  }
  return [restoreBraces(v)];
}

function sequence(inner: string): string[] | null {
  const m = /^(-?\d+|[A-Za-z])\.\.(-?\d+|[A-Za-z])(?:\.\.(-?\d+))?$/.exec(inner);
  if (!m) return null;
  const [a, b] = [m[1]!, m[2]!];
  const num = /\d/.test(a);
  if (num !== /\d/.test(b)) return null;
  const from = num ? parseInt(a, 10) : a.charCodeAt(0);
  const to = num ? parseInt(b, 10) : b.charCodeAt(0);
  const step = Math.max(1, Math.abs(parseInt(m[3] ?? '1', 10)));
  const out: string[] = [];
  for (let x = from; from <= to ? x <= to : x >= to; x += from <= to ? step : -step) {
    out.push(num ? String(x) : String.fromCharCode(x));
    if (out.length >= MAX_BRACE) break;
  }
  return out;
}

function restoreBraces(v: string): string {
  return v.replace(/[\uE003-\uE005]/g, (c) => PLAIN[c]!);
}
