import { spawn, type ChildProcess } from 'node:child_process';
import { redactText } from '../util/redact.ts';

/** What a child process gets of our environment: enough to find programs, never our secrets. */
const PASSED_ENV = ['PATH', 'HOME', 'LANG', 'LC_ALL', 'TZ', 'TMPDIR', 'TERM'];

export function childEnv(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const k of PASSED_ENV) if (process.env[k] !== undefined) env[k] = process.env[k]!;
  env.PATH ??= '/usr/local/bin:/usr/bin:/bin';
  return env;
}

/** After SIGTERM, how long the group gets before SIGKILL. */
export const KILL_GRACE_MS = 2_000;

/** Signals the whole process group the child leads (it was spawned detached), then SIGKILL after the grace. */
export function killGroup(child: ChildProcess, graceMs = KILL_GRACE_MS): void {
  const pid = child.pid;
  if (pid === undefined) return;
  const send = (sig: NodeJS.Signals) => {
    try {
      process.kill(-pid, sig);
    } catch {
      // the group is gone already
    }
  };
  send('SIGTERM');
  setTimeout(() => send('SIGKILL'), graceMs).unref();
}

/** Keeps the first `limit` bytes of a stream and counts the rest. */
export class CappedBuffer {
  private readonly chunks: Buffer[] = [];
  private kept = 0;
  total = 0;
  constructor(private readonly limit: number) {}
  push(chunk: Buffer): void {
    this.total += chunk.length;
    const room = this.limit - this.kept;
    if (room <= 0) return;
    const part = chunk.length <= room ? chunk : chunk.subarray(0, room);
    this.chunks.push(part);
    this.kept += part.length;
  }
  get truncated(): boolean {
    return this.total > this.kept;
  }
  text(): string {
    return redactText(Buffer.concat(this.chunks).toString('utf8'));
  }
}

export interface RunSpec {
  readonly argv: readonly string[];
  readonly cwd: string;
  readonly timeoutMs: number;
  readonly maxOutputBytes: number;
  readonly signal: AbortSignal;
  readonly stdin?: string;
}

export interface RunOutcome {
  readonly exit_code: number | null;
  readonly signal: string | null;
  readonly stdout: string;
  readonly stderr: string;
  readonly truncated: { readonly stdout: boolean; readonly stderr: boolean };
  readonly duration_ms: number;
  /** Why we stopped it, if we did. */
  readonly stopped: 'timeout' | 'cancelled' | null;
  /** The program could not be started (ENOENT, EACCES). */
  readonly spawnError: NodeJS.ErrnoException | null;
}

/**
 * Runs argv without a shell in its own process group; a timeout or the
 * caller's signal kills the whole group, so nothing it started lingers.
 */
export function runProcess(spec: RunSpec): Promise<RunOutcome> {
  const started = Date.now();
  return new Promise((resolve) => {
    const [program, ...args] = spec.argv;
    const child = spawn(program!, args, { cwd: spec.cwd, env: childEnv(), detached: true, stdio: ['pipe', 'pipe', 'pipe'] });
    const out = new CappedBuffer(spec.maxOutputBytes);
    const err = new CappedBuffer(spec.maxOutputBytes);
    let stopped: RunOutcome['stopped'] = null;
    let spawnError: NodeJS.ErrnoException | null = null;
    const stop = (why: 'timeout' | 'cancelled') => {
      if (stopped) return;
      stopped = why;
      killGroup(child);
    };
    const timer = setTimeout(() => stop('timeout'), spec.timeoutMs);
    const onAbort = () => stop(spec.signal.reason instanceof Error && spec.signal.reason.message === 'timeout' ? 'timeout' : 'cancelled');
    if (spec.signal.aborted) onAbort();
    else spec.signal.addEventListener('abort', onAbort, { once: true });
    child.stdout!.on('data', (c: Buffer) => out.push(c));
    child.stderr!.on('data', (c: Buffer) => err.push(c));
    child.stdin!.on('error', () => {});
    child.stdin!.end(spec.stdin ?? '');
    child.on('error', (e: NodeJS.ErrnoException) => {
      spawnError = e;
    });
    child.on('close', (code, sig) => {
      clearTimeout(timer);
      spec.signal.removeEventListener('abort', onAbort);
      resolve({
        exit_code: code, signal: sig, stdout: out.text(), stderr: err.text(),
        truncated: { stdout: out.truncated, stderr: err.truncated }, duration_ms: Date.now() - started, stopped, spawnError,
      });
    });
  });
}
