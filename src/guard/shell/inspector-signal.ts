import { has, parseOptions, type OptionSpec, type ParsedOptions } from './flags.ts';
import type { Arg } from './model.ts';
import { showArg } from './shell-state.ts';
import { SYSTEMD_OPTIONS } from './systemd-options.ts';
import { literal } from './values.ts';
import { CONTAINER_GLOBALS } from './wrapper-tables.ts';
import { COMPOSE_GLOBALS } from './container-tables.ts';

/**
 * SIGUSR1 makes a running Node process open its inspector (127.0.0.1:9229), through which anything that connects runs
 * code in it: echo-agent is one, so sending it is an attach. `kill` names pids the guard cannot tell apart; pkill and
 * killall name programs, so a pattern that cannot match node is let through (`pkill -USR1 dd`). Service and container
 * managers (`systemctl kill`, `docker kill`) name units and containers, any of which may run node.
 * `timeout -s USR1` is left alone: it signals only the command it starts (in a process group of its own), which could
 * as well have been started with `node --inspect`.
 */

/**
 * SIGUSR1 by name (any case, with or without SIG) or by number, leading zeros and `+` as bash's kill reads them. The
 * number is the machine's where the command runs, which the guard cannot know (ssh, a container): 10 on Linux x86 and
 * arm, 30 on macOS and the BSDs, 16 on illumos and Linux MIPS. All three are read as SIGUSR1, since on Linux x86 the
 * others are SIGPWR and SIGSTKFLT, which nobody sends by hand.
 */
const USR1 = /^(?:(?:sig)?usr1|\+?0*(?:10|16|30))$/i;
/** What a node process is called in the process table (`comm`), which pkill and killall match without -f. */
const NODE_NAMES = ['node', 'nodejs'];

/** pkill's and killall's options that take a value (procps-ng pgrep.c, psmisc killall.c); `-s` is killall's signal but pkill's session. */
const PKILL: OptionSpec = { short: 'gGPstuUFq', long: ['signal', 'group', 'parent', 'session', 'terminal', 'euid', 'uid', 'pidfile', 'ns', 'nslist', 'env', 'cgroup', 'queue'], digits: true };
const KILLALL: OptionSpec = { short: 'snuoyZ', long: ['signal', 'user', 'older-than', 'younger-than', 'context'], digits: true };

/** The signal a `kill`-like command line sends: `-USR1`, `-SIGUSR1`, `-10`, `-s USR1`, `-n 10`, `--signal=USR1`; null when none or not known. */
function signalOf(p: ParsedOptions, named: readonly string[]): string | null {
  for (const o of p.opts) {
    // `-USR1` reads as a cluster of letters (`-usr1` as `-u -s r1`): the word is the signal
    if (/^-[A-Za-z0-9]+$/.test(o.arg.v) && USR1.test(o.arg.v.slice(1))) return o.arg.v.slice(1);
    if (named.includes(o.name) && o.value) return literal(o.value.v);
  }
  return null;
}

function killSignal(args: readonly Arg[]): string | null {
  if (args.some((a) => /^-[lL]$|^--(?:list|table)/.test(a.v))) return null;
  const sig = signalOf(parseOptions(args, { short: 'snq', long: ['signal', 'queue', 'timeout'], digits: true }), ['s', 'n', 'signal']);
  return sig !== null && USR1.test(sig) ? `kill -${sig} opens a node process's inspector` : null;
}

/** pkill and killall: SIGUSR1 to processes whose names may be node's (or whose command lines, with `-f`, may be anything). */
function namedSignal(spec: OptionSpec, signal: readonly string[], full: readonly string[], regex: boolean) {
  return (args: readonly Arg[]): string | null => {
    const p = parseOptions(args, spec);
    const sig = signalOf(p, signal);
    if (sig === null || !USR1.test(sig)) return null;
    const byRegex = regex || has(p, 'r', 'regexp');
    const names = p.operands.map((a) => literal(a.v));
    const node = has(p, ...full) || names.length === 0 || names.some((n) => n === null || NODE_NAMES.some((m) => matches(n, m, byRegex)));
    return node ? `${p.operands.map((a) => showArg(a.v)).join(' ') || 'every process'} (SIGUSR1 opens a node process's inspector)` : null;
  };
}

