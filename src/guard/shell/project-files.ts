import { parseOptions, valuesOf } from './flags.ts';
import type { Arg, Emit, Invocation } from './model.ts';
import { canonical } from './paths.ts';
import { fileText } from './scripts.ts';
import { display, literal, plain } from './values.ts';
import { DOWNLOADED, type WrittenFiles } from './written-files.ts';

/**
 * Project files a build or package tool runs the commands of, read when this command line wrote (or fed) them: a
 * makefile's recipes, package.json's scripts, a justfile's recipes, a setup.py that pip runs.
 *
 * make runs each recipe line of its makefile with the shell, and `$(shell CMD)` while reading it: a makefile this line
 * wrote (`-f FILE`, else GNUmakefile, makefile or Makefile in `-C DIR`), one on stdin (`-f -`) or a substitution prints
 * is read for them. Simple variables the file sets are put in; others, and automatic ones (`$@`), are unknown.
 */
const MAKE_OPTIONS = {
  short: 'CfIjlOoW', long: ['directory', 'file', 'makefile', 'include-dir', 'jobs', 'load-average', 'max-load', 'output-sync', 'old-file', 'assume-old', 'what-if', 'new-file', 'assume-new', 'eval', 'debug', 'jobserver-style', 'shuffle'],
  flags: ['always-make', 'environment-overrides', 'ignore-errors', 'keep-going', 'just-print', 'dry-run', 'recon', 'print-data-base', 'question', 'no-builtin-rules', 'no-builtin-variables', 'silent', 'quiet', 'stop', 'touch', 'trace', 'version', 'print-directory', 'no-print-directory', 'warn-undefined-variables', 'check-symlink-times'],
  alias: { directory: 'C', file: 'f', makefile: 'f' },
};
const MAKES = new Set(['make', 'gmake', 'bmake', 'pmake']);
const DEFAULTS = ['GNUmakefile', 'makefile', 'Makefile'];
const ASSIGN = /^\s*(?:override\s+|export\s+)?([A-Za-z_][A-Za-z0-9_.-]*)\s*(?::{1,3}|\?|\+)?=\s*(.*)$/;
const SHELL_FN = /\$[({]shell\s+([^)}]*)[)}]/g;

/** A makefile's recipe lines and `$(shell …)` commands as shell code. */
export function makefileCode(text: string): string[] {
  const lines = text.replace(/\\\n/g, ' ').split('\n');
  const vars = new Map<string, string>();
  for (const l of lines) { const m = ASSIGN.exec(l); if (m && !l.startsWith('\t')) vars.set(m[1]!, m[2]!.trim()); }
  const expand = (s: string, depth = 0): string =>
    s.replace(/\$\$|\$[({]([^)}]*)[)}]|\$(.)/g, (all, name: string | undefined, one: string | undefined) => {
      if (all === '$$') return '$';
      const v = name !== undefined ? vars.get(name) : one !== undefined ? vars.get(one) : undefined;
      return v !== undefined && depth < 4 ? expand(v, depth + 1) : '"$__unknown"';
    });
  const out: string[] = [];
  for (const l of lines) {
    for (const m of l.matchAll(SHELL_FN)) out.push(expand(m[1]!));
    if (l.startsWith('\t')) out.push(expand(l.slice(1).replace(/^[\s@+-]+/, '')));
  }
  return out.filter((c) => c.trim() !== '');
}

/** The shell code `make` runs from a makefile this command line wrote or fed it; a downloaded one is flagged. */
export function makeCode(inv: Invocation, files: WrittenFiles, emit: Emit): string[] {
  if (!MAKES.has(inv.program)) return [];
  const p = parseOptions(inv.args, MAKE_OPTIONS);
  let cwd = inv.cwd;
  for (const d of valuesOf(p, 'C')) cwd = canonical(d.v, cwd);
  const given = valuesOf(p, 'f');
  const named: (Arg | string)[] = given.length > 0 ? given : DEFAULTS;
  // a definition on the command line runs a command too: `X != CMD`, `X=$(shell CMD)`
  const out: string[] = p.operands.flatMap((a) => {
    const m = /^\s*[A-Za-z_][A-Za-z0-9_.-]*\s*(!|:{1,3}|\+|\?)?=([\s\S]*)$/.exec(plain(a.v));
    return !m ? [] : [...(m[1] === '!' ? [m[2]!] : []), ...[...m[2]!.matchAll(SHELL_FN)].map((f) => f[1]!)];
  });
  for (const f of named) {
    const arg: Arg = typeof f === 'string' ? { v: f, info: { computed: false, ansi: false, quoted: false, inner: [], raw: f } } : f;
    const text = arg.v === '-' ? inv.stdinText ?? undefined : fileText(files, arg, cwd);
    if (text === DOWNLOADED) emit('shell.download.exec', `${inv.program} runs the recipes in downloaded ${display(arg.v)}`);
    // without -f, make reads the first default name there is
    else if (text !== undefined) { out.push(...makefileCode(text)); if (given.length === 0) break; }
  }
  return out;
}

