import { spawn, type ChildProcess } from 'node:child_process';
import { newId } from '../store/ids.ts';
import { redactText } from '../util/redact.ts';
import { childEnv, killGroup } from './process-runner.ts';

/** Output kept per process: the newest bytes, addressed by absolute offsets. */
class OutputRing {
  private buf = Buffer.alloc(0);
  /** Absolute offset of buf[0]. */
  private start = 0;
  constructor(private readonly limit: number) {}
  push(chunk: Buffer): void {
    this.buf = Buffer.concat([this.buf, chunk]);
    if (this.buf.length > this.limit) {
      const drop = this.buf.length - this.limit;
      this.buf = this.buf.subarray(drop);
      this.start += drop;
    }
  }
  read(offset: number): { text: string; next_offset: number; lost: number } {
    const from = Math.max(offset, this.start);
    return { text: redactText(this.buf.subarray(from - this.start).toString('utf8')), next_offset: this.start + this.buf.length, lost: from - offset };
  }
}

export interface ManagedProcess {
  readonly id: string;
  readonly command: string;
  readonly pid: number | undefined;
  readonly started_at: Date;
  running: boolean;
  exit_code: number | null;
  exit_signal: string | null;
}

interface Entry extends ManagedProcess {
  readonly child: ChildProcess;
  readonly output: OutputRing;
}

export const SIGNALS = ['TERM', 'KILL', 'INT', 'HUP', 'USR1', 'USR2', 'STOP', 'CONT'] as const;
export type SignalName = (typeof SIGNALS)[number];

/**
 * Background processes the `process` tool started, in this process only:
 * nobody can signal or read a process it did not start. closeAll() at shutdown.
 */
export class ProcessTable {
  private readonly entries = new Map<string, Entry>();

  constructor(readonly maxLive = 16, private readonly maxOutputBytes = 1024 * 1024) {}

  live(): number {
    return [...this.entries.values()].filter((e) => e.running).length;
  }

  start(argv: readonly string[], command: string, cwd: string): ManagedProcess {
    const [program, ...args] = argv;
    const child = spawn(program!, args, { cwd, env: childEnv(), detached: true, stdio: ['pipe', 'pipe', 'pipe'] });
    const entry: Entry = {
      id: newId('prc'), command, pid: child.pid, started_at: new Date(), running: true, exit_code: null, exit_signal: null,
      child, output: new OutputRing(this.maxOutputBytes),
    };
    child.stdout!.on('data', (c: Buffer) => entry.output.push(c));
    child.stderr!.on('data', (c: Buffer) => entry.output.push(c));
    child.stdin!.on('error', () => {});
    child.on('error', (e) => {
      entry.output.push(Buffer.from(`[cannot start: ${e.message}]\n`));
      entry.running = false;
    });
    child.on('exit', (code, sig) => {
      entry.running = false;
      entry.exit_code = code;
      entry.exit_signal = sig;
    });
    this.entries.set(entry.id, entry);
    return entry;
  }

  list(): ManagedProcess[] {
    return [...this.entries.values()].map(({ id, command, pid, started_at, running, exit_code, exit_signal }) => ({ id, command, pid, started_at, running, exit_code, exit_signal }));
  }

  get(id: string): ManagedProcess | undefined {
    return this.entries.get(id);
  }

  /** To the whole group, so a shell's children get it too. */
  signal(id: string, sig: SignalName): boolean {
    const e = this.entries.get(id);
    if (!e || !e.running || e.pid === undefined) return false;
    try {
      process.kill(-e.pid, `SIG${sig}` as NodeJS.Signals);
      return true;
    } catch {
      return false;
    }
  }

  write(id: string, input: string): boolean {
    const e = this.entries.get(id);
    if (!e || !e.running || !e.child.stdin!.writable) return false;
    e.child.stdin!.write(input);
    return true;
  }

  read(id: string, offset: number) {
    return this.entries.get(id)?.output.read(offset);
  }

  /** Kills every process group still running; waits briefly for them to go. */
  async closeAll(): Promise<void> {
    const running = [...this.entries.values()].filter((e) => e.running);
    for (const e of running) killGroup(e.child, 500);
    await Promise.all(running.map((e) => new Promise<void>((resolve) => {
      if (!e.running) return resolve();
      const t = setTimeout(resolve, 2_000);
      e.child.once('exit', () => {
        clearTimeout(t);
        resolve();
      });
    })));
  }
}
