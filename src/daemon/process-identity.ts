import { pidSpace, processStart } from '../util/process-identity.ts';

/**
 * Which process holds a run's lease, told apart beyond its pid. A host name and pid alone are not enough to
 * call a holder dead: containers share host names, and a pid is only meaningful in its own PID namespace.
 * The kernel's boot id and the PID namespace's inode name one namespace among all live ones, and the
 * process's start time (in clock ticks since boot) tells a reused pid from the holder.
 */
export interface ProcessIdentity {
  readonly pid: number;
  /** The first 12 hex digits of /proc/sys/kernel/random/boot_id. */
  readonly boot: string;
  /** The inode of /proc/self/ns/pid. */
  readonly pidNamespace: string;
  /** Field 22 of /proc/<pid>/stat. */
  readonly startTicks: string;
}

/** How this host's processes are seen; injected so the judgement is testable without killing anything. */
export interface ProcessProbe {
  /** false only when no such process exists (ESRCH); a process of another user counts as running. */
  isRunning(pid: number): boolean;
  /** null when it cannot be read (gone, or hidden by hidepid). */
  startTicks(pid: number): string | null;
}

const WORKER_ID = /^(.*):(\d+)@([0-9a-f]{12})\.(\d+)\.(\d+)$/;

/** `<host>:<pid>@<boot>.<pid namespace>.<start ticks>`; `<host>:<pid>` where the system does not tell the rest. */
export function workerIdOf(host: string, self: ProcessIdentity | null, pid = process.pid): string {
  return self ? `${host}:${self.pid}@${self.boot}.${self.pidNamespace}.${self.startTicks}` : `${host}:${pid}`;
}

/** The identity a worker id was made from, or null for ids made otherwise (older daemons, tests, other systems). */
export function identityInWorkerId(id: string): ProcessIdentity | null {
  const m = WORKER_ID.exec(id);
  return m ? { pid: Number(m[2]), boot: m[3]!, pidNamespace: m[4]!, startTicks: m[5]! } : null;
}

/** What every worker id made on this kernel, in this PID namespace, holds: the reconciler's filter. */
export function namespaceMark(self: ProcessIdentity): string {
  return `@${self.boot}.${self.pidNamespace}.`;
}

/**
 * Whether the lease holder named by `owner` is known to have died. Only a holder in this very PID
 * namespace of this boot can be judged; any other answers false, and its lease decides as before.
 */
export function holderIsGone(owner: string, self: ProcessIdentity, probe: ProcessProbe): boolean {
  const holder = identityInWorkerId(owner);
  if (!holder || holder.boot !== self.boot || holder.pidNamespace !== self.pidNamespace) return false;
  if (holder.pid === self.pid && holder.startTicks === self.startTicks) return false;
  if (!probe.isRunning(holder.pid)) return true;
  const ticks = probe.startTicks(holder.pid);
  // the pid was given to a later process; one that cannot be read is taken for the holder
  return ticks !== null && ticks !== holder.startTicks;
}

/** This process's identity; null where /proc does not tell it (not Linux, /proc not mounted, or /proc/sys hidden). */
export function currentProcessIdentity(): ProcessIdentity | null {
  const space = pidSpace();
  const boot = space?.boot_id.replaceAll('-', '').slice(0, 12) ?? '';
  const ns = space ? /^pid:\[(\d+)\]$/.exec(space.pid_ns)?.[1] : undefined;
  const startTicks = processStart(process.pid);
  if (!/^[0-9a-f]{12}$/.test(boot) || !ns || !startTicks || !/^\d+$/.test(startTicks)) return null;
  return { pid: process.pid, boot, pidNamespace: ns, startTicks };
}

export const hostProcesses: ProcessProbe = {
  isRunning(pid) {
    try {
      process.kill(pid, 0);
      return true;
    } catch (err) {
      return (err as NodeJS.ErrnoException).code !== 'ESRCH';
    }
  },
  startTicks: processStart,
};