/** pkill's pattern is an extended regex over the name; killall's an exact name, or one with -r. */
function matches(pattern: string, name: string, regex: boolean): boolean {
  if (!regex) return pattern === name || pattern.endsWith(`/${name}`);
  try {
    return new RegExp(pattern, 'i').test(name);
  } catch {
    return true;
  }
}

/** A program that signals the processes of what it manages (a unit, a session, a container) with one of its verbs. */
interface SignalVerb {
  /** Options before the verb; not posix: they may come after it too (systemd's getopt_long), and the signal among them. */
  readonly globals: OptionSpec;
  /** The verbs, as the words that name them (`kill`, `container kill`, `compose kill`). */
  readonly verbs: readonly string[];
  /** The verb's own options, read after it (docker's flags); absent: the globals hold them. */
  readonly spec?: OptionSpec;
  /** Options naming the signal (in `spec`, else in `globals`); a `-USR1` word is read too where `digits` says so. */
  readonly signal: readonly string[];
}

const CONTAINER_KILL: SignalVerb = { globals: CONTAINER_GLOBALS, verbs: ['kill', 'container kill'], spec: { short: 's', long: ['signal', 'cidfile'] }, signal: ['s', 'signal'] };

const SIGNAL_VERBS: Readonly<Record<string, SignalVerb>> = {
  systemctl: { globals: SYSTEMD_OPTIONS, verbs: ['kill'], signal: ['s', 'signal'] },
  loginctl: { globals: SYSTEMD_OPTIONS, verbs: ['kill-session', 'kill-user'], signal: ['s', 'signal'] },
  machinectl: { globals: SYSTEMD_OPTIONS, verbs: ['kill'], signal: ['s', 'signal'] },
  docker: { ...CONTAINER_KILL, verbs: ['kill', 'container kill', 'compose kill'] },
  podman: { ...CONTAINER_KILL, verbs: ['kill', 'container kill', 'pod kill', 'compose kill'] },
  nerdctl: { ...CONTAINER_KILL, verbs: ['kill', 'container kill', 'compose kill'] },
  'docker-compose': { globals: COMPOSE_GLOBALS, verbs: ['kill'], spec: { short: 's', long: ['signal'] }, signal: ['s', 'signal'] },
  'podman-compose': { globals: COMPOSE_GLOBALS, verbs: ['kill'], spec: { short: 's', long: ['signal'] }, signal: ['s', 'signal'] },
  // procps skill: `skill -USR1 EXPRESSION`, whose words may be users or terminals as well as names
  skill: { globals: { short: 'cptu', digits: true }, verbs: [''], signal: [] },
};

/** `systemctl kill -s USR1 UNIT`, `docker kill --signal=SIGUSR1 C`, `loginctl kill-user -s 10 USER`: what gets SIGUSR1, or null. */
function verbSignal(s: SignalVerb) {
  return (args: readonly Arg[]): string | null => {
    const g = parseOptions(args, s.globals);
    let ops = g.operands;
    // compose's own options come between `compose` and its verb
    if (literal(ops[0]?.v ?? '') === 'compose') ops = [ops[0]!, ...parseOptions(ops.slice(1), COMPOSE_GLOBALS).operands];
    const verb = s.verbs.map((v) => v.split(' ').filter((w) => w !== '')).find((v) => v.every((w, i) => literal(ops[i]?.v ?? '') === w));
    if (!verb) return null;
    const p = s.spec ? parseOptions(ops.slice(verb.length), s.spec) : g;
    const sig = signalOf(p, s.signal);
    if (sig === null || !USR1.test(sig)) return null;
    const targets = s.spec ? p.operands : ops.slice(verb.length);
    return `${targets.map((a) => showArg(a.v)).join(' ') || 'its processes'} (SIGUSR1 opens a node process's inspector)`;
  };
}

/** Programs that signal processes, and what SIGUSR1 on their line attaches to. */
export const INSPECTOR_SIGNALS: Readonly<Record<string, (args: readonly Arg[]) => string | null>> = {
  kill: killSignal,
  pkill: namedSignal(PKILL, ['signal'], ['f', 'full'], true),
  killall: namedSignal(KILLALL, ['s', 'signal'], [], false),
  ...Object.fromEntries(Object.entries(SIGNAL_VERBS).map(([name, s]) => [name, verbSignal(s)])),
};
