import { describe, expect, it } from 'vitest';
import { jobLine } from '../../src/cli/job-display.ts';
import type { JobRow } from '../../src/store/schema.ts';

const row = (over: Partial<JobRow>): JobRow => ({
  id: 'job_a', name: 'a', schedule: 'at 2026-12-01T03:00:00Z', timezone: 'UTC', paused: false, pause_note: null, removed_at: null,
  next_fire_at: new Date('2026-12-08T03:00:00Z'), ...over,
}) as JobRow;

describe('the state jobs list shows', () => {
  it.each<[string, Partial<JobRow>, string]>([
    ['a job with an instant ahead', {}, 'active'],
    ['a one-shot whose instant has fired, or a job at max_runs', { next_fire_at: null }, 'done: no instant left'],
    ['a paused job, with its note', { paused: true, pause_note: 'incident 7' }, 'paused: incident 7'],
    ['a removed job', { removed_at: new Date('2026-12-02T00:00:00Z'), next_fire_at: null }, 'removed 2026-12-02T00:00:00.000Z'],
  ])('%s: %s', (_what, over, state) => {
    expect(jobLine(row(over))[4]).toBe(state);
  });
});
