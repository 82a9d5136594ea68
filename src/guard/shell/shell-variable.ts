import { shellWord } from './code-values.ts';
import { has, parseOptions, valueOf, type ParsedOptions } from './flags.ts';
import type { Arg, Emit } from './model.ts';
import { suShell } from './su-family.ts';
import { quoteArg } from './unwrap.ts';
import { UNKNOWN, display, isKnown, literal, plain } from './values.ts';
import { plainShell } from './vim-options.ts';
import { WRAPPERS } from './wrapper-tables.ts';
import { fzfCommands } from './fzf.ts';

/**
 * Programs that start the shell $SHELL names (vim's own is read in vim-options.ts), or one an option names, with a
 * command (`-c CMD`) or alone: a value that is no shell, or one a line can write (a relative path, /tmp), runs whatever it
 * likes with that command; asked as vim's is, and walked as the command line it starts (`SHELL='rm -rf /'` is denied).
 * A value the guard cannot see asks. What each reads, from its manual: sudo -s (not -i: the target's passwd shell), doas
 * -s; su and runuser with -m/-p and no login (util-linux su: `--shell`, else $SHELL only with --preserve-environment),
 * or their --shell; script (util-linux: "the shell forked by script will be that shell", with -c too); flock -c; entr
 * -s; chroot, unshare and nsenter without a program ("${SHELL}" is run); systemd-run --shell; tmux starting a server
 * (default-shell from $SHELL, an absolute path only) or -c; screen starting a window without a command, or its -s;
 * xterm without -e; less's `!` and `|` commands (it hands `$SHELL -c CMD` to /bin/sh, so the value is shell text);
 * gdb's shell, pipe and run commands (get_shell: $SHELL, else /bin/sh); make's `SHELL=` argument or MAKEFLAGS (GNU
 * make never takes SHELL from the environment); fzf's commands (or its --with-shell); parallel's $PARALLEL_SHELL. nohup, xargs, find -exec, man and watch run programs or /bin/sh.
 */

/**
 * How the program finds the shell's file: a PATH search (execvp); the value as a path from the working directory
 * (execv: a bare name is a file there); an absolute path only (others are ignored); a path in another root directory
 * (chroot: asked, not walked); words split at blanks (make); shell text (less).
 */
type Resolve = 'path' | 'cwd' | 'absolute' | 'root' | 'words' | 'text';

interface ShellRun {
  /** An option's (or argument's) value naming the shell, shown as given; absent: $SHELL. */
  readonly given?: { readonly value: Arg; readonly shown: string };
  /** The commands it gives the shell with -c; null: the shell alone (interactive, or commands the guard does not see). */
  readonly commands: readonly (string | null)[];
  readonly resolve: Resolve;
}

type ShellUse = (args: readonly Arg[], found: readonly string[], vars: ReadonlyMap<string, string>) => ShellRun | null;

const parsed = (name: string, args: readonly Arg[]): ParsedOptions => parseOptions(args, WRAPPERS[name] ?? {});
const alone: readonly null[] = [null];
/** su's and runuser's shell (see su-family.ts): their -s value, or $SHELL with -m/-p; run with execv. */
const suRun = (su: ReturnType<typeof suShell>): ShellRun | null =>
  su && { ...(su.shell ? { given: { value: su.shell, shown: '-s' } } : {}), commands: [su.command], resolve: 'cwd' };
const word = (v: string): Arg => ({ v, info: { computed: false, ansi: false, quoted: true, inner: [], raw: v } });

/** `sudo -s [CMD…]`: $SHELL, given the command (its words quoted) with -c. */
const sudo: ShellUse = (args) => {
  const p = parsed('sudo', args);
  if (!has(p, 's', 'shell') || has(p, 'i', 'login')) return null;
  const at = p.operands.findIndex((a) => !/^[A-Za-z_][A-Za-z0-9_]*=/.test(a.v));
  return { commands: [at < 0 ? null : p.operands.slice(at).map(quoteArg).join(' ')], resolve: 'path' };
};

/** A program running `$SHELL` when one of `names` is given (none: always), with its `command` option's value as the command. */
const withOption = (name: string, names: readonly string[], command: readonly string[], resolve: Resolve): ShellUse => (args) => {
  const p = parsed(name, args);
  if (names.length > 0 && !has(p, ...names)) return null;
  const cmd = command.length > 0 ? valueOf(p, ...command) : null;
  return { commands: [cmd ? plain(cmd.v) : null], resolve };
};
/** A program running `$SHELL` when given no program after its `positional` operands; `roots`: options putting the shell's path in another root. */
const withoutProgram = (name: string, positional: number, roots: readonly string[], resolve: Resolve): ShellUse => (args) => {
  const p = parsed(name, args);
  return p.operands.length > positional ? null : { commands: alone, resolve: has(p, ...roots) ? 'root' : resolve };
};

