import { has, parseOptions, valueOf, valuesOf, type OptionSpec } from './flags.ts';
import type { Arg } from './model.ts';
import { canonical, type Canon } from './paths.ts';
import { INTERPRETERS } from './program-tables.ts';
import { literal, plain } from './values.ts';
import { WRAPPERS } from './wrapper-tables.ts';

/**
 * Programs that run a command as another user in a new session: `su [-] [USER] -c CODE`, `runuser [-l] USER -c CODE`,
 * `runuser -u USER [--] CMD…`, `run0 CMD…`, `machinectl shell [USER@]MACHINE [PATH ARGS…]`; and the environment and
 * directory the command starts in. su and runuser reset HOME, SHELL, USER, LOGNAME and PATH (not with -m/-p), and with
 * `-`/-l/--login everything but TERM and -w's names, starting in the target's home; run0 and machinectl shell start a
 * service with a fresh environment (but --setenv), run0 in the same directory as root, else in the target's home.
 */

/** What unwrapOnce takes off for these programs (see Unwrapped there). */
export interface SuRun {
  readonly rest: readonly Arg[];
  readonly code: string | null;
}

/** su's and runuser's options (GNU getopt: they may follow the user); runuser adds -u USER. */
const SU: OptionSpec = {
  short: 'cgGsuw',
  long: ['command', 'group', 'supp-group', 'shell', 'user', 'whitelist-environment', 'session-command'],
  flags: ['login', 'preserve-environment', 'fast', 'pty', 'no-pty', 'help', 'version'],
  alias: { 'preserve-environment': 'p', login: 'l', user: 'u', shell: 's', 'whitelist-environment': 'w' },
};
/** machinectl's options that take a value; it stops at the machine name after `shell`, the rest is the command. */
const MACHINECTL: OptionSpec = {
  posix: true,
  short: 'pPsHMnoE',
  long: ['property', 'signal', 'kill-whom', 'uid', 'setenv', 'host', 'machine', 'lines', 'output', 'verify', 'format', 'max-addresses', 'image-policy', 'runner', 'bind'],
};

const word = (v: string, from: Arg): Arg => ({ v, info: { ...from.info, raw: v } });
const runuserCommand = (name: string, p: ReturnType<typeof parseOptions>): boolean => name === 'runuser' && has(p, 'u');

/** The operands after su's optional `-` (a login): the user, then arguments for the user's shell. */
function suOperands(ops: readonly Arg[]): { login: boolean; user: Arg | undefined; shellArgs: readonly Arg[] } {
  const dash = literal(ops[0]?.v ?? '') === '-';
  const rest = dash ? ops.slice(1) : ops;
  return { login: dash, user: rest[0], shellArgs: rest.slice(1) };
}

/** `machinectl [OPTIONS] shell [OPTIONS] [[USER@]MACHINE [PATH ARGS…]]`: its options, the machine and the command; null for other verbs. */
function machineShell(args: readonly Arg[]): { opts: Arg[]; machine: Arg | undefined; command: readonly Arg[] } | null {
  const before = parseOptions(args, MACHINECTL);
  if (literal(before.operands[0]?.v ?? '') !== 'shell') return null;
  const after = parseOptions(args.slice(before.rest + 1), MACHINECTL);
  return { opts: [...args.slice(0, before.rest), ...args.slice(before.rest + 1, before.rest + 1 + after.rest)], machine: after.operands[0], command: after.operands.slice(1) };
}

