import { parseOptions, type Opt } from './flags.ts';
import type { Arg } from './model.ts';
import { GIT_GLOBAL } from './program-tables.ts';
import { UNKNOWN, literal } from './values.ts';

/** How many aliases git follows through one another (it stops at a loop). */
const MAX_ALIASES = 8;

/** An alias value split into words as git does (split_cmdline): blanks separate, quotes group, a backslash escapes; null when a quote is left open. */
export function splitAlias(value: string): string[] | null {
  const words: string[] = [];
  let cur: string | null = null;
  let quote = '';
  for (let i = 0; i < value.length; i++) {
    let c = value[i]!;
    if (!quote && /\s/.test(c)) { if (cur !== null) words.push(cur); cur = null; continue; }
    cur ??= '';
    if (!quote && (c === "'" || c === '"')) { quote = c; continue; }
    if (c === quote) { quote = ''; continue; }
    if (c === '\\' && quote !== "'") {
      if (++i >= value.length) return null;
      c = value[i]!;
    }
    cur += c;
  }
  if (quote) return null;
  if (cur !== null) words.push(cur);
  return words;
}

/** `git -c alias.NAME=VALUE`: aliases given on the command line, by lower-case name (git's keys ignore case). */
function aliasesOf(opts: readonly Opt[]): Map<string, Arg> {
  const out = new Map<string, Arg>();
  for (const o of opts) {
    const m = o.name === 'c' && o.value ? /^alias\.([^=]+)=/is.exec(o.value.v) : null;
    if (m) out.set(m[1]!.toLowerCase(), { v: o.value!.v.slice(m[0].length), info: o.value!.info });
  }
  return out;
}

export interface GitCommand {
  /** The sub-command and its arguments, after git's own options. */
  readonly words: readonly Arg[];
  /** An alias used whose value the guard cannot see (it may be a `!` shell alias), as `alias.NAME`. */
  readonly unseen: string | null;
  /** A `!` alias used: git runs `sh -c 'CODE "$@"'` with the words after it. */
  readonly shell?: { readonly code: string; readonly args: readonly Arg[] };
}

/**
 * `git [OPTIONS] SUB ARGS…` as SUB and ARGS, a non-`!` alias given on the same command line put in place of SUB
 * (`git -c alias.c=clone c -u CMD r` runs `git clone -u CMD r`), through aliases of aliases. A `!` alias is shell
 * code (see GIT_CONFIG_CODE), run with the words after it (`shell`). Aliases set by `git config` or in the environment
 * earlier reach here as `-c` options (see gitAliasOptions).
 */
export function gitCommand(args: readonly Arg[]): GitCommand {
  const p = parseOptions(args, GIT_GLOBAL);
  let words = p.operands;
  const aliases = aliasesOf(p.opts);
  if (aliases.size === 0) return { words, unseen: null };
  for (let hop = 0; hop < MAX_ALIASES && words.length > 0; hop++) {
    const name = literal(words[0]!.v)?.toLowerCase();
    const alias = name === undefined ? undefined : aliases.get(name);
    if (!alias) break;
    aliases.delete(name!);
    const value = alias.v.trimStart();
    if (value.startsWith(UNKNOWN)) return { words, unseen: `alias.${name}` };
    if (value.startsWith('!')) return { words, unseen: null, shell: { code: value.slice(1), args: words.slice(1) } };
    const split = splitAlias(value);
    if (!split) break;
    // an alias may start with git's own options (`-p log`)
    words = parseOptions([...split.map((v): Arg => ({ v, info: alias.info })), ...words.slice(1)], GIT_GLOBAL).operands;
  }
  return { words, unseen: null };
}
