import { describe, expect, it } from 'vitest';
import { EDIT_SKIP_LIMIT, instantsDueAtPause, instantsMissedWhilePaused } from '../../src/jobs/next-fire.ts';
import type { JobRow } from '../../src/store/schema.ts';

const job = (over: Partial<JobRow>) => ({ id: 'job_1', schedule: '* * * * * *', timezone: 'UTC', paused: false, next_fire_at: null, ...over }) as JobRow;
const now = new Date('2030-01-01T12:00:00Z');
const secondsBefore = (s: number) => new Date(now.getTime() - s * 1000);

describe('the due instants a pause takes with it', () => {
  it('a pause is never refused: past the limit the schedule stays at the first instant not recorded, for the firing loop', () => {
    const from = secondsBefore(EDIT_SKIP_LIMIT + 100);
    const taken = instantsDueAtPause(job({ next_fire_at: from }), now);
    expect(taken.skipped).toHaveLength(EDIT_SKIP_LIMIT);
    expect(taken.skipped[0]!.nominal_at).toEqual(from);
    expect(taken.skipped.every((r) => r.skip_reason?.startsWith('misfire.paused_while_due: '))).toBe(true);
    expect(taken.next_fire_at).toEqual(new Date(from.getTime() + EDIT_SKIP_LIMIT * 1000));
  });

  it('with a short backlog it records all of it and the schedule goes on after now', () => {
    const taken = instantsDueAtPause(job({ next_fire_at: secondsBefore(5) }), now);
    expect(taken.skipped).toHaveLength(6);
    expect(taken.next_fire_at).toEqual(new Date(now.getTime() + 1000));
  });

  it('a job not yet due gives up nothing and keeps its schedule', () => {
    expect(instantsDueAtPause(job({ next_fire_at: new Date(now.getTime() + 1000) }), now)).toEqual({ skipped: [], unrecorded: null });
  });

  it('a resume takes the rest as misfire.paused, and is refused past the limit rather than leave some unrecorded', () => {
    const resumed = instantsMissedWhilePaused(job({ paused: true, next_fire_at: secondsBefore(2) }), now);
    expect(resumed.skipped.map((r) => r.skip_reason?.split(':')[0])).toEqual(['misfire.paused', 'misfire.paused', 'misfire.paused']);
    expect(() => instantsMissedWhilePaused(job({ paused: true, next_fire_at: secondsBefore(EDIT_SKIP_LIMIT + 1) }), now)).toThrow(/then resume/);
  });
});