const NODE_PACKAGERS = new Set(['npm', 'pnpm', 'yarn', 'bun']);
/** Options naming the project directory: npm --prefix, pnpm -C/--dir, yarn and bun --cwd. */
const PACKAGER_DIRS = { short: 'C', long: ['prefix', 'dir', 'cwd'], alias: { dir: 'C' } };
const PIPS = new Set(['pip', 'pip3']);

/** A file this line wrote in `dir`, or a download there; undefined when not written. */
const written = (files: WrittenFiles, dir: Parameters<typeof canonical>[1], name: string) => files.lookup(canonical(name, dir));

/**
 * npm, pnpm, yarn and bun run package.json's scripts (`run NAME`, lifecycle scripts of install, test, start, …): every
 * script of one this line wrote is walked; `just` runs a justfile's indented recipe lines; pip runs a setup.py it
 * installs from (judged like `python -c`).
 */
export function projectCode(inv: Invocation, files: WrittenFiles, emit: Emit): string[] {
  if (NODE_PACKAGERS.has(inv.program)) {
    let dir = inv.cwd;
    for (const d of valuesOf(parseOptions(inv.args, PACKAGER_DIRS), 'C', 'prefix', 'cwd')) dir = canonical(d.v, dir);
    const text = written(files, dir, 'package.json');
    if (text === DOWNLOADED) emit('shell.download.exec', `${inv.program} runs the scripts of downloaded package.json`);
    if (typeof text !== 'string') return [];
    try {
      const scripts = (JSON.parse(text) as { scripts?: unknown }).scripts;
      return scripts && typeof scripts === 'object' ? Object.values(scripts).filter((v): v is string => typeof v === 'string') : [];
    } catch {
      return [];
    }
  }
  if (inv.program === 'just') {
    const named = valuesOf(parseOptions(inv.args, { short: 'fdc', long: ['justfile', 'working-directory', 'command', 'set', 'shell', 'shell-arg', 'dotenv-filename', 'dotenv-path', 'color', 'dump-format', 'list-heading', 'list-prefix', 'chooser'] }), 'f', 'justfile')[0];
    const text = named ? fileText(files, named, inv.cwd) : written(files, inv.cwd, 'justfile') ?? written(files, inv.cwd, 'Justfile');
    if (text === DOWNLOADED) emit('shell.download.exec', 'just runs the recipes of a downloaded justfile');
    return typeof text === 'string' ? text.split('\n').filter((l) => /^[ \t]+\S/.test(l)).map((l) => l.trim().replace(/^[@-]+/, '').replace(/\{\{[^}]*\}\}/g, '"$__unknown"')) : [];
  }
  if (PIPS.has(inv.program) && literal(inv.args[0]?.v ?? '') === 'install') {
    for (const a of parseOptions(inv.args.slice(1), { short: 'rcet', long: ['requirement', 'constraint', 'editable', 'target', 'prefix', 'root', 'index-url', 'extra-index-url'] }).operands) {
      const text = written(files, canonical(a.v, inv.cwd), 'setup.py');
      if (text === DOWNLOADED) emit('shell.download.exec', `pip runs downloaded ${display(a.v)}/setup.py`);
      else if (typeof text === 'string') emit('shell.interpreter.inline', `pip runs ${display(a.v)}/setup.py, which this command line wrote`);
    }
    const e = valuesOf(parseOptions(inv.args.slice(1), { short: 'rcet', long: ['editable'] }), 'e', 'editable');
    for (const a of e) if (typeof written(files, canonical(a.v, inv.cwd), 'setup.py') === 'string') emit('shell.interpreter.inline', `pip runs ${display(a.v)}/setup.py, which this command line wrote`);
  }
  return [];
}
