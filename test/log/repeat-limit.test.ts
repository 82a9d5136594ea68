import { describe, expect, it } from 'vitest';
import { repeatLimitedWarn } from '../../src/log/repeat-limit.ts';
import { capturedLog } from '../support/captured-log.ts';


describe('a recurring warning is logged at most once per window, with how many were held back', () => {
  it('holds back repeats of one message within the window and counts them in the next line', async () => {
    const { lines, logger } = capturedLog();
    let t = 0;
    const warn = repeatLimitedWarn(logger, 'queue connection error', { windowMs: 1000, now: () => t });
    for (let i = 0; i < 500; i++) warn(new Error('Connection terminated unexpectedly'), { where: 'worker' });
    t = 1000;
    warn(new Error('Connection terminated unexpectedly'), { where: 'worker' });
    await new Promise((r) => setImmediate(r));
    expect(lines.map((l) => [l.msg, l.where, l.repeated])).toEqual([
      ['queue connection error', 'worker', undefined],
      ['queue connection error', 'worker', 499],
    ]);
  });

  it('keeps different messages, and the same message from different places, apart', async () => {
    const { lines, logger } = capturedLog();
    const warn = repeatLimitedWarn(logger, 'queue connection error', { windowMs: 1000, now: () => 0 });
    warn(new Error('read ECONNRESET'), { where: 'worker' });
    warn(new Error('read ECONNRESET'), { where: 'queue' });
    warn(new Error('Connection terminated unexpectedly'), { where: 'worker' });
    warn(new Error('read ECONNRESET'), { where: 'worker' });
    await new Promise((r) => setImmediate(r));
    expect(lines.map((l) => [l.where, (l.err as { message: string }).message])).toEqual([
      ['worker', 'read ECONNRESET'], ['queue', 'read ECONNRESET'], ['worker', 'Connection terminated unexpectedly'],
    ]);
  });

  it('one database failure reached through different statements is one message: keyed and logged by its cause', async () => {
    const { lines, logger } = capturedLog();
    const warn = repeatLimitedWarn(logger, 'firing pass failed', { windowMs: 1000, now: () => 0 });
    const cause = Object.assign(new Error('relation "jobs" does not exist'), { code: '42P01' });
    warn(new Error('Failed query: select min(next_fire_at) from jobs\nparams: ', { cause }), { loop: 'firing' });
    warn(new Error('Failed query: select id from jobs for update skip locked\nparams: ', { cause }), { loop: 'firing' });
    warn(cause, { loop: 'firing' });
    await new Promise((r) => setImmediate(r));
    expect(lines.map((l) => [l.msg, (l.err as { message: string }).message])).toEqual([['firing pass failed', 'relation "jobs" does not exist']]);
    // where it surfaced first, without the parameters line
    expect(lines[0]!.during).toBe('Failed query: select min(next_fire_at) from jobs');
  });

  it('stack: false logs an outage\'s message and code without a stack, unless the level is debug', async () => {
    const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:6390'), { code: 'ECONNREFUSED' });
    const { lines, logger } = capturedLog();
    repeatLimitedWarn(logger, 'queue connection error', { stack: false })(refused, { where: 'queue' });
    const { lines: debugLines, logger: debug } = capturedLog('debug');
    repeatLimitedWarn(debug, 'queue connection error', { stack: false })(refused, { where: 'queue' });
    await new Promise((r) => setImmediate(r));
    expect(lines[0]).toMatchObject({ error: 'connect ECONNREFUSED 127.0.0.1:6390', code: 'ECONNREFUSED', where: 'queue' });
    expect(lines[0]).not.toHaveProperty('err');
    expect((debugLines[0]!.err as { stack: string }).stack).toContain('ECONNREFUSED');
  });
});
