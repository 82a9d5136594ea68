import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { newId } from '../store/ids.ts';
import { redactText } from '../util/redact.ts';
import { KILL_GRACE_MS, killGroup, minimalEnv, signalGroup } from './spawn-limits.ts';

export const SIGNALS = ['TERM', 'KILL', 'INT', 'HUP', 'USR1', 'USR2', 'STOP', 'CONT'] as const;
export type SignalName = (typeof SIGNALS)[number];

/** `TERM`, `sigterm`, `SIGTERM` → `TERM`; null when not on the allow-list. */
export function signalName(input: string): SignalName | null {
  const name = input.trim().toUpperCase().replace(/^SIG/, '');
  return (SIGNALS as readonly string[]).includes(name) ? (name as SignalName) : null;
}

/** A user-facing refusal from the table (unknown id, limit reached, not running). */
export class ProcessError extends Error {}

/** The newest `size` bytes of a stream, addressed by absolute byte offsets. */
export class OutputRing {
  private chunks: Buffer[] = [];
  private held = 0;
  /** Bytes ever written: the offset just past the newest byte. */
  private end = 0;

  constructor(private readonly size: number) {}

  push(chunk: Buffer): void {
    this.end += chunk.length;
    if (chunk.length >= this.size) {
      this.chunks = [chunk.subarray(chunk.length - this.size)];
      this.held = this.size;
      return;
    }
    this.chunks.push(chunk);
    this.held += chunk.length;
    while (this.held > this.size) {
      const first = this.chunks[0]!;
      const excess = this.held - this.size;
      if (first.length <= excess) {
        this.chunks.shift();
        this.held -= first.length;
      } else {
        this.chunks[0] = first.subarray(excess);
        this.held -= excess;
      }
    }
  }

  /** What is held from `offset` on; `dropped` counts bytes asked for that the ring no longer has. */
  read(offset: number): { data: Buffer; from: number; next_offset: number; dropped: number } {
    const start = this.end - this.held;
    const from = Math.min(Math.max(offset, start), this.end);
    const data = Buffer.concat(this.chunks).subarray(from - start);
    return { data, from, next_offset: this.end, dropped: Math.max(0, Math.min(start, this.end) - offset) };
  }
}

export interface ProcessInfo {
  readonly id: string;
  readonly command: string;
  readonly pid: number;
  readonly running: boolean;
  /** What it started still runs in its group after it exited (`sleep 99 &`): it counts against the limit and can be signalled. */
  readonly group_running: boolean;
  readonly exit_code: number | null;
  readonly signal: string | null;
  readonly started_at: string;
}

interface Entry {
  readonly id: string;
  readonly command: string;
  readonly pid: number;
  readonly started_at: string;
  readonly child: ChildProcessWithoutNullStreams;
  /** stdout and stderr interleaved as they came, like a terminal. */
  readonly output: OutputRing;
  running: boolean;
  exit_code: number | null;
  signal: string | null;
  /** Resolves when the leader exited. */
  readonly exited: Promise<void>;
}

export interface StartSpec {
  readonly command: string;
  readonly file: string;
  readonly args: readonly string[];
  readonly cwd: string;
}

/** How often a group left behind by its leader is checked for members. */
const GROUP_SWEEP_MS = 1_000;

/** Every table with live groups, for the last-chance kill when the host exits without closeAll. */
const openTables = new Set<ProcessTable>();
let exitHook = false;

/**
 * The background processes the `process` tool started, in this host process
 * only: nothing outside the table can be signalled or read. One table per
 * daemon or session; closeAll() at shutdown.
 */
export class ProcessTable {
  private readonly entries = new Map<string, Entry>();
  /** Groups that may still have members; an empty group's id can be reused by another process group. */
  private readonly groups = new Set<number>();

  private sweep: NodeJS.Timeout | undefined;

  /** Exited entries stay readable until this many entries are held. */
  private readonly maxKept: number;

  constructor(readonly maxLive = 16, private readonly bufferBytes = 1024 * 1024) {
    this.maxKept = maxLive * 2;
  }

  /** Entries whose leader or group still runs: a shell that backgrounded work and exited still holds its place. */
  live(): number {
    let n = 0;
    for (const e of this.entries.values()) if (e.running || this.groupRunning(e)) n++;
    return n;
  }

  /** Its group has members; once seen empty it is forgotten, since an empty group's id can be reused by another. */
  private groupRunning(e: Entry): boolean {
    if (!this.groups.has(e.pid)) return false;
    if (signalGroup(e.pid, 0)) return true;
    this.groups.delete(e.pid);
    return false;
  }