/** `flock [OPTS] FILE -c CMD` (util-linux reads -c after the file): $SHELL with CMD; a program after the file is run as it is. */
const flock: ShellUse = (args) => {
  const p = parsed('flock', args);
  const after = literal(p.operands[1]?.v ?? '');
  const cmd = valueOf(p, 'c', 'command') ?? (after === '-c' || after === '--command' ? p.operands[2] ?? null : null);
  return cmd ? { commands: [plain(cmd.v)], resolve: 'path' } : null;
};

/** tmux commands that start the server (which takes default-shell from $SHELL), by name or alias; no command is new-session. */
const TMUX_STARTS = ['new-session', 'start-server'];
const TMUX_ALIASES: Readonly<Record<string, string>> = { new: 'new-session', start: 'start-server' };
const tmux: ShellUse = (args) => {
  const p = parsed('tmux', args);
  const code = valueOf(p, 'c');
  const first = literal(p.operands[0]?.v ?? '');
  const names = first === null ? [] : Object.hasOwn(TMUX_ALIASES, first) ? [TMUX_ALIASES[first]!] : (WRAPPERS.tmux!.subcommandNames ?? []).filter((n) => n.startsWith(first));
  const starts = p.operands.length === 0 || (names.length === 1 && TMUX_STARTS.includes(names[0]!));
  return code || starts ? { commands: [code ? plain(code.v) : null], resolve: 'absolute' } : null;
};

/** screen's options that list, wipe, attach to or send to a session, or print its version: no new window. */
const SCREEN_NO_WINDOW = ['-ls', '-list', '-wipe', '-version'];
const screen: ShellUse = (args) => {
  if (args.some((a) => SCREEN_NO_WINDOW.includes(literal(a.v) ?? ''))) return null;
  const p = parsed('screen', args);
  // -d/-D detach a running session, unless -m or -R start one; a command given runs in place of the shell
  if (has(p, 'r', 'x', 'X', 'Q', 'v') || (has(p, 'd', 'D') && !has(p, 'm', 'R')) || p.operands.length > 0) return null;
  const s = valueOf(p, 's');
  return { ...(s ? { given: { value: s, shown: '-s' } } : {}), commands: alone, resolve: 'path' };
};

/**
 * GNU make runs each recipe line as `SHELL .SHELLFLAGS LINE`, split at blanks: `SHELL` and `.SHELLFLAGS` set by an
 * argument or in MAKEFLAGS (`=`, `:=`, `::=`, `:::=`; `+=` after the default /bin/sh or -c; `?=` changes nothing).
 */
const MAKE_SET = /^\s*(SHELL|\.SHELLFLAGS)\s*(:{0,3}=|\+=|!=)\s*([\s\S]*)$/;
const MAKE_DEFAULTS: Readonly<Record<string, string>> = { SHELL: '/bin/sh', '.SHELLFLAGS': '-c' };
const make: ShellUse = (args, _found, vars) => {
  const words = [...args, ...['MAKEFLAGS', 'GNUMAKEFLAGS'].flatMap((v) => (vars.get(v) ?? '').split(/\s+/).map(word))];
  const set = new Map<string, { v: string; shown: string; from: Arg }>();
  for (const a of words) {
    const m = a.v.startsWith('-') ? null : MAKE_SET.exec(a.v);
    if (!m) continue;
    const [, name, op, rest] = m;
    // `X != CMD` sets X to what CMD prints
    const v = op === '!=' ? UNKNOWN : op === '+=' ? `${set.get(name!)?.v ?? MAKE_DEFAULTS[name!]} ${rest}` : rest!;
    set.set(name!, { v, shown: `${name}${op}${display(rest!)}`, from: a });
  }
  if (set.size === 0) return null;
  const v = ['SHELL', '.SHELLFLAGS'].map((n) => set.get(n)?.v ?? MAKE_DEFAULTS[n]).join(' ');
  const shown = [...set.values()].map((x) => x.shown).join(' ');
  return { given: { value: { v, info: [...set.values()][0]!.from.info }, shown: `${shown} →` }, commands: alone, resolve: 'words' };
};

/** fzf runs its commands (`found`, see fzf.ts) with $SHELL, or the words --with-shell gives (`bash -c`). */
const fzf: ShellUse = (args, found) => {
  if (found.length === 0) return null;
  const w = fzfCommands(args).withShell;
  return w ? { given: { value: w, shown: '--with-shell' }, commands: found, resolve: 'words' } : { commands: found, resolve: 'path' };
};
/** GNU parallel and sem run each job with $PARALLEL_SHELL when set (else the shell that started them, then $SHELL). */
const parallel: ShellUse = (_args, _found, vars) => {
  const v = vars.get('PARALLEL_SHELL');
  return v === undefined ? null : { given: { value: word(v), shown: 'PARALLEL_SHELL=' }, commands: alone, resolve: 'path' };
};

