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
        void this.close();
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

  async close(): Promise<void> {
    const w = this.worker;
    this.worker = null;
    await w?.terminate();
  }

  private start(): Worker {
    if (!this.worker) {
      this.worker = new Worker(WORKER_SOURCE, { eval: true, resourceLimits: { maxOldGenerationSizeMb: 64 } });
      this.worker.unref();
      this.worker.postMessage({ pattern: this.pattern, flags: this.flags });
    }
    return this.worker;
  }
}
