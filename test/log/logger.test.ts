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

describe('log lines of driver errors', () => {
  it('never carry what a driver attached to an error: the Redis command and its password, the row PostgreSQL refused, query parameters', () => {
    const { logger, lines } = capture();
    const redis = Object.assign(new Error('WRONGPASS invalid username-password pair'), { command: { name: 'auth', args: ['default', 's3cr3t-pw'] } });
    const pgError = Object.assign(new Error('null value in column "name" violates not-null constraint'), {
      code: '23502', severity: 'ERROR', table: 'jobs', column: 'name', detail: 'Failing row contains (job_1, null, {"api_key": "live_abc"})',
    });
    const drizzle = Object.assign(new Error('Failed query: insert into jobs values ($1)\nparams: live_param_secret'), { query: 'insert into jobs values ($1)', params: ['live_param_secret'], cause: pgError });
    logger.warn({ err: redis }, 'queue connection error');
    logger.error({ err: drizzle }, 'run could not be recorded');
    const text = JSON.stringify(lines);
    for (const secret of ['s3cr3t-pw', 'live_abc', 'live_param_secret']) expect(text).not.toContain(secret);
    expect(lines[1]!.err).toMatchObject({ message: 'Failed query: insert into jobs values ($1)', cause: { code: '23502', table: 'jobs', column: 'name' } });
  });

  it('text that quotes a JSON credential is redacted like key=value', async () => {
    const { redactText } = await import('../../src/util/redact.ts');
    expect(redactText('row ({"api_key": "live_abc", "name": "x"})')).toBe('row ({"api_key": "[REDACTED]", "name": "x"})');
  });
});
