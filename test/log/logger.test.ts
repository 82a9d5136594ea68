import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createLogger } from '../../src/log/logger.ts';

function capture() {
  const lines: Record<string, unknown>[] = [];
  const stream = new Writable({ write(chunk, _enc, cb) { for (const l of String(chunk).split('\n').filter(Boolean)) lines.push(JSON.parse(l)); cb(); } });
  return { logger: createLogger('debug', stream), lines };
}

describe('log lines of errors', () => {
  it('keep what the error says (type, message, code, cause), with credentials redacted (I11)', () => {
    const { logger, lines } = capture();
    const cause = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });
    const err = new Error('could not reach postgres://app:s3cretpw@db.internal/app', { cause });
    logger.warn({ err }, 'idle database connection failed');
    const logged = lines[0]!.err as Record<string, unknown>;
    expect(logged).toMatchObject({ type: 'Error', cause: { type: 'Error', message: 'connect ECONNREFUSED 127.0.0.1:5432', code: 'ECONNREFUSED' } });
    expect(logged.message).toMatch(/^could not reach postgres:\/\/\[REDACTED\]/);
    expect(JSON.stringify(lines[0])).not.toContain('s3cretpw');
    expect(String(logged.stack)).toContain('logger.test.ts');
  });

  it('an error logged inside another object is not emptied either', () => {
    const { logger, lines } = capture();
    logger.error({ run: { id: 'run_1', failure: new TypeError('x is not a function') } }, 'run failed');
    expect(lines[0]).toMatchObject({ run: { id: 'run_1', failure: { type: 'TypeError', message: 'x is not a function' } } });
  });
});
