import { Writable } from 'node:stream';
import { createLogger } from '../../src/log/logger.ts';

/** A logger at `level` whose JSON lines are kept, parsed, in `lines`: what a test reads the daemon's log from. */
export function capturedLog(level = 'info'): { lines: Record<string, unknown>[]; logger: ReturnType<typeof createLogger> } {
  const lines: Record<string, unknown>[] = [];
  const stream = new Writable({ write(chunk, _enc, done) { lines.push(JSON.parse(String(chunk))); done(); } });
  return { lines, logger: createLogger(level, stream) };
}
