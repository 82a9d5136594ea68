import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { jitterMs, jitteredStart } from '../../src/scheduler/jitter.ts';

const instant = new Date('2026-01-01T09:00:00Z');

describe('stable jitter', () => {
  it('is the same for the same job and instant, every time', () => {
    const first = jitterMs('job_abc', instant, 300);
    for (let i = 0; i < 5; i++) expect(jitterMs('job_abc', new Date(instant.getTime()), 300)).toBe(first);
  });

  it('is derived from sha256 of the job id and the instant in ISO form', () => {
    const h = createHash('sha256').update('job_abc\n2026-01-01T09:00:00.000Z').digest().readBigUInt64BE(0);
    expect(jitterMs('job_abc', instant, 300)).toBe(Number((h * 300_000n) >> 64n));
  });

  it('differs between jobs and between instants', () => {
    const a = jitterMs('job_a', instant, 3600);
    expect(jitterMs('job_b', instant, 3600)).not.toBe(a);
    expect(jitterMs('job_a', new Date(instant.getTime() + 60_000), 3600)).not.toBe(a);
  });

  it('stays in [0, max) as whole milliseconds, spread evenly over the range', () => {
    const max = 60;
    const buckets = new Array<number>(10).fill(0);
    let sum = 0;
    const n = 20_000;
    for (let i = 0; i < n; i++) {
      const j = jitterMs(`job_${i % 97}`, new Date(instant.getTime() + i * 60_000), max);
      expect(Number.isInteger(j)).toBe(true);
      expect(j).toBeGreaterThanOrEqual(0);
      expect(j).toBeLessThan(max * 1000);
      buckets[Math.floor(j / (max * 100))]! += 1;
      sum += j;
    }
    expect(Math.abs(sum / n - 30_000)).toBeLessThan(1000);
    for (const b of buckets) expect(Math.abs(b - n / 10)).toBeLessThan(n / 10 * 0.1);
  });

  it('is 0 without a jitter setting, and sub-second ranges work', () => {
    expect(jitterMs('job_a', instant, 0)).toBe(0);
    expect(jitterMs('job_a', instant, 0.5)).toBeLessThan(500);
  });

  it('refuses a negative range or an invalid instant', () => {
    expect(() => jitterMs('job_a', instant, -1)).toThrow('jitter maxSeconds must be a non-negative number, got -1');
    expect(() => jitterMs('job_a', new Date(Number.NaN), 10)).toThrow('jitter instant is not a valid Date');
  });

  it('gives the start time: the nominal instant plus its jitter', () => {
    expect(jitteredStart('job_a', instant, 120).getTime()).toBe(instant.getTime() + jitterMs('job_a', instant, 120));
  });
});
