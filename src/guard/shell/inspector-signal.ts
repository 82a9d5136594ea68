import { has, parseOptions, type OptionSpec, type ParsedOptions } from './flags.ts';
import type { Arg } from './model.ts';
import { showArg } from './shell-state.ts';
import { literal } from './values.ts';

/**
 * SIGUSR1 makes a running Node process open its inspector (127.0.0.1:9229), through which anything that connects runs
 * code in it: echo-agent is one, so sending it is an attach. `kill` names pids the guard cannot tell apart; pkill and
 * killall name programs, so a pattern that cannot match node is let through (`pkill -USR1 dd`).
 */

/** SIGUSR1 by name (any case, with or without SIG) or by its Linux number. */
const USR1 = /^(?:sig)?usr1$|^10$/i;
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

/** Programs that signal processes, and what SIGUSR1 on their line attaches to. */
export const INSPECTOR_SIGNALS: Readonly<Record<string, (args: readonly Arg[]) => string | null>> = {
  kill: killSignal,
  pkill: namedSignal(PKILL, ['signal'], ['f', 'full'], true),
  killall: namedSignal(KILLALL, ['s', 'signal'], [], false),
};
