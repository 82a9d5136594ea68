import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import type { Logger } from '../log/logger.ts';
import { holdStartLockSync, OWNER_FILE, SERVER_LOG, withStartLock } from './embedded-files.ts';
import { watchServerLog } from './embedded-log.ts';
import type { Postmaster } from './embedded-postmaster.ts';
import { ownConnectionPorts } from './own-sockets.ts';
import { processStart } from '../util/process-identity.ts';

export const EMBEDDED_USER = 'postgres';
export const EMBEDDED_HOST = '127.0.0.1';

/** How long a clean stop of the server may take before it is killed. */
const STOP_TIMEOUT_MS = 20_000;
/** How long a caller may wait for stop(): the server's own stop, then its kill, and the looks before them. */
export const EMBEDDED_STOP_LIMIT_MS = STOP_TIMEOUT_MS + 10_000;

/** Signals that end a command by default: a command without its own handler still stops the server it answers for. */
const ENDING_SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;

/** How stop() left the server. */
export interface ServerStop {
  /** The server exited, but not cleanly (a PANIC at its shutdown checkpoint, killed): what happened and where its log is; null otherwise. */
  readonly abnormal: string | null;
}

export interface ServerHandle {
  /** Settles, with what happened, if the server exits without being stopped (a crash, kill -9). */
  readonly lost: Promise<string>;
  /** Stops the server, or leaves it to another process; lastStopOf() says how. */
  stop(): Promise<void>;
  /** stop(), for a caller that holds the start lock already (a start that failed half-way). */
  stopHeld(): Promise<void>;
}

/** How the latest stop() in this process left the server of each data directory. */
const lastStops = new Map<string, ServerStop>();

/**
 * How the latest stop() in this process left the server of `dataDir` (undefined before one): the daemon's exit
 * status says when it did not shut down cleanly, which the stop's callers (the CLI's commands too) need not handle.
 */
export function lastStopOf(dataDir: string): ServerStop | undefined {
  return lastStops.get(path.resolve(dataDir));
}

/** A postmaster that shut down cleanly exits 0; one watched by pid only (taken over) says no more than that it is gone. */
const cleanExit = (how: string): boolean => how === 'code 0' || how === 'it is gone';

/** How a process came to answer for the server: started it, took it over (a daemon), or joined a live owner (a command). */
export type OwnerHow = 'started' | 'took-over' | 'joined';
/** A daemon stays; a command ends soon, and stops the server then if it is the last owner. */
export type OwnerRole = 'daemon' | 'command';

interface HandleOptions {
  readonly dataDir: string;
  readonly password: string;
  readonly port: number;
  readonly logger: Logger;
  readonly how: OwnerHow;
  readonly role: OwnerRole;
}

interface Owner {
  readonly pid: number;
  readonly started: string;
  readonly role: OwnerRole | null;
  readonly how: OwnerHow | null;
}

/**
 * The processes that answer for the server: the one that started it, a daemon that took it over, and commands that
 * use it beside a live owner. Each line is a pid and its start time (so a recycled pid is not taken for its owner),
 * then its role and how it came to answer (absent in files of older builds).
 */
function owners(dataDir: string): Owner[] {
  let text: string;
  try {
    text = readFileSync(path.join(dataDir, OWNER_FILE), 'utf8');
  } catch {
    return [];
  }
  return text.split('\n').flatMap((line) => {
    const [pid, started, role, how] = line.trim().split(/\s+/);
    if (!pid || !started || !(Number(pid) > 0)) return [];
    return [{ pid: Number(pid), started, role: role === 'daemon' || role === 'command' ? role : null, how: how === 'started' || how === 'took-over' || how === 'joined' ? how : null }];
  });
}

function writeOwners(dataDir: string, list: readonly Owner[]): void {
  const lines = list.map((o) => [o.pid, o.started, ...(o.role ? [o.role, o.how ?? 'joined'] : [])].join(' '));
  writeFileSync(path.join(dataDir, OWNER_FILE), lines.length ? `${lines.join('\n')}\n` : '', { mode: 0o600 });
}

/** The other processes answering for the server that still run (the same pid and start time). */
function liveOthers(dataDir: string): Owner[] {
  return owners(dataDir).filter((o) => o.pid !== process.pid && processStart(o.pid) === o.started);
}

