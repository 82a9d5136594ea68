import { readFileSync, readlinkSync } from 'node:fs';
import { hostname, userInfo } from 'node:os';

/** The OS account this process runs as; `uid:N` when it has no name (a container's arbitrary uid). */
export function osAccount(): string {
  try {
    return userInfo().username;
  } catch {
    return `uid:${process.getuid?.() ?? 'unknown'}`;
  }
}

let identity: { readonly os_account: string; readonly host: string } | undefined;

/** Who really acted, beside the names a caller gives (`--as`, a channel's user id), which are only claims; read once per process. */
export function processIdentity(): { readonly os_account: string; readonly host: string } {
  identity ??= Object.freeze({ os_account: osAccount(), host: hostname() });
  return identity;
}

/** A process as the kernel knows it: its pid and start time (a recycled pid starts later). */
export interface ProcessRef {
  readonly pid: number;
  readonly started: string;
}

/** /proc/<pid>/stat after the command name, which may hold spaces and parentheses; null when gone or unreadable. */
function statFields(pid: number): string[] | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  } catch {
    return null;
  }
}

/** When the process started, from /proc (clock ticks since boot); null when it is gone or unreadable. */
export function processStart(pid: number): string | null {
  return statFields(pid)?.[19] ?? null;
}

/** This process, or null where /proc is not there. */
export function thisProcess(): ProcessRef | null {
  const started = processStart(process.pid);
  return started === null ? null : { pid: process.pid, started };
}

/** The processes this one descends from, its parent first, up to (not including) init; empty without /proc. */
export function ancestors(): ProcessRef[] {
  const out: ProcessRef[] = [];
  let pid = process.ppid;
  while (pid > 1 && out.length < 64) {
    const fields = statFields(pid);
    if (!fields?.[19]) break;
    out.push({ pid, started: fields[19] });
    pid = Number(fields[1]);
  }
  return out;
}

let space: { readonly boot_id: string; readonly pid_ns: string } | null | undefined;

/**
 * The pid space this process lives in: the running kernel (boot id) and its pid namespace. Two
 * processes see each other's pids only when both match; null without /proc.
 */
export function pidSpace(): { readonly boot_id: string; readonly pid_ns: string } | null {
  if (space === undefined) {
    try {
      space = Object.freeze({ boot_id: readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim(), pid_ns: readlinkSync('/proc/self/ns/pid') });
    } catch {
      space = null;
    }
  }
  return space;
}

/**
 * Whether a process recorded in this pid space has surely ended: its pid is free, or now belongs to a
 * later process. A /proc that hides other accounts' processes (hidepid) says nothing: not ended.
 */
export function hasEnded(p: ProcessRef): boolean {
  const started = processStart(p.pid);
  if (started !== null) return started !== p.started;
  try {
    process.kill(p.pid, 0);
    return false; // there, only not readable
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'ESRCH';
  }
}
