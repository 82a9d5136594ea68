import { has, parseOptions, valuesOf, type OptionSpec } from './flags.ts';
import type { Arg, Invocation } from './model.ts';
import { canonical } from './paths.ts';
import { UNKNOWN, literal } from './values.ts';
import { TREE_COPIES, type TreeCopySpec } from './program-tables.ts';
import { findStarts, type Target } from './checks/targets.ts';

/**
 * Programs that list the files below their start points (find, fd, `rg --files`, `ag -g RE`, `ack -f`) and run commands
 * on them: what reads what they list (`find T | xargs cat`, `find T | while read f; do cat "$f"; done`, `fd . T -x cat`)
 * reads everything below T. fd, rg and ag skip hidden files unless told (`-H`, `-u`): taken as listing them all the same
 * (stricter).
 */

const FD_NAMES = new Set(['fd', 'fdfind']);
/** Searchers listing the files they would search with an option (TREE_COPIES' `lists`): every operand is a path. */
const treeLister = (inv: Invocation): TreeCopySpec | null => {
  const t = TREE_COPIES[inv.program];
  return t?.lists && has(parseOptions(inv.args, t.spec), ...t.lists) ? t : null;
};
export const isLister = (inv: Invocation): boolean => inv.program === 'find' || FD_NAMES.has(inv.program) || treeLister(inv) !== null;

/** fd's options that take a value (`-x`/`-X` and their long forms take the rest of the command, see fdParts). */
const FD_OPTIONS: OptionSpec = {
  short: 'dtecjSoE',
  long: [
    'max-depth', 'min-depth', 'exact-depth', 'type', 'extension', 'exclude', 'color', 'threads', 'size', 'changed-within', 'changed-before',
    'change-newer-than', 'change-older-than', 'newer', 'older', 'owner', 'max-results', 'base-directory', 'search-path', 'path-separator',
    'ignore-file', 'batch-size', 'max-buffer-time', 'format', 'and',
  ],
  flags: ['hidden', 'no-ignore', 'unrestricted', 'follow', 'full-path', 'glob', 'regex', 'fixed-strings', 'absolute-path', 'list-details', 'print0', 'prune', 'one-file-system', 'show-errors', 'quiet'],
};
const FD_EXEC = new Set(['-x', '--exec', '-X', '--exec-batch']);
/** fd's placeholders: the path, its basename, parent, and either without the extension. */
const FD_PLACEHOLDER = /\{(?:|\/|\/\/|\.|\/\.)\}/;
const FD_PLACEHOLDERS = new RegExp(FD_PLACEHOLDER.source, 'g');

/** `fd [OPTIONS] [PATTERN] [PATH…] -x CMD… ;`: fd's own words, and each command it runs (up to a `;` word or the end). */
function fdParts(args: readonly Arg[]): { own: Arg[]; commands: Arg[][] } {
  const own: Arg[] = [];
  const commands: Arg[][] = [];
  for (let i = 0; i < args.length; i++) {
    const w = literal(args[i]!.v) ?? '';
    const eq = /^(--exec(?:-batch)?)=(.*)$/s.exec(w);
    if (!FD_EXEC.has(w) && !eq) { own.push(args[i]!); continue; }
    const cmd: Arg[] = eq ? [{ ...args[i]!, v: args[i]!.v.slice(eq[1]!.length + 1) }] : [];
    for (i++; i < args.length && literal(args[i]!.v) !== ';'; i++) cmd.push(args[i]!);
    if (cmd.length > 0) commands.push(cmd);
  }
  return { own, commands };
}

/** The commands fd runs on each file it finds, the file in place of its placeholders or, without one, appended. */
export function fdCommands(inv: Invocation): Arg[][] {
  if (!FD_NAMES.has(inv.program)) return [];
  return fdParts(inv.args).commands.map((cmd) => {
    let placed = false;
    const out = cmd.map((a): Arg => {
      if (!FD_PLACEHOLDER.test(a.v)) return a;
      placed = true;
      return { v: a.v.replace(FD_PLACEHOLDERS, UNKNOWN), info: { ...a.info, computed: true } };
    });
    return placed ? out : [...out, { v: UNKNOWN, info: { ...cmd[0]!.info, computed: true, inner: [], raw: '{}' } }];
  });
}

/** Where fd searches: the operands after its pattern and `--search-path`s, else the (base) directory. */
function fdStarts(inv: Invocation): Target[] {
  const p = parseOptions(fdParts(inv.args).own, FD_OPTIONS);
  const base = valuesOf(p, 'base-directory').pop();
  const cwd = base ? canonical(base.v, inv.cwd) : inv.cwd;
  const paths = [...p.operands.slice(1), ...valuesOf(p, 'search-path')];
  if (paths.length === 0) return [{ arg: base ?? DOT, path: cwd ?? canonical('.', null) }];
  return paths.map((a) => ({ arg: a, path: canonical(a.v, cwd) }));
}

const DOT: Arg = { v: '.', info: { computed: false, ansi: false, quoted: false, inner: [], raw: '.' } };
/** Patterns that match every name. */
const FD_MATCH_ALL = new Set(['', '.', '^', '.*', '^.*', '^.*$', '*']);

/** Whether fd's pattern or filters narrow what it lists (so a command on each file is not one on everything below). */
export function fdNarrowed(inv: Invocation): boolean {
  const p = parseOptions(fdParts(inv.args).own, FD_OPTIONS);
  const pattern = p.operands[0] ? literal(p.operands[0].v) : '';
  return (pattern === null || !FD_MATCH_ALL.has(pattern)) || has(p, 'e', 'extension', 'S', 'size', 'o', 'owner', 'changed-within', 'changed-before', 'change-newer-than', 'change-older-than', 'newer', 'older', 'and');
}

/** Globs, regexes and types that match every name (a `!glob` only excludes some). */
const MATCH_ALL = new Set([...FD_MATCH_ALL, '**', '**/*']);

/** Whether a searcher's globs, regexes or types narrow the files it searches or lists (`rg --files -g '*.md'`, `ag -g '\.ts$'`, `rg --pre rm -t py x`). */
export function treeNarrowed(inv: Invocation): boolean {
  const t = TREE_COPIES[inv.program];
  if (!t?.narrow) return false;
  return valuesOf(parseOptions(inv.args, t.spec), ...t.narrow).some((v) => !MATCH_ALL.has(literal(v.v) ?? '') && !v.v.startsWith('!'));
}

/** Whether fd's or a searcher's filters narrow what it lists (find's are judged where it deletes, see checks/delete.ts). */
export const listerNarrowed = (inv: Invocation): boolean => (FD_NAMES.has(inv.program) ? fdNarrowed(inv) : treeNarrowed(inv));

/** Where a lister starts: it lists everything below. */
export function listerStarts(inv: Invocation): Target[] {
  if (inv.program === 'find') return findStarts(inv);
  const t = treeLister(inv);
  if (t) {
    const ops = parseOptions(inv.args, t.spec).operands;
    return (ops.length > 0 ? ops : [DOT]).map((a) => ({ arg: a, path: canonical(a.v, inv.cwd) }));
  }
  return FD_NAMES.has(inv.program) ? fdStarts(inv) : [];
}
