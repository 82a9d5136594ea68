import { spawn } from 'node:child_process';

/** Between SIGTERM and SIGKILL to a process group. */
export const KILL_GRACE_MS = 500;
/** After the leader exited or was killed, how long to wait for its pipes before giving up on them. */
const PIPE_BACKSTOP_MS = 1_000;

const ENV_KEYS = ['HOME', 'LANG', 'TZ', 'TMPDIR'] as const;
const DEFAULT_PATH = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';

/** The only environment children get: the daemon's own may hold credentials. */
export function minimalEnv(): Record<string, string> {
  const env: Record<string, string> = { PATH: process.env.PATH || DEFAULT_PATH };
  for (const key of ENV_KEYS) {
    const v = process.env[key];
    if (v) env[key] = v;
  }
  return env;
}

/** Sends a signal (0: only look) to a whole process group; false when the group is gone. */
export function signalGroup(pid: number, signal: NodeJS.Signals | 0): boolean {
  try {
    process.kill(-pid, signal);
    return true;
  } catch {
    return false;
  }
}

/** SIGTERM the group, SIGKILL it after the grace; resolves once SIGKILL was sent (or nothing was left). */
export function killGroup(pid: number, graceMs = KILL_GRACE_MS): Promise<void> {
  if (!signalGroup(pid, 'SIGTERM')) return Promise.resolve();
  return new Promise((resolve) => setTimeout(() => {
    signalGroup(pid, 'SIGKILL');
    resolve();
  }, graceMs));
}

/** Keeps the first `max` bytes of a stream and notes whether more came. */
export class CappedOutput {
  private readonly chunks: Buffer[] = [];
  private size = 0;
  truncated = false;

  constructor(private readonly max: number) {}

  push(chunk: Buffer): void {
    const room = this.max - this.size;
    if (chunk.length > room) this.truncated = true;
    if (room <= 0) return;
    const kept = chunk.length > room ? chunk.subarray(0, room) : chunk;
    this.chunks.push(kept);
    this.size += kept.length;
  }

  text(): string {
    return Buffer.concat(this.chunks).toString('utf8');
  }
}

export interface RunSpec {
  readonly file: string;
  readonly args: readonly string[];
  readonly cwd: string;
  readonly timeoutMs: number;
  readonly maxOutputBytes: number;
  readonly signal: AbortSignal;
  readonly graceMs?: number;
}

export interface RunOutcome {
  readonly exit_code: number | null;
  readonly signal: string | null;
  readonly stdout: string;
  readonly stderr: string;
  readonly truncated: { readonly stdout: boolean; readonly stderr: boolean };
  readonly duration_ms: number;
  /** The deadline it ran under. */
  readonly deadline_ms: number;
  /** Why we stopped it, if we did. */
  readonly stopped: 'timeout' | 'aborted' | null;
  /** The spawn itself failed (ENOENT, EACCES…). */
  readonly spawnError: NodeJS.ErrnoException | null;
}

/**
 * Runs one program in its own process group with a deadline, a cancel signal
 * and capped output. Whatever is left of the group when it ends is killed:
 * exec is for commands that finish; `process` is for background ones.
 */
export function runLimited(spec: RunSpec): Promise<RunOutcome> {
  const started = Date.now();
  const grace = spec.graceMs ?? KILL_GRACE_MS;
  const stdout = new CappedOutput(spec.maxOutputBytes);
  const stderr = new CappedOutput(spec.maxOutputBytes);
  const child = spawn(spec.file, [...spec.args], {
    cwd: spec.cwd, env: minimalEnv(), detached: true, stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout.on('data', (c: Buffer) => stdout.push(c));
  child.stderr.on('data', (c: Buffer) => stderr.push(c));

  return new Promise((resolve) => {
    let stopped: RunOutcome['stopped'] = null;
    let exit: { code: number | null; signal: string | null } | null = null;
    let reaping: Promise<void> | null = null;
    let finished = false;
    let backstop: NodeJS.Timeout | undefined;
    const reap = () => (reaping ??= child.pid ? killGroup(child.pid, grace) : Promise.resolve());

    const finish = async (spawnError: NodeJS.ErrnoException | null) => {
      if (finished) return;
      finished = true;
      clearTimeout(timer);
      clearTimeout(backstop);
      spec.signal.removeEventListener('abort', onAbort);
      // a stopped run answers only once its group had its SIGKILL
      if (stopped) await reap();
      resolve({
        exit_code: exit?.code ?? null,
        signal: exit?.signal ?? null,
        stdout: stdout.text(),
        stderr: stderr.text(),
        truncated: { stdout: stdout.truncated, stderr: stderr.truncated },
        duration_ms: Date.now() - started,
        deadline_ms: spec.timeoutMs,
        stopped,
        spawnError,
      });
    };
    const stop = (why: 'timeout' | 'aborted') => {
      if (stopped || exit || finished) return;
      stopped = why;
      void reap();
      backstop = setTimeout(() => {
        // something left the group but kept our pipes: stop waiting for it
        child.stdout.destroy();
        child.stderr.destroy();
        void finish(null);
      }, grace + PIPE_BACKSTOP_MS);
    };
    const onAbort = () => stop('aborted');
    const timer = setTimeout(() => stop('timeout'), spec.timeoutMs);

    child.once('error', (err) => void finish(err as NodeJS.ErrnoException));
    child.once('exit', (code, signal) => {
      exit = { code, signal };
      // background children of the command: the group dies with its leader
      void reap();
      clearTimeout(backstop);
      backstop = setTimeout(() => {
        child.stdout.destroy();
        child.stderr.destroy();
        void finish(null);
      }, grace + PIPE_BACKSTOP_MS);
    });
    child.once('close', () => void finish(null));
    if (spec.signal.aborted) stop('aborted');
    else spec.signal.addEventListener('abort', onAbort, { once: true });
  });
}
