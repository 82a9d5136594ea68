import { Worker } from 'node:worker_threads';

// Plain CommonJS evaluated in the worker: no loader or build step needed, whatever runs the main thread.
const WORKER_SOURCE = `
const { parentPort } = require('node:worker_threads');
let re = null;
parentPort.on('message', (m) => {
  if (m.pattern !== undefined) { re = new RegExp(m.pattern, m.flags); return; }
  const lines = m.text.split('\\n');
  const hits = [];
  for (let i = 0; i < lines.length; i++) if (re.test(lines[i])) hits.push([i, lines[i]]);
  parentPort.postMessage(hits);
});`;

/**
 * Workers whose last search ended in time, kept for the next one: starting a worker costs tens of
 * milliseconds of CPU, which a daemon running search_files in many runs paid on every call. A worker that
 * ran over its budget, failed or was cancelled is terminated instead, never reused.
 */
const idle: Worker[] = [];
const MAX_IDLE = 2;

function takeWorker(): Worker {
  const kept = idle.pop();
  if (kept) return kept;
  const worker = new Worker(WORKER_SOURCE, { eval: true, resourceLimits: { maxOldGenerationSizeMb: 64 } });
  worker.unref();
  // one that dies while idle (its memory limit, say) must not be handed out
  worker.once('exit', () => {
    const at = idle.indexOf(worker);
    if (at >= 0) idle.splice(at, 1);
  });
  return worker;
}

function giveBack(worker: Worker): Promise<void> {
  if (idle.length >= MAX_IDLE) return worker.terminate().then(() => {});
  idle.push(worker);
  return Promise.resolve();
}

export class PatternTooSlow extends Error {
  constructor(readonly budgetMs: number) {
    super(`took longer than ${budgetMs} ms on one file`);
  }
}

/**
 * A caller-supplied regular expression run off the main thread. JavaScript
 * regexes backtrack, and a pattern like `(a+)+$` can run for hours; on the
 * event loop that would stall the whole daemon (every run, lease renewal and
 * firing pass). Here a slow pattern costs one worker, terminated at the budget.
 */
export class LineMatcher {
  private worker: Worker | null = null;

  constructor(private readonly pattern: string, private readonly flags: string, private readonly budgetMs: number) {}

  /** The lines of `text` the pattern matches, as [index, line]; PatternTooSlow past the budget or on abort. */
  async matchingLines(text: string, signal?: AbortSignal): Promise<[number, string][]> {
    const worker = this.start();
    return new Promise<[number, string][]>((resolve, reject) => {
      const stop = (err: Error) => {
        cleanup();
        void this.discard();
        reject(err);
      };
      const timer = setTimeout(() => stop(new PatternTooSlow(this.budgetMs)), this.budgetMs);
      const onAbort = () => stop(signal?.reason instanceof Error ? signal.reason : new Error('cancelled'));
      const onMessage = (hits: [number, string][]) => {
        cleanup();
        resolve(hits);
      };
      const onError = (err: Error) => stop(err);
      const cleanup = () => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
        worker.off('message', onMessage);
        worker.off('error', onError);
      };
      if (signal?.aborted) return onAbort();
      signal?.addEventListener('abort', onAbort, { once: true });
      worker.on('message', onMessage);
      worker.on('error', onError);
      worker.postMessage({ text });
    });
  }

  /** Done with the pattern: its worker, idle and in good order, may serve the next one. */
  async close(): Promise<void> {
    const w = this.worker;
    this.worker = null;
    if (w) await giveBack(w);
  }

  /** A worker still busy (over budget, cancelled) or broken: never reused. */
  private async discard(): Promise<void> {
    const w = this.worker;
    this.worker = null;
    await w?.terminate();
  }

  private start(): Worker {
    if (!this.worker) {
      this.worker = takeWorker();
      this.worker.postMessage({ pattern: this.pattern, flags: this.flags });
    }
    return this.worker;
  }
}

/** How many finished workers wait for the next pattern (for tests and diagnostics). */
export const idleMatchers = (): number => idle.length;