  /** Spawns in its own process group with the minimal environment; rejects with ProcessError when it cannot start. */
  async start(spec: StartSpec): Promise<ProcessInfo> {
    if (this.live() >= this.maxLive) throw new ProcessError(`${this.maxLive} processes are running already (the limit); signal one to stop it first`);
    const child = spawn(spec.file, [...spec.args], { cwd: spec.cwd, env: minimalEnv(), detached: true, stdio: ['pipe', 'pipe', 'pipe'] });
    const spawned = await new Promise<NodeJS.ErrnoException | null>((resolve) => {
      child.once('spawn', () => resolve(null));
      child.once('error', (err) => resolve(err as NodeJS.ErrnoException));
    });
    if (spawned || child.pid === undefined) {
      const why = spawned?.code === 'ENOENT' ? `program ${spec.file} was not found on PATH` : `could not start ${spec.file}: ${spawned?.message ?? 'no pid'}`;
      throw new ProcessError(why);
    }
    const output = new OutputRing(this.bufferBytes);
    let markExited!: () => void;
    const entry: Entry = {
      id: newId('prc'), command: spec.command, pid: child.pid, started_at: new Date().toISOString(), child, output,
      running: true, exit_code: null, signal: null, exited: new Promise((r) => { markExited = r; }),
    };
    child.stdout.on('data', (c: Buffer) => output.push(c));
    child.stderr.on('data', (c: Buffer) => output.push(c));
    // a process that closed its stdin makes later writes fail with EPIPE: reported by write(), not thrown
    child.stdin.on('error', () => {});
    child.once('exit', (code, signal) => {
      entry.running = false;
      entry.exit_code = code;
      entry.signal = signal;
      if (!signalGroup(entry.pid, 0)) this.groups.delete(entry.pid);
      else this.watchGroups();
      markExited();
    });
    this.evictExited();
    this.entries.set(entry.id, entry);
    this.groups.add(entry.pid);
    openTables.add(this);
    installExitHook();
    return this.info(entry);
  }

  list(): ProcessInfo[] {
    return [...this.entries.values()].map((e) => this.info(e));
  }

  get(id: string): ProcessInfo | undefined {
    const e = this.entries.get(id);
    return e ? this.info(e) : undefined;
  }

  /** To the whole group, so what a shell started gets it too. */
  signal(id: string, name: SignalName): ProcessInfo {
    const e = this.entries.get(id);
    if (!e) throw unknown(id);
    if (!e.running && !this.groupRunning(e)) throw this.exited(e);
    if (!signalGroup(e.pid, `SIG${name}` as NodeJS.Signals)) throw new ProcessError(`${id} is no longer running`);
    return this.info(e);
  }

  async write(id: string, text: string, eof = false): Promise<number> {
    const e = this.running(id);
    const stdin = e.child.stdin;
    if (!stdin.writable) throw new ProcessError(`${id} has its stdin closed`);
    await new Promise<void>((resolve, reject) => {
      stdin.write(text, (err) => (err ? reject(new ProcessError(`${id} did not take the input: ${err.message}`)) : resolve()));
    });
    if (eof) stdin.end();
    return Buffer.byteLength(text);
  }

  read(id: string, offset: number): ReturnType<OutputRing['read']> & { process: ProcessInfo } {
    const e = this.entries.get(id);
    if (!e) throw unknown(id);
    return { ...e.output.read(offset), process: this.info(e) };
  }

  /** Kills every process group this table started (leaders that exited may have left children) and waits for the leaders. */
  async closeAll(graceMs = KILL_GRACE_MS): Promise<void> {
    const groups = [...this.groups];
    this.groups.clear();
    clearInterval(this.sweep);
    this.sweep = undefined;
    await Promise.all(groups.map((pgid) => killGroup(pgid, graceMs)));
    await Promise.all([...this.entries.values()].map(async (e) => {
      await Promise.race([e.exited, new Promise((r) => setTimeout(r, graceMs).unref())]);
      e.child.stdin.destroy();
    }));
    openTables.delete(this);
  }

  /** Synchronous SIGKILL of every group, for process exit. */
  killAllNow(): void {
    for (const pgid of this.groups) signalGroup(pgid, 'SIGKILL');
  }

  private running(id: string): Entry {
    const e = this.entries.get(id);
    if (!e) throw unknown(id);
    if (!e.running) throw this.exited(e);
    return e;
  }

  private exited(e: Entry): ProcessError {
    return new ProcessError(`${e.id} has exited (exit_code ${e.exit_code ?? 'none'}${e.signal ? `, ${e.signal}` : ''})`);
  }

  /** What callers see of a process: its command redacted (I11), as every answer shows it. */
  private info(e: Entry): ProcessInfo {
    return {
      id: e.id, command: redactText(e.command), pid: e.pid, running: e.running, group_running: !e.running && this.groupRunning(e),
      exit_code: e.exit_code, signal: e.signal, started_at: e.started_at,
    };
  }

  /** An entry whose group still runs keeps its place: evicting it would take it off the limit and out of reach. */
  private evictExited(): void {
    for (const [id, e] of this.entries) {
      if (this.entries.size < this.maxKept) return;
      if (!e.running && !this.groupRunning(e)) this.entries.delete(id);
    }
  }

  /**
   * A group left behind by its leader is looked at every second and forgotten once
   * empty, so its id is not signalled later after the kernel gave it to a stranger.
   */
  private watchGroups(): void {
    if (this.sweep) return;
    this.sweep = setInterval(() => {
      for (const e of this.entries.values()) if (!e.running) this.groupRunning(e);
      if (![...this.entries.values()].some((e) => !e.running && this.groups.has(e.pid))) {
        clearInterval(this.sweep);
        this.sweep = undefined;
      }
    }, GROUP_SWEEP_MS).unref();
  }
}

function unknown(id: string): ProcessError {
  return new ProcessError(`no process ${id} was started by this tool here`);
}


/** Detached groups outlive their parent: if the host exits without closeAll, take them along. */
function installExitHook(): void {
  if (exitHook) return;
  exitHook = true;
  process.once('exit', () => {
    for (const t of openTables) t.killAllNow();
  });
}
