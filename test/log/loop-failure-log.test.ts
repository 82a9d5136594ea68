import { describe, expect, it } from 'vitest';
import { defaultConfig } from '../../src/config/schema.ts';
import { startDaemon } from '../../src/daemon/daemon.ts';
import { loopFailureLog } from '../../src/log/repeat-limit.ts';
import { useTestDatabase } from '../support/db.ts';
import { capturedLog } from '../support/captured-log.ts';

// An outage fails a daemon loop on every tick. One error with a stack trace per tick (once a second for the
// firing loop) buried the log; an operator wants when it began, how often it repeated, and when it ended.
const database = useTestDatabase();

const settle = () => new Promise((r) => setImmediate(r));

describe('a daemon loop that keeps failing', () => {
  it('logs the same failure once a window with the count held back, and one line when a pass succeeds again', async () => {
    const { lines, logger } = capturedLog();
    let t = 0;
    const firing = loopFailureLog(logger, 'firing', { windowMs: 30_000, now: () => t });
    firing.succeeded();
    for (; t < 60_000; t += 1000) firing.failed(new Error('connect ECONNREFUSED 127.0.0.1:5432'));
    firing.succeeded();
    firing.succeeded();
    await settle();
    expect(lines.map((l) => [l.level, l.msg, l.loop, l.repeated ?? l.failures ?? null])).toEqual([
      ['error', 'firing pass failed', 'firing', null],
      ['error', 'firing pass failed', 'firing', 29],
      ['info', 'firing pass succeeded again', 'firing', 60],
    ]);
    expect(lines[2]!.failing_ms).toBe(60_000);
  });

  it('in a daemon whose tables vanish for a while: one error, not one per tick, then the recovery', async () => {
    const { lines, logger } = capturedLog();
    const { schema, pool } = database();
    const config = defaultConfig({ database: { url: `postgres://postgres@127.0.0.1:5432/test?options=${encodeURIComponent(`-c search_path=${schema}`)}` }, daemon: { tick_seconds: 0.05 }, queue: { prefix: `lfl-${schema}` } });
    const daemon = await startDaemon(config, { logger, http: false, database: { url: 'postgres://postgres@127.0.0.1:5432/test', schema } });
    try {
      await pool.query('alter table jobs rename to jobs_away');
      // several failed firing passes, counted by the daemon itself, before the tables come back
      const failedPasses = async () => (await daemon.metrics.loopFailures.get()).values.find((v) => v.labels.loop === 'firing')?.value ?? 0;
      await expect.poll(failedPasses, { timeout: 15_000, interval: 50 }).toBeGreaterThanOrEqual(5);
      await pool.query('alter table jobs_away rename to jobs');
      await expect.poll(() => lines.some((l) => l.msg === 'firing pass succeeded again'), { timeout: 10_000, interval: 100 }).toBe(true);
    } finally {
      await daemon.stop();
      await pool.query(`drop schema if exists "${`lfl-${schema}`.replace(/[^A-Za-z0-9_]/g, '_').toLowerCase()}_queue" cascade`).catch(() => {});
    }
    const firing = lines.filter((l) => l.loop === 'firing');
    expect(firing.filter((l) => l.msg === 'firing pass failed'), JSON.stringify(firing)).toHaveLength(1);
    expect(firing.filter((l) => l.msg === 'firing pass succeeded again')).toHaveLength(1);
  }, 30_000);
});