/** Programs that start a shell named by $SHELL (or an option), and when. */
const SHELL_USERS: Readonly<Record<string, ShellUse>> = {
  sudo,
  doas: withOption('doas', ['s'], [], 'path'),
  su: (args) => suRun(suShell('su', args)),
  runuser: (args) => suRun(suShell('runuser', args)),
  script: withOption('script', [], ['c', 'command'], 'cwd'),
  flock,
  entr: (args) => { const p = parsed('entr', args); return has(p, 's') ? { commands: [p.operands[0] ? plain(p.operands[0].v) : null], resolve: 'path' } : null; },
  chroot: withoutProgram('chroot', 1, [], 'root'),
  unshare: withoutProgram('unshare', 0, ['R', 'root'], 'cwd'),
  // nsenter's mount namespace (-m, -a) or root (-r) may be another file system
  nsenter: withoutProgram('nsenter', 0, ['r', 'root', 'm', 'mount', 'a', 'all'], 'cwd'),
  'systemd-run': withOption('systemd-run', ['S', 'shell'], [], 'absolute'),
  tmux,
  screen,
  xterm: (args) => (args.some((a) => literal(a.v) === '-e') ? null : { commands: alone, resolve: 'path' }),
  less: (_args, found) => (found.length > 0 ? { commands: found, resolve: 'text' } : null),
  gdb: (_args, found) => (found.length > 0 ? { commands: found, resolve: 'cwd' } : null),
  make,
  fzf,
  parallel,
  sem: parallel,
};
const ALSO: Readonly<Record<string, string>> = { uxterm: 'xterm', zless: 'less', 'gdb-multiarch': 'gdb', 'rust-gdb': 'gdb', gmake: 'make' };

/** A value the program runs as it would /bin/sh: a known shell, with flags only (words, text), at a path no line can fill. */
function plainValue(value: string, resolve: Resolve): boolean {
  if (resolve === 'text' && /[^\w/.+\-\s\uE010]/.test(value)) return false;
  const words = resolve === 'words' || resolve === 'text' ? value.trim().split(/\s+/) : [value];
  // execv takes a bare name as a file in the working directory
  if (resolve === 'cwd' && !value.includes('/')) words[0] = `./${value}`;
  return plainShell(words);
}

/** The command line that runs: the shell's words, then `-c CMD` when given one. */
function commandLine(value: string, resolve: Resolve, cmd: string | null): string {
  const c = cmd === null ? '' : ` -c ${shellWord(cmd)}`;
  if (resolve === 'text') return `${plain(value)}${c}`;
  // execv runs a bare name from the working directory
  const words = resolve === 'words' ? plain(value).trim().split(/\s+/) : [resolve === 'cwd' && !value.includes('/') ? `./${plain(value)}` : plain(value)];
  return `${words.map(shellWord).join(' ')}${c}`;
}

/**
 * Flags a shell these programs start that is not plain (or not known) and returns the command lines it runs, to be walked.
 * `found`: the shell commands found in the program's own options (less's `+!CMD`, gdb's `-ex 'shell CMD'`).
 */
export function shellVariableCode(name: string, args: readonly Arg[], vars: ReadonlyMap<string, string>, found: readonly string[], emit: Emit): string[] {
  const use = SHELL_USERS[ALSO[name] ?? name];
  const run = use?.(args, found, vars);
  if (!run) return [];
  const value = run.given?.value.v ?? vars.get('SHELL');
  // not set on this line (the user's own), or empty (the program's default)
  if (value === undefined || value === '') return [];
  const shown = run.given ? `${run.given.shown}${run.given.shown.endsWith('=') ? '' : ' '}${display(value)}` : `SHELL=${display(value)}`;
  const unseen = (why: string): void => emit('shell.code.unseen_setting', `${name}: ${shown.slice(0, 100)} (${why})`);
  if (!isKnown(value)) { unseen(`a value the guard cannot read, for the shell ${name} starts`); return []; }
  // tmux and systemd-run take only an absolute path (else the passwd shell)
  if (run.resolve === 'absolute' && !value.startsWith('/')) return [];
  if (plainValue(value, run.resolve)) return [];
  const runs = run.resolve === 'cwd' && !value.includes('/') ? `./${display(value)}` : display(value) || "''";
  unseen(`${name} starts ${runs} as its shell${run.commands.some((c) => c !== null) ? ' for its commands' : ''}, not a shell the guard can read`);
  if (run.resolve === 'root') return [];
  return run.commands.map((c) => commandLine(value, run.resolve, c));
}

