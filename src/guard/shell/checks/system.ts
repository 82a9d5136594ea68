import { parseOptions } from '../flags.ts';
import type { Emit, Invocation } from '../model.ts';
import { SYSTEMD_OPTIONS } from '../systemd-options.ts';
import { literal } from '../values.ts';

const POWER = new Set(['shutdown', 'reboot', 'halt', 'poweroff']);
const POWER_VERBS = new Set(['poweroff', 'reboot', 'halt', 'kexec', 'soft-reboot', 'rescue', 'emergency']);
const POWER_TARGET = /^(poweroff|reboot|halt|kexec|rescue|emergency|runlevel[06])(\.target)?$/;
const DISRUPT_VERBS = new Set(['stop', 'restart', 'disable', 'mask', 'kill', 'try-restart', 'reload-or-restart', 'try-reload-or-restart', 'condrestart', 'force-reload', 'isolate']);
const SERVICE_VERBS = new Set(['stop', 'restart', 'force-reload', 'condrestart', 'try-restart', 'zap']);
const LOGIN1 = /org\.freedesktop\.login1/;
const LOGIN1_POWER = /(^|\.)(PowerOff|Reboot|Halt|KExec|Suspend|Hibernate|HybridSleep|SuspendThenHibernate)(WithFlags)?$/;
const LAUNCHCTL_VERBS = new Set(['stop', 'unload', 'bootout', 'remove', 'kill', 'disable']);

export function checkSystem(inv: Invocation, emit: Emit): void {
  const prog = inv.program;
  const words = inv.args.map((a) => literal(a.v) ?? '');
  if (POWER.has(prog)) { emit('shell.system.power', inv.text); return; }
  if ((prog === 'init' || prog === 'telinit') && words.some((w) => w === '0' || w === '6')) { emit('shell.system.power', inv.text); return; }
  if (prog === 'kexec' && words.some((w) => w === '-e' || w === '--exec')) { emit('shell.system.power', inv.text); return; }
  if (prog === 'systemctl' || prog === 'loginctl') {
    const parsed = parseOptions(inv.args, SYSTEMD_OPTIONS);
    const ops = parsed.operands.map((a) => literal(a.v) ?? '');
    // an option this table does not know may have taken the next word as its value: the word after is a verb too
    const verbAt = parsed.unknown || parsed.opts.some((o) => o.partial) ? [0, 1] : [0];
    const power = verbAt.some((i) => POWER_VERBS.has(ops[i] ?? '') || ((ops[i] === 'isolate' || ops[i] === 'start') && ops.slice(i + 1).some((t) => POWER_TARGET.test(t))));
    if (power) emit('shell.system.power', inv.text);
    else if (prog === 'systemctl' && verbAt.some((i) => DISRUPT_VERBS.has(ops[i] ?? ''))) emit('shell.service.disruptive', inv.text);
    return;
  }
  // the same power calls straight to logind over D-Bus
  if ((prog === 'busctl' || prog === 'dbus-send' || prog === 'gdbus' || prog === 'qdbus') && words.some((w) => LOGIN1.test(w)) && words.some((w) => LOGIN1_POWER.test(w))) {
    emit('shell.system.power', inv.text);
    return;
  }
  if ((prog === 'service' || prog === 'rc-service') && words.some((w) => SERVICE_VERBS.has(w))) { emit('shell.service.disruptive', inv.text); return; }
  if (prog === 'launchctl' && LAUNCHCTL_VERBS.has(words[0] ?? '')) { emit('shell.service.disruptive', inv.text); return; }
  if (prog === 'killall5') { emit('shell.process.kill_all', inv.text); return; }
  if (prog === 'kill') checkKill(inv, words, emit);
}

/** A pid as kill reads it (`-01` and ` -1` are -1); NaN when it is not a number (a job spec, a name). */
const pidOf = (w: string): number => (/^\s*[+-]?\d+\s*$/.test(w) ? Number(w.trim()) : Number.NaN);
/** Signals to init that do nothing to the machine: 0 (a probe) and HUP (reload). */
const HARMLESS_TO_INIT = new Set(['0', 'HUP', '1']);

/**
 * `kill -1`, `kill -9 -1`, `kill -s KILL -1`, `kill -- -1`: signal every process. A signal to pid 1
 * (init) powers off, reboots or halts under systemd (SIGRTMIN+4, SIGINT, …), or stops a container.
 */
function checkKill(inv: Invocation, words: readonly string[], emit: Emit): void {
  if (words[0] === '-l' || words[0] === '-L') return;
  const { signal, pids: operands } = killOptions(words);
  const pids = operands.map(pidOf);
  if (pids.includes(-1) || (pids.length === 0 && signal === '1')) emit('shell.process.kill_all', inv.text);
  else if (pids.includes(1) && !HARMLESS_TO_INIT.has((signal ?? 'TERM').toUpperCase().replace(/^SIG/, ''))) emit('shell.system.power', `${inv.text} (a signal to init)`);
}

/** util-linux kill's options that take words of their own (`-q VALUE`: sigqueue's value; `--timeout MS SIGNAL`). */
const KILL_VALUES: Readonly<Record<string, number>> = { '-q': 1, '--queue': 1, '--timeout': 2 };
const KILL_FLAGS = new Set(['-a', '--all', '-p', '--pid', '-r', '--require-handler', '--verbose']);

/** kill's signal and its pids: `-s SIG`, `--signal SIG`, `-SIG` (before any other), and the options above; a later `-N` is a process group. */
function killOptions(words: readonly string[]): { signal: string | null; pids: readonly string[] } {
  let signal: string | null = null;
  let i = 0;
  for (; i < words.length; i++) {
    const w = words[i]!;
    if (w === '--') { i++; break; }
    if (!w.startsWith('-') || w === '-') break;
    if (w === '-s' || w === '-n' || w === '--signal') { signal = words[++i] ?? ''; continue; }
    if (w.startsWith('--signal=')) { signal = w.slice('--signal='.length); continue; }
    if (KILL_VALUES[w] !== undefined) { i += KILL_VALUES[w]!; continue; }
    if (KILL_FLAGS.has(w)) continue;
    // `kill -9 -1`: once the signal is known, a negative number is the process group it goes to
    if (signal !== null && /^-\d+$/.test(w)) break;
    signal = w.slice(1);
  }
  return { signal, pids: words.slice(i) };
}