/** Adds this process to those answering for the server (`fresh`: a server it just started, so only it); the gone are dropped. */
export function recordOwner(dataDir: string, opts: { fresh?: boolean; role: OwnerRole; how: OwnerHow }): void {
  const live = opts.fresh ? [] : liveOthers(dataDir);
  writeOwners(dataDir, [...live, { pid: process.pid, started: processStart(process.pid) ?? '0', role: opts.role, how: opts.how }]);
}

/** Another live process answers for the server: its pid; null when only this one does, or nobody (they died). */
export function ownerElsewhere(dataDir: string): number | null {
  return liveOthers(dataDir)[0]?.pid ?? null;
}

/** This process no longer answers for the server: the others that still run, who now do (call it under the start lock). */
function leaveOwners(dataDir: string): Owner[] {
  const others = liveOthers(dataDir);
  try {
    writeOwners(dataDir, others);
  } catch { /* a data dir gone read-only: the others are still the owners */ }
  return others;
}

/** Who the server is left to: a daemon if one answers for it (it stays longest), else the newest command. */
function heir(others: readonly Owner[]): Owner {
  return others.find((o) => o.role === 'daemon') ?? others[others.length - 1]!;
}

const describeOwner = (o: Owner): string => `${o.role === 'daemon' ? 'echo-agent daemon' : o.role === 'command' ? 'echo-agent command' : 'echo-agent process'} (pid ${o.pid})`;

/** How long a process on its way out ('exit') waits for the start lock before deciding without it. */
const EXIT_LOCK_WAIT_MS = 3_000;

/**
 * Watching and stopping a server this process answers for: `lost` settles if it goes unasked; stop() leaves it up
 * while another owner still runs, or another process is connected to it.
 * Rule embedded.last_out_stops: each owner leaves under the start lock (removes itself from pg-owner, then stops the
 * server if no owner is left), so of owners leaving at once exactly the last stops it, and a new user cannot join
 * between that decision and the stop.
 */
