import { has, hasFamily, parseOptions, valueOf, valuesOf, type OptionSpec, type ParsedOptions } from '../flags.ts';
import type { Arg, Invocation } from '../model.ts';
import { gitCommand } from '../git-command.ts';
import { canonical, type Canon } from '../paths.ts';
import { DOWNLOADER_OPTIONS, GIT_GLOBAL, INTERPRETERS, LESS_OPTIONS, SORT_OPTIONS, TRANSFER_OPTIONS, TREE_COPIES } from '../program-tables.ts';
import { literal } from '../values.ts';
import { PARTITION_OPTIONS } from '../partition-tables.ts';
import { outputFiles } from '../output-files.ts';
import { WRAPPERS } from '../wrapper-tables.ts';

export interface Target {
  readonly arg: Arg;
  readonly path: Canon | null;
}

const at = (inv: Invocation, a: Arg, v = a.v): Target => ({ arg: a, path: canonical(v, inv.cwd) });

const COPY_SPEC: Readonly<Record<string, OptionSpec>> = TRANSFER_OPTIONS;

const basename = (v: string): string => v.replace(/\/+$/, '').slice(v.replace(/\/+$/, '').lastIndexOf('/') + 1);

/** Files a command writes through its arguments (not redirections). */
export function writeTargets(inv: Invocation): Target[] {
  const out: Target[] = [];
  const prog = inv.program;
  if (prog === 'dd' || prog === 'dcfldd' || prog === 'dc3dd') {
    for (const a of inv.args) if (a.v.startsWith('of=')) out.push(at(inv, a, a.v.slice(3)));
  } else if (prog === 'tee' || prog === 'truncate' || prog === 'sponge') {
    const p = parseOptions(inv.args, prog === 'truncate' ? { short: 'sro', long: ['size', 'reference', 'io-blocks'] } : {});
    for (const a of p.operands) out.push(at(inv, a));
  } else if (COPY_SPEC[prog]) {
    const p = parseOptions(inv.args, COPY_SPEC[prog]);
    const dir = valueOf(p, 't', 'target-directory');
    const sources = dir ? p.operands : p.operands.slice(0, -1);
    const dest = dir ?? (p.operands.length >= 2 ? p.operands[p.operands.length - 1]! : null);
    if (dest) {
      out.push(at(inv, dest));
      for (const s of sources) out.push(at(inv, dest, dest.v.replace(/\/*$/, '/') + basename(s.v)));
    }
  } else if (prog === 'sed') {
    const p = parseOptions(inv.args, { short: 'efl', long: ['expression', 'file', 'line-length'] });
    if ((has(p, 'i') || hasFamily(p, 'in-place'))) {
      const script = valuesOf(p, 'e', 'expression', 'f', 'file').length > 0;
      for (const a of script ? p.operands : p.operands.slice(1)) out.push(at(inv, a));
    }
  } else if (prog === 'perl' && inv.args.some((a) => /^-[a-zA-Z]*i/.test(a.v))) {
    const p = parseOptions(inv.args, INTERPRETERS.perl);
    for (const a of p.operands) out.push(at(inv, a));
  } else if (prog === 'patch') {
    // patch [OPTS] [ORIGFILE [PATCHFILE]]: the file it changes, or -o's output
    const p = parseOptions(inv.args, { short: 'BDFgiopVrYzdL', long: ['prefix', 'ifdef', 'fuzz', 'get', 'input', 'output', 'strip', 'version-control', 'reject-file', 'basename-prefix', 'suffix', 'directory', 'quoting-style', 'merge', 'read-only', 'reject-format'] });
    for (const a of [...p.operands.slice(0, 1), ...valuesOf(p, 'o', 'output')]) out.push(at(inv, a));
  } else if (prog === 'sort') {
    const p = parseOptions(inv.args, SORT_OPTIONS);
    for (const a of valuesOf(p, 'o', 'output')) out.push(at(inv, a));
  } else if (prog === 'uniq') {
    // uniq INPUT OUTPUT
    const p = parseOptions(inv.args, { short: 'fsw', long: ['skip-fields', 'skip-chars', 'check-chars', 'all-repeated', 'group'] });
    if (p.operands[1]) out.push(at(inv, p.operands[1]));
  } else if (prog === 'less' || prog === 'zless') {
    // the log file less copies a piped input to (-O without asking first)
    for (const a of valuesOf(parseOptions(inv.args, LESS_OPTIONS), 'o', 'O', 'log-file', 'LOG-FILE')) out.push(at(inv, a));
  } else if (prog === 'find') {
    // find's -fprint, -fprint0, -fprintf and -fls write the names (or a listing) to FILE
    for (let i = 0; i + 1 < inv.args.length; i++) if (/^-f(?:print0?|printf|ls)$/.test(inv.args[i]!.v)) out.push(at(inv, inv.args[i + 1]!));
  } else if (prog === 'sgdisk' || prog === 'sfdisk') {
    // sgdisk -b FILE saves the table, sfdisk -O FILE the sectors it will overwrite: written with -P or -n too
    for (const a of valuesOf(parseOptions(inv.args, PARTITION_OPTIONS[prog]), prog === 'sgdisk' ? 'b' : 'O')) out.push(at(inv, a));
  } else if (EDITORS.has(prog)) {
    for (const a of editedFiles(inv)) out.push(at(inv, a));
  } else if (prog === 'curl' || prog === 'wget') {
    const p = parseOptions(inv.args, DOWNLOADER_OPTIONS[prog]);
    for (const a of valuesOf(p, ...(prog === 'curl' ? ['o', 'output'] : ['O', 'output-document']))) if (literal(a.v) !== '-') out.push(at(inv, a));
  }
  if (!Object.hasOwn(WRAPPERS, prog)) for (const a of outputFiles(prog, inv.args)) out.push(at(inv, a));
  return out;
}

/**
 * Editors run by a script write the files they open: ed and ex always (their commands come on stdin or with -c), vi and vim
 * in Ex mode, headless, with commands (`-c`, `+CMD`, `-S`), typed keys (`-s FILE`) or a fed stdin. A plain `vim ~/.vimrc`
 * (or `+42`, `+/word`: where the cursor starts) is a person's editing, as before.
 */
const EDITORS: ReadonlySet<string> = new Set(['ed', 'red', 'ex', 'vi', 'vim', 'nvim', 'gvim', 'vim.basic', 'vim.tiny', 'nvi']);
/** vim's options with a value; `-s` reads typed keys from a file but in Ex mode (`-e`, `-es`, `ex`) is a flag. */
const VIM_VALUES = { short: 'cSuUiTwWtq', long: ['cmd', 'servername', 'startuptime', 'log', 'listen'] } as const;
const STDIN_FED = new Set(['<', '<<', '<<-', '<<<']);

/** The files a scripted editor opens to write: its operands but `+CMD`; none read-only (`-R`, `-M`). */
function editedFiles(inv: Invocation): Arg[] {
  const { program: prog, args } = inv;
  if (prog === 'ed' || prog === 'red') return [...parseOptions(args, { short: 'p', long: ['prompt'] }).operands.filter((a) => a.v !== '-')];
  const exMode = prog === 'ex' || args.some((a) => /^-[A-Za-z]*[eE]/.test(a.v) && !a.v.startsWith('--'));
  const p = parseOptions(args, { short: VIM_VALUES.short + (exMode ? '' : 's'), long: [...VIM_VALUES.long] });
  if (has(p, 'R', 'M')) return [];
  const fed = inv.upstream.length > 0 || inv.stdinText !== null || inv.redirs.some((r) => STDIN_FED.has(r.op));
  const scripted = exMode || fed || has(p, 'c', 'cmd', 'S', 's', 'headless', 'es', 'Es') || args.some((a) => /^\+[^\d/?]/.test(a.v));
  return scripted ? p.operands.filter((a) => !a.v.startsWith('+') && a.v !== '-') : [];
}

/** Candidate paths inside an argument: itself, `--opt=PATH`, `if=PATH`, curl's `@PATH`, `host:PATH`, `file://PATH`. */
export function pathsIn(inv: Invocation, a: Arg): Target[] {
  const v = a.v;
  const out: Target[] = [at(inv, a)];
  const eq = /^(--?[A-Za-z0-9-]+|[A-Za-z_][A-Za-z0-9_]*)=(.*)$/s.exec(v);
  if (eq) out.push(at(inv, a, eq[2]!));
  const atSign = /^(?:[^=@]*=)?@(.+)$/s.exec(v);
  if (atSign) out.push(at(inv, a, atSign[1]!));
  const remote = /^(?:[A-Za-z0-9_.-]+@)?[A-Za-z0-9_.-]+:(\/.*|~.*)$/s.exec(v);
  if (remote && !v.includes('://')) out.push(at(inv, a, remote[1]!));
  const url = /^file:\/\/(?:localhost)?(\/.*)$/is.exec(v);
  if (url) out.push(at(inv, a, decodeURIComponent(url[1]!)));
  return out;
}

/** find's options before its start points (`-L`, `-O3`, `-D tree`). */
const FIND_LEADING = /^-(?:[HLP]|O\d*)$/;

/** Where `find` starts (`.` when it names no start point): it visits everything below. */
export function findStarts(find: Invocation): Target[] {
  let i = 0;
  while (i < find.args.length && (FIND_LEADING.test(find.args[i]!.v) || find.args[i]!.v === '-D')) i += find.args[i]!.v === '-D' ? 2 : 1;
  const starts: Arg[] = [];
  for (; i < find.args.length && !/^[-(!),]/.test(find.args[i]!.v); i++) starts.push(find.args[i]!);
  if (starts.length === 0) starts.push(DOT);
  return starts.map((a) => at(find, a));
}

const STDIN_OPS = new Set(['<', '<<', '<<-', '<<<']);
const DOT: Arg = { v: '.', info: { computed: false, ansi: false, quoted: false, inner: [], raw: '.' } };

/** Whether one of these options is given; `name=value` wants that value, or an abbreviation of it (GNU `-d rec`), or an unknown one. */
function wants(p: ParsedOptions, names: readonly string[]): boolean {
  return names.some((n) => {
    const eq = n.indexOf('=');
    if (eq < 0) return has(p, n);
    const want = n.slice(eq + 1);
    return valuesOf(p, n.slice(0, eq)).some((v) => { const t = literal(v.v); return t === null || (t.length >= 3 && want.startsWith(t)); });
  });
}

/** `git [-C DIR] grep …` as the program `git grep`, with the sub-command's words, run from DIR. */
export function gitGrep(inv: Invocation): Invocation | null {
  if (inv.program !== 'git') return null;
  const { words } = gitCommand(inv.args);
  if (literal(words[0]?.v ?? '') !== 'grep') return null;
  let cwd = inv.cwd;
  for (const d of valuesOf(parseOptions(inv.args, GIT_GLOBAL), 'C')) cwd = canonical(d.v, cwd);
  return { ...inv, program: 'git grep', args: words.slice(1), cwd };
}

/**
 * What a recursive copy, archive or search reads whole (`cp -r SRC… DEST`, `tar c[f F] SRC…`, `zip -r Z SRC…`,
 * `grep -r PATTERN SRC…`); empty when it is not one. `anyDepth`: its sources without recursion too (`zip -m Z FILE`).
 */
export function treeSources(called: Invocation, anyDepth = false): Target[] {
  const inv = gitGrep(called) ?? called;
  const t = TREE_COPIES[inv.program];
  if (!t) return [];
  const p = parseOptions(inv.args, t.spec);
  if (!anyDepth && t.recursive !== 'always' && !wants(p, t.recursive)) return [];
  if ((t.flat && has(p, ...t.flat)) || (t.modes && !has(p, ...t.modes)) || (t.namesOnly && has(p, ...t.namesOnly))) return [];
  if (t.verbs && !t.verbs.includes(literal(p.operands[0]?.v ?? '') ?? '')) return [];
  let ops = p.operands.slice(t.skip ?? 0);
  if (t.pattern && !has(p, ...t.pattern)) ops = ops.slice(1);
  if (t.dest && !has(p, 't', 'target-directory') && ops.length >= 2) ops = ops.slice(0, -1);
  // `grep -r x`, `rg x`: the working directory as far as it is known; not when xargs adds the paths, nor rg reading a fed stdin
  const fed = inv.upstream.length > 0 || inv.redirs.some((r) => STDIN_OPS.has(r.op));
  if (ops.length === 0 && t.cwd && !inv.appendsArgs && (t.cwd === 'always' || !fed)) ops = [DOT];
  // `tar -C DIR SRC`: each operand is relative to the last directory option before it (words of old-style bundles are new)
  const dirs = t.chdir ? p.opts.filter((o) => t.chdir!.includes(o.name) && o.value) : [];
  const pos = (a: Arg): number => inv.args.indexOf(a);
  return ops.flatMap((a) => {
    const before = dirs.filter((o) => Math.max(pos(o.value!), pos(o.arg)) < pos(a)).pop();
    const cwd = before ? canonical(before.value!.v, inv.cwd) : inv.cwd;
    return pathsIn({ ...inv, cwd }, a);
  });
}