/** The command or code these programs run; null for any other program (or machinectl verb). */
export function suUnwrap(name: string, args: readonly Arg[]): SuRun | null {
  if (name === 'machinectl') {
    const m = machineShell(args);
    return m ? { rest: m.command, code: null } : null;
  }
  if (name !== 'su' && name !== 'runuser') return null;
  const p = parseOptions(args, SU);
  // `runuser -u USER CMD…`: the command follows the options as it is
  if (runuserCommand(name, p)) return { rest: parseOptions(args, { ...WRAPPERS.runuser!, posix: true }).operands, code: null };
  const code = valueOf(p, 'c', 'command', 'session-command');
  const { shellArgs } = suOperands(p.operands);
  const shell = valueOf(p, 's');
  const shellName = shell ? literal(shell.v)?.replace(/^.*\//, '') : undefined;
  const spec = shellName ? INTERPRETERS[/^python[0-9.]*$/.test(shellName) ? 'python' : shellName] : undefined;
  // `su -s /usr/bin/python3 -c CODE`: the "shell" is another interpreter, run as it is
  if (shell && spec && spec.family !== 'shell') return { rest: [shell, ...(code ? [word('-c', code), code] : []), ...shellArgs], code: null };
  if (code) return { rest: [], code: plain(code.v) };
  // `su USER -- ARGS…`: the arguments go to the user's shell
  return { rest: shellArgs.length > 0 ? [shell ?? word('sh', shellArgs[0]!), ...shellArgs] : [], code: null };
}

/**
 * The shell su or runuser starts: its -s value (`given`), else $SHELL (null) with -m/-p and no login (util-linux su:
 * "the shell specified in the environment variable SHELL, if the --preserve-environment option is used"), with the -c
 * command; null when it starts the target's passwd shell, or `runuser -u USER CMD…` runs the command itself.
 */
export function suShell(name: string, args: readonly Arg[]): { shell: Arg | null; command: string | null } | null {
  if (name !== 'su' && name !== 'runuser') return null;
  const p = parseOptions(args, SU);
  if (runuserCommand(name, p)) return null;
  const code = valueOf(p, 'c', 'command', 'session-command');
  const command = code ? plain(code.v) : null;
  const shell = valueOf(p, 's');
  if (shell) return { shell, command };
  return has(p, 'p', 'm') && !suOperands(p.operands).login && !has(p, 'l') ? { shell: null, command } : null;
}

/** Names su and runuser set for the target user, whatever was exported. */
const SU_SETS = new Set(['HOME', 'SHELL', 'USER', 'LOGNAME', 'PATH']);
const ROOT_HOME = canonical('/root', null);

/** The target's home when it is root's (the default target); null (unknown) for any other user. */
const homeOf = (user: Arg | null | undefined): Canon | null => {
  const u = user ? literal(user.v) : 'root';
  return u === 'root' || u === '0' ? ROOT_HOME : null;
};

/** Which variables survive and where the command starts; null when the program is none of these (or keeps both). */
export function suEnvironment(name: string, args: readonly Arg[], cwd: Canon | null): { keep: (v: string) => boolean; set: readonly Arg[]; cwd: Canon | null } | null {
  if (name === 'su' || name === 'runuser') {
    const p = parseOptions(args, SU);
    const { login, user } = suOperands(p.operands);
    // -m and -p keep the environment, but not for a login shell
    if (!login && !has(p, 'l')) return has(p, 'p', 'm') ? null : { keep: (v) => !SU_SETS.has(v), set: [], cwd };
    const white = new Set(valuesOf(p, 'w').flatMap((a) => (literal(a.v) ?? '').split(',')));
    return { keep: (v) => v === 'TERM' || white.has(v), set: [], cwd: runuserCommand(name, p) ? cwd : homeOf(user) };
  }
  if (name === 'run0') {
    const p = parseOptions(args, WRAPPERS.run0!);
    const chdir = has(p, 'D', 'chdir');
    return { keep: (v) => v === 'TERM', set: valuesOf(p, 'setenv'), cwd: chdir || homeOf(valueOf(p, 'u', 'user')) === ROOT_HOME ? cwd : null };
  }
  const m = name === 'machinectl' ? machineShell(args) : null;
  if (!m) return null;
  const p = parseOptions(m.opts, MACHINECTL);
  const at = m.machine ? /^([^@]*)@/.exec(literal(m.machine.v) ?? '')?.[1] : undefined;
  const user = valueOf(p, 'uid') ?? (at ? word(at, m.machine!) : null);
  return { keep: (v) => v === 'TERM', set: valuesOf(p, 'E', 'setenv'), cwd: homeOf(user) };
}
