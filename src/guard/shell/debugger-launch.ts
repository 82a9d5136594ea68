import { lldbTarget } from './debuggers.ts';
import type { Arg } from './model.ts';
import { plain } from './values.ts';

/**
 * What lldb starts: its target with the run arguments of its command line (`lldb PROG ARGS`, `lldb -f PROG -- ARGS`,
 * walked as that command), and the program its one-line commands launch (`-o 'process launch -- ARGS'`, `-o 'run ARGS'`,
 * `-o 'settings set target.run-args ARGS'`), with the target a `-o 'target create PROG'` or `file PROG` names instead.
 * A launch is judged as `exec PROG ARGS` through the shell (stricter than lldb without `--shell`, which passes the
 * words as they are), its `-i`/`-o`/`-e` files as redirections and `-w DIR` as a `cd`. Option tables: lldb's
 * Options.td, `process launch` and `target create`.
 */

/** `process launch` options that take a value; `-c`/`--shell` takes one only attached. */
const LAUNCH_VALUES: Readonly<Record<string, string>> = {
  A: 'disable-aslr', P: 'plugin', w: 'working-dir', a: 'arch', E: 'environment', i: 'stdin', o: 'stdout', e: 'stderr', X: 'shell-expand-args',
};
const LAUNCH_LONG = new Map(Object.entries(LAUNCH_VALUES).map(([k, v]) => [v, k]));
/** `target create` options that take a value (`-d` takes one only attached). */
const CREATE_VALUES = 'acprsS';
const CREATE_LONG = ['arch', 'core', 'platform', 'remote-file', 'symfile', 'sysroot', 'build'];

/** One-line commands that launch, with the text of their options and arguments (`run`, `r` are `process launch --shell=/bin/sh --`). */
const LAUNCH = /^\s*pro\w*\s+la\w*(?<launch>(?:\s.*)?)$/s;
const RUN = /^\s*(?:r|run)(?![\w-])\s*(?<args>.*)$/s;
const RUN_ARGS = /^\s*se\w*\s+se\w*\s+(?:--\s+)?target\.run-args(?:\s+(?<args>.*))?$/s;
/** `target create [OPTIONS] PROG` and its alias `file PROG`. */
const CREATE = /^\s*(?:ta\w*\s+cr\w*|file)(?<create>(?:\s.*)?)$/s;

/** Words of lldb's command line (quotes as the shell's), each with where it starts. */
function tokens(text: string): { w: string; at: number }[] {
  return [...text.matchAll(/"[^"]*"|'[^']*'|\S+/g)].map((m) => ({ w: m[0].replace(/^(["'])(.*)\1$/s, '$2'), at: m.index! }));
}

/** A value as one shell word: its unknown parts an unset variable, a leading `~/` the home directory (lldb resolves it). */
function quote(v: string): string {
  if (v.startsWith('~/')) return `~/${quote(v.slice(2))}`;
  return v.split(/(\$__unknown|\$HOME)/).map((p, i) => (i % 2 === 1 ? `"${p}"` : p === '' ? '' : `'${p.replace(/'/g, "'\\''")}'`)).join('') || "''";
}
const shellArg = (a: Arg): string => quote(plain(a.v));

/** `process launch [OPTIONS] [--] ARGS`: the shell text of ARGS (null: none given) and the redirections and directory. */
function launchOf(text: string): { args: string | null; redirs: string; dir: string | null } {
  const words = tokens(text);
  let redirs = '';
  let dir: string | null = null;
  for (let i = 0; i < words.length; i++) {
    const { w, at } = words[i]!;
    if (w === '--') return { args: text.slice(words[i + 1]?.at ?? text.length), redirs, dir };
    if (!w.startsWith('-') || w === '-') return { args: text.slice(at), redirs, dir };
    const long = /^--([^=]+)(?:=(.*))?$/s.exec(w);
    const key = long ? LAUNCH_LONG.get(long[1]!) : w.length >= 2 && Object.hasOwn(LAUNCH_VALUES, w[1]!) ? w[1] : undefined;
    if (!key) continue;
    const value = long ? long[2] ?? words[++i]?.w : w.length > 2 ? w.slice(2) : words[++i]?.w;
    if (value === undefined) break;
    if (key === 'i') redirs += ` < ${quote(value)}`;
    if (key === 'o') redirs += ` > ${quote(value)}`;
    if (key === 'e') redirs += ` 2> ${quote(value)}`;
    if (key === 'w') dir = value;
  }
  return { args: null, redirs, dir };
}

/** The program `target create [OPTIONS] PROG` names. */
function createdProgram(text: string): string | null {
  const words = tokens(text);
  for (let i = 0; i < words.length; i++) {
    const w = words[i]!.w;
    if (w === '--') return words[i + 1]?.w ?? null;
    if (!w.startsWith('-')) return w;
    if ((w.length === 2 && CREATE_VALUES.includes(w[1]!)) || (w.startsWith('--') && !w.includes('=') && CREATE_LONG.includes(w.slice(2)))) i++;
  }
  return null;
}

/** lldb's own command line (the target and its arguments) and the launches its one-line commands make, as shell code. */
export function lldbRun(args: readonly Arg[]): { rest: readonly Arg[]; code: string | null } {
  const { argv, commands } = lldbTarget(args);
  const texts = commands.map((c) => plain(c.v));
  const programs = [...(argv[0] ? [shellArg(argv[0])] : []), ...texts.flatMap((t) => {
    const m = CREATE.exec(t);
    const p = m ? createdProgram(m.groups!.create!) : null;
    return p === null ? [] : [quote(p)];
  })];
  const codes: string[] = [];
  for (const t of texts) {
    const launch = LAUNCH.exec(t);
    const run = launch ? null : RUN.exec(t) ?? RUN_ARGS.exec(t);
    if (!launch && !run?.groups?.args) continue;
    const l = launch ? launchOf(launch.groups!.launch!) : { args: run!.groups!.args!, redirs: '', dir: null };
    const cd = l.dir === null ? '' : `cd ${quote(l.dir)} && `;
    // without ARGS the launch takes the target's run arguments, the command line's own (walked as `rest`)
    const rest = l.args ?? argv.slice(1).map(shellArg).join(' ');
    for (const p of [...new Set(programs)]) codes.push(`${cd}exec ${p} ${rest}${l.redirs}`);
  }
  // `lldb -- 'CMD ARGS'`: one word with blanks is read as a command line, as wrappers read it
  const single = argv.length === 1 && /\s/.test(plain(argv[0]!.v).trim());
  return { rest: single ? [] : argv, code: [...(single ? [plain(argv[0]!.v)] : []), ...codes].join('\n') || null };
}
