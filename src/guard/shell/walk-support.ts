import type { GitScope } from './git-scope.ts';
import type { CommandSettings } from './command-settings.ts';
import type { FileReader } from './embedded-code.ts';
import { expand, type EvalContext } from './evaluate.ts';
import { has, parseOptions } from './flags.ts';
import type { ListingFiles } from './listing-files.ts';
import type { Listings } from './listings.ts';
import type { Arg, Emit, Invocation, RedirFact } from './model.ts';
import { canonValue, type Canon } from './paths.ts';
import type { ScriptHost } from './scripts.ts';
import type { State } from './shell-state.ts';
import type { Redirect, Stmt } from './syntax/ast.ts';
import { HOME, UNKNOWN, hasGlob, isKnown, literal, plain } from './values.ts';
import { SHELL_WHEN_NO_COMMAND, WRAPPERS } from './wrapper-tables.ts';

// parallel --dry-run: for the walk, with its other helpers
export { PRINTS_ONLY, printsOnly, printsTo } from './dry-run.ts';
// `xargs -a FILE`, `parallel :::: FILE`: the files read for their arguments
export { argFileReads } from './arg-files.ts';

/** Re-parses shell code found inside a command (`bash -c`, `eval`, …); null when it does not parse. */
export type Reparse = (code: string) => readonly Stmt[] | null;

/** More of what a program word is given: the variables it runs with and the file its stdin is redirected from. */
export interface ProgramContext {
  readonly vars: ReadonlyMap<string, string>;
  readonly stdinFile: Arg | null;
}

/** The rule checks the walk runs on what it finds. */
export interface Checks {
  invocation(inv: Invocation, emit: Emit): void;
  redirect(r: RedirFact, emit: Emit): void;
  /** A variable set on the line, for the shell or one command (`NAME=VALUE`). */
  assignment(name: string, value: string, emit: Emit): void;
  /** Every program word of a command line, wrappers included (`strace -p 1 CMD`), with its own arguments, the files this line wrote and its static stdin. */
  program(name: string, args: readonly Arg[], emit: Emit, read: FileReader, stdin?: string | null, context?: ProgramContext): void;
  /** Program names a glob in program position could stand for. */
  programsMatching(glob: RegExp): readonly string[];
}

/**
 * Where a program word runs a file from, for its approval scope: a word with a `/` (`./build.sh`, `out/x`,
 * `~/bin/x`) names one file, resolved against the directory it runs in (home-relative as `~/…`); null when that
 * directory or the word cannot be known; undefined for a name looked up on PATH, scoped by the name.
 */
export type ProgramFile = string | null | undefined;

export function programFile(v: string, cwd: Canon | null, homeAssigned = false, cwdGuessed = false): ProgramFile {
  // `~` is judged as the daemon's home: a line that sets HOME runs `~/x` from elsewhere
  if (!isKnown(v) || hasGlob(v) || v.indexOf(HOME) > 0 || (homeAssigned && v.startsWith(HOME))) return null;
  const word = literal(v)!;
  if (!word.includes('/')) return undefined;
  // `.` and `//` dropped, `..` kept: the guard resolves the path as the kernel walks it (a symlink before `..` counts)
  const tidy = (p: string) => p.split('/').filter((s, i) => i === 0 || (s !== '' && s !== '.')).join('/');
  if (v.startsWith(HOME) || word.startsWith('/')) return tidy(word);
  if (!cwd || cwd.base === 'rel' || cwdGuessed) return null;
  return tidy(`${literal(canonValue(cwd))}/${word}`);
}

/** Bound on the items of a loop, or the command lines of an xargs, walked one by one. */
export const MAX_LOOP_ITEMS = 16;

/** What the parts of the walk share (walk.ts, command-line.ts, code-commands.ts): its findings, what the line wrote and listed, and the way back in. */
export interface WalkHost extends ScriptHost {
  readonly checks: Checks;
  readonly listingFiles: ListingFiles;
  readonly listings: Listings;
  /** git aliases and ugrep configuration set earlier on the line. */
  readonly settings: CommandSettings;
  /** One command line, wrappers taken off (see command-line.ts); `assigned`: its `NAME=VALUE` prefix. */
  commandLine(args: readonly Arg[], st: State, redirs: readonly RedirFact[], appendsArgs: boolean, assigned?: readonly [string, string][]): void;
  /** Runs the checks on a command found and remembers what it writes and lists; `file` as for scope. */
  record(inv: Invocation, file?: ProgramFile, vars?: ReadonlyMap<string, string>): void;
  /**
   * A command the call runs, once each: what a persistent approval is scoped to (SPEC §5 step 9). `file`: the
   * path a program word with a `/` names (see programFile), which is the scope instead of the program's name.
   */
  scope(program: string, sub?: string, file?: ProgramFile, context?: GitScope | null): void;
  /** A call of a function defined earlier on the line: its body walked with the arguments bound. */
  callFunction(inv: Invocation, st: State): void;
}

const BASH_NAMES = new Set(['bash', 'rbash']);
// ANSI-C quoting: dash takes $'\'' as $ and a quoted backslash, so the words (and commands) split elsewhere
const BASH_ONLY_QUOTES = /\$'/;

/** Code is parsed as bash; a shell that is not bash (dash as sh, zsh, ksh) may split the same text elsewhere: what to flag, or null. */
export function otherDialect(inv: Invocation, code: string | null): string | null {
  return code !== null && !BASH_NAMES.has(inv.program) && BASH_ONLY_QUOTES.test(code) ? `${inv.program}: ${code}` : null;
}

/** `a && b || c` as its statements in order (the tree leans left; walking it recursively could overflow). */
export function andOrChain(s: Stmt): Stmt[] {
  const out: Stmt[] = [];
  let cur: Stmt = s;
  while (cur.cmd.kind === 'andor' && cur.redirs.length === 0 && !cur.background) {
    out.push(cur.cmd.right);
    cur = cur.cmd.left;
  }
  out.push(cur);
  return out.reverse();
}

/** `sudo -s`, `su`, `chroot DIR`: a wrapper given no command that starts a shell instead. */
export function startsShell(name: string, args: readonly Arg[]): boolean {
  const when = SHELL_WHEN_NO_COMMAND[name];
  if (!when) return false;
  return when === 'always' || has(parseOptions(args, WRAPPERS[name]!), ...when);
}

/** What a process substitution expands to: a pipe under /dev/fd (or /proc/self/fd). */
export const isFdPath = (v: string): boolean => /^\/(dev|proc\/self)\/fd\//.test(v);

/** A redirection with its target expanded (`>&file` as `&>`), and the text a heredoc or here-string feeds. */
export function redirFact(r: Redirect, ctx: EvalContext, cwd: Canon | null): RedirFact {
  const inner: Invocation[] = [];
  let target: Arg | null = null;
  let text: string | null = null;
  if (r.heredoc) {
    // a body expands as inside double quotes: no braces, globs, `~` or word splitting (`{a, b}` in YAML stays)
    const body = expand({ parts: [{ kind: 'dq', parts: r.heredoc.body.parts }], raw: r.heredoc.body.raw }, ctx);
    inner.push(...body.info.inner);
    text = plain(body.values[0] ?? '');
  } else {
    const e = expand(r.target, ctx);
    inner.push(...e.info.inner);
    target = { v: e.values[0] ?? UNKNOWN, info: e.info };
    if (r.op === '<<<') text = plain(target.v) + '\n';
  }
  const op = r.op === '>&' && target && !/^(\d+|-)$/.test(target.v) ? '&>' : r.op;
  return { op, fd: r.fd, target, text, inner, cwd };
}
