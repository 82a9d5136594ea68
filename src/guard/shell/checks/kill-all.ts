import type { Emit, Invocation } from '../model.ts';
import { literal } from '../values.ts';

/**
 * pkill, pgrep and `killall -r` select processes by a regular expression: one every name and command line matches
 * (`.`, `.*`, `^`, `''`) selects every process the user may signal, like `kill -1`. So does pkill with only a user
 * given (`pkill -u root`). A kill given pgrep's or `ps -e`'s whole list (`kill $(pgrep .)`, `pgrep . | xargs kill`) too.
 */

/** Process names and command lines a pattern is tried against: matching them all, it matches every process. */
const SAMPLES: readonly string[] = ['systemd', 'init', 'sshd', 'bash', 'node', 'postgres', 'kworker/0:1', 'z', '1', 'echo-agent daemon', '/usr/sbin/cron -f'];

/** pgrep/pkill options that take a value (procps-ng), and those that leave at most one process (newest, oldest). */
const PGREP_VALUES = new Set(['-d', '-g', '-G', '-P', '-s', '-t', '-u', '-U', '-F', '--delimiter', '--pgroup', '--group', '--parent', '--session', '--terminal', '--euid', '--uid', '--pidfile', '--signal', '--ns', '--nslist', '--cgroup', '--env', '-q', '--queue', '-r', '--runstates', '--older']);
const ONE_PROCESS = new Set(['-n', '-o', '--newest', '--oldest']);
const USER_WIDE = new Set(['-u', '-U', '-G', '--euid', '--uid', '--group']);

/** Whether an ERE (as procps and psmisc compile it) matches every sample; false when it cannot be compiled. */
function matchesAll(pattern: string, flags: { exact: boolean; icase: boolean }): boolean {
  let re: RegExp;
  try {
    re = new RegExp(flags.exact ? `^(?:${pattern})$` : pattern, flags.icase ? 'i' : '');
  } catch {
    return false;
  }
  return SAMPLES.every((s) => re.test(s));
}

/** pgrep/pkill: whether its selection is every process (a pattern matching all, or a user's processes with no pattern). */
export function pgrepSelectsAll(inv: Invocation): boolean {
  const words = inv.args.map((a) => literal(a.v));
  let exact = false, icase = false, user = false;
  const operands: (string | null)[] = [];
  for (let i = 0; i < words.length; i++) {
    const w = words[i] ?? null;
    if (w === null) { operands.push(null); continue; }
    if (w === '--') { operands.push(...words.slice(i + 1)); break; }
    if (!w.startsWith('-') || w === '-') { operands.push(w); continue; }
    if (ONE_PROCESS.has(w)) return false;
    if (w === '-x' || w === '--exact') { exact = true; continue; }
    if (w === '-i' || w === '--ignore-case') { icase = true; continue; }
    const opt = w.includes('=') ? w.slice(0, w.indexOf('=')) : w;
    if (USER_WIDE.has(opt) || /^-[uUG]./.test(w)) user = true;
    if (PGREP_VALUES.has(w)) { i++; continue; }
    // clusters of flags (`-fx`, `-9`), and `-SIGNAL`
    if (/^-[a-zA-Z]+$/.test(w) && !/^-[A-Z]+$/.test(w)) {
      if (w.includes('x')) exact = true;
      if (w.includes('i')) icase = true;
      if (w.includes('n') || w.includes('o')) return false;
    }
  }
  if (operands.length === 0) return user;
  return operands.some((p) => p !== null && matchesAll(p, { exact, icase }));
}

/** killall: `-r PATTERN` (regular expressions) matching every name; names alone are exact, so `killall .` is none. */
function killallSelectsAll(inv: Invocation): boolean {
  const words = inv.args.map((a) => literal(a.v) ?? '');
  const regex = words.some((w) => w === '-r' || w === '--regexp' || /^-[a-zA-Z]*r[a-zA-Z]*$/.test(w) && !/^-[A-Z]+$/.test(w));
  if (!regex) return false;
  const icase = words.some((w) => w === '-I' || w === '--ignore-case');
  const values = new Set(['-s', '--signal', '-u', '--user', '-o', '--older-than', '-y', '--younger-than', '-n', '--ns', '-Z', '--context']);
  const operands = words.filter((w, i) => !w.startsWith('-') && !values.has(words[i - 1] ?? ''));
  return operands.some((p) => matchesAll(p, { exact: false, icase }));
}

/** `ps -e`, `ps ax`, `ps aux`, `ps -A`: every process's line. */
function listsAll(inv: Invocation): boolean {
  if (inv.program !== 'ps') return false;
  const words = inv.args.map((a) => literal(a.v) ?? '');
  // a selection by pid, command, user, group or terminal lists those only
  if (words.some((w) => /^-[a-zA-Z]*[pCuUgGtsq]$|^--(pid|ppid|user|User|group|Group|tty|sid|quick-pid)/.test(w))) return false;
  return words.some((w, i) => !/^-[oO]$|^--format$/.test(words[i - 1] ?? '') && (/^-[a-zA-Z]*[eA][a-zA-Z]*$/.test(w) || /^[a-wyzA-Z]*x[a-zA-Z]*$/.test(w)));
}
/** Stages that pass ps's or pgrep's lines on unfiltered (a field cut out, the header dropped). */
const PASSES = new Set(['cut', 'tr', 'tail', 'sort', 'uniq', 'cat']);
const awkPrintsAll = (inv: Invocation): boolean => inv.program === 'awk' && /^\s*\{/.test(literal(inv.args.find((a) => !a.v.startsWith('-'))?.v ?? '') ?? '');

/** What feeds kill its pids lists every process: pgrep selecting all, or `ps -e` with nothing filtering it on the way. */
function feedsAll(list: readonly Invocation[]): boolean {
  if (list.some((i) => i.program === 'pgrep' && pgrepSelectsAll(i))) return true;
  return list.some(listsAll) && list.every((i) => listsAll(i) || PASSES.has(i.program) || awkPrintsAll(i));
}

export function checkKillAll(inv: Invocation, emit: Emit): void {
  const p = inv.program;
  if (p === 'pkill' && pgrepSelectsAll(inv)) emit('shell.process.kill_all', inv.text);
  else if (p === 'killall' && killallSelectsAll(inv)) emit('shell.process.kill_all', inv.text);
  else if (p === 'kill') {
    const substituted = inv.args.some((a) => a.info.inner.length > 0 && feedsAll(a.info.inner));
    if (substituted || (inv.appendsArgs && inv.upstream.length > 0 && feedsAll(inv.upstream))) emit('shell.process.kill_all', inv.text);
  }
}