export function serverHandle(server: Postmaster, o: HandleOptions): ServerHandle {
  const { logger } = o;
  // set once this process lets the server go (signals it, or leaves it to another): an exit before that is unexpected,
  // also while stop() is still looking (a lost connection can start the stop before the server's exit is heard)
  let letGo = false;
  const lost = new Promise<string>((resolve) => {
    void server.exited.then((how) => { if (!letGo) resolve(`the embedded PostgreSQL server (pid ${server.pid}) exited unexpectedly (${how})`); });
  });
  // a process that exits without stopping it (a crash, process.exit) leaves as stop() does, and asks for a fast shutdown if it was the last
  const lastChance = () => {
    const release = holdStartLockSync(o.dataDir, EXIT_LOCK_WAIT_MS);
    try {
      if (leaveOwners(o.dataDir).length === 0) server.signal('SIGINT');
    } finally {
      release();
    }
  };
  process.once('exit', lastChance);
  // the server no longer shares the terminal's process group: a Ctrl-C that would end this command must stop it here
  const onSignal = (sig: NodeJS.Signals) => {
    if (process.listenerCount(sig) > 1) return; // the daemon or the command handles it, and stops the server in turn
    for (const s of ENDING_SIGNALS) process.removeListener(s, onSignal);
    void stopOnce().finally(() => process.kill(process.pid, sig));
  };
  for (const s of ENDING_SIGNALS) process.on(s, onSignal);
  const logFile = path.join(o.dataDir, SERVER_LOG);
  const unwatchLog = watchServerLog(logFile, logger);
  // its exit status, once it has gone: an abnormal shutdown (a full disk at the shutdown checkpoint) must not read as a clean stop.
  // `said`: an exit before the stop was asked, which `lost` has reported already
  const outcome = async (said = false): Promise<ServerStop> => {
    const how = await server.exited;
    if (cleanExit(how)) {
      if (!said) logger.info('embedded PostgreSQL stopped');
      return { abnormal: null };
    }
    const abnormal = `the embedded PostgreSQL (pid ${server.pid}) did not shut down cleanly (${how}); crash recovery runs at its next start; see ${logFile}`;
    if (!said) logger.error({ pid: server.pid, exit: how, log: logFile }, abnormal);
    return { abnormal };
  };
  // the decision, under the start lock (the caller's, or taken here)
  const stopAndSay = async (): Promise<ServerStop> => {
    process.removeListener('exit', lastChance);
    for (const s of ENDING_SIGNALS) process.removeListener(s, onSignal);
    unwatchLog();
    const others = leaveOwners(o.dataDir);
    if (server.isGone()) return outcome(true);
    if (others.length > 0) {
      letGo = true;
      const next = heir(others);
      const fields = { owner_pid: next.pid, now_owned_by: describeOwner(next), rule: 'embedded.last_out_stops' };
      // a command that only joined leaves the server to its owners as it found it: routine, not worth a line
      if (o.how === 'joined' && o.role === 'command') logger.debug(fields, 'embedded PostgreSQL left running for its owner');
      else if (next.how === 'joined') logger.warn(fields, `embedded PostgreSQL left running: ${describeOwner(next)} still uses it, now owns it, and stops it when it ends unless another process still uses it`);
      else logger.warn(fields, 'embedded PostgreSQL left running: another process that answers for it (the one that started it, or a daemon that took it over) still runs');
      return { abnormal: null };
    }
    // another process (a daemon that started meanwhile and found this server running) still uses it: leave it up
    // a pool closed just now may still show for a moment: look a few times before deciding
    let clients = 0;
    let own = 0;
    for (let i = 0; i < 10; i++) {
      ({ others: clients, own } = await otherClients(o.password, o.port).catch(() => ({ others: 0, own: 0 })));
      if (clients === 0) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    if (own > 0) logger.info({ connections: own }, 'this process still holds connections to the embedded PostgreSQL that a library left open; they do not keep it running');
    if (clients > 0) {
      letGo = true;
      logger.warn({ connections: clients, pid: server.pid, rule: 'embedded.last_out_stops' },
        `embedded PostgreSQL left running: another process is connected to it that does not answer for it (not an echo-agent daemon or command of this build), so nobody owns it now: the next echo-agent daemon takes it over, or stop it with kill -INT ${server.pid}`);
      return { abnormal: null };
    }
    // it may have exited while we looked (killed by someone else)
    if (!server.isGone()) {
      letGo = true;
      server.signal('SIGINT'); // PostgreSQL's fast shutdown
      // a timer that holds the event loop: the server's watch alone does not
      const clean = await new Promise<boolean>((resolve) => {
        const timer = setTimeout(() => resolve(false), STOP_TIMEOUT_MS);
        void server.exited.then(() => { clearTimeout(timer); resolve(true); });
      });
      if (!clean) {
        logger.warn({ pid: server.pid, timeout_ms: STOP_TIMEOUT_MS }, 'embedded PostgreSQL did not stop in time; killing it');
        server.signal('SIGKILL');
      }
    }
    return outcome();
  };
  const stop = async (held: boolean): Promise<void> => {
    // an earlier stop's outcome is no answer about this one, which may not end in its caller's time
    lastStops.delete(path.resolve(o.dataDir));
    lastStops.set(path.resolve(o.dataDir), await (held ? stopAndSay() : underStartLock(o.dataDir, logger, stopAndSay)));
  };
  let stopped: Promise<void> | undefined;
  const stopOnce = () => (stopped ??= stop(false));
  return { lost, stop: stopOnce, stopHeld: () => (stopped ??= stop(true)) };
}

/** `fn` under the start lock; if the lock cannot be had (held too long, a read-only data dir), without it, as before the lock. */
async function underStartLock<T>(dataDir: string, logger: Logger, fn: () => Promise<T>): Promise<T> {
  let ran = false;
  try {
    return await withStartLock(dataDir, logger, () => {
      ran = true;
      return fn();
    });
  } catch (err) {
    if (ran) throw err;
    logger.warn({ err, data_dir: dataDir }, 'could not take the embedded PostgreSQL start lock to stop the server; deciding without it');
    return fn();
  }
}

/** Client connections to the server from other processes (this process's own, a library's leftover, do not count). */
async function otherClients(password: string, port: number): Promise<{ others: number; own: number }> {
  const own = await ownConnectionPorts(port);
  const client = new pg.Client({ host: EMBEDDED_HOST, port, user: EMBEDDED_USER, password, database: 'postgres' });
  // a server shutting down drops the connection: the query fails, and must not also crash the process
  client.on('error', () => {});
  await client.connect();
  try {
    const res = await client.query<{ port: number | null }>(
      "select client_port as port from pg_stat_activity where backend_type = 'client backend' and pid <> pg_backend_pid()");
    const others = res.rows.filter((r) => r.port === null || !own?.has(r.port)).length;
    return { others, own: res.rows.length - others };
  } finally {
    await client.end();
  }
}
