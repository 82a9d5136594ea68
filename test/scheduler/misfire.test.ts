import { describe, expect, it } from 'vitest';
import { MISFIRE_RULES, fireRule, planFiring, type FiringInput, type FiringPlan, type MisfirePolicy } from '../../src/scheduler/misfire.ts';
import { instantsBetween, parseSchedule } from '../../src/scheduler/schedule.ts';

const d = (iso: string) => new Date(iso);
const hm = (x: Date) => x.toISOString().slice(11, 19);
const every15 = parseSchedule('*/15 * * * *');
// The daemon was down from 08:59 to about 12:00: next_fire_at stayed at 09:00.
const DOWN_FROM = d('2026-01-01T09:00:00Z');

/** Every due instant (next_fire_at and the schedule's instants up to now), computed independently. */
function dueInstants(input: FiringInput): Date[] {
  return [input.nextFireAt!, ...instantsBetween(input.schedule, input.nextFireAt!, input.now, 1_000_000)];
}

/** I13: each due instant is in fire or skipped, exactly once, and nothing else is. */
function expectAccounted(input: FiringInput, plans: readonly FiringPlan[]): void {
  const seen = plans.flatMap((p) => [...p.fire, ...p.skipped.map((s) => s.instant)]).map((x) => x.getTime()).sort((a, b) => a - b);
  expect(seen).toEqual(dueInstants(input).map((x) => x.getTime()));
  for (const p of plans) for (const s of p.skipped) expect(Object.keys(MISFIRE_RULES)).toContain(s.rule);
}

describe('misfire policies after three hours down with "*/15 * * * *"', () => {
  const cases: ReadonlyArray<[string, MisfirePolicy, string, number, number, string[], string]> = [
    // [name, policy, now, window s, cap, fired (HH:MM:SS), rule of the skips]
    ['skip, nothing on time: runs nothing', 'skip', '2026-01-01T12:05:00Z', 3600, 100, [], 'misfire.skip.late'],
    ['skip, 12:00 within the grace: runs only 12:00', 'skip', '2026-01-01T12:00:10Z', 3600, 100, ['12:00:00'], 'misfire.skip.late'],
    ['run_once: one catch-up run at the latest missed instant', 'run_once', '2026-01-01T12:05:00Z', 3600, 100, ['12:00:00'], 'misfire.run_once.covered'],
    ['run_once, 12:00 on time: that run is the catch-up', 'run_once', '2026-01-01T12:00:10Z', 3600, 100, ['12:00:00'], 'misfire.run_once.covered'],
    ['run_once ignores the catch-up window', 'run_once', '2026-01-01T12:05:00Z', 60, 100, ['12:00:00'], 'misfire.run_once.covered'],
    ['run_all, 1h window: the four inside it', 'run_all', '2026-01-01T12:05:00Z', 3600, 100,
      ['11:15:00', '11:30:00', '11:45:00', '12:00:00'], 'misfire.run_all.outside_window'],
    ['run_all, window boundary is inclusive', 'run_all', '2026-01-01T12:00:00Z', 3600, 100,
      ['11:00:00', '11:15:00', '11:30:00', '11:45:00', '12:00:00'], 'misfire.run_all.outside_window'],
    ['run_all, 4h window: all thirteen, in order', 'run_all', '2026-01-01T12:05:00Z', 14_400, 100,
      ['09:00:00', '09:15:00', '09:30:00', '09:45:00', '10:00:00', '10:15:00', '10:30:00', '10:45:00', '11:00:00', '11:15:00', '11:30:00', '11:45:00', '12:00:00'], ''],
    ['run_all, 4h window, cap 5: the latest five', 'run_all', '2026-01-01T12:05:00Z', 14_400, 5,
      ['11:00:00', '11:15:00', '11:30:00', '11:45:00', '12:00:00'], 'misfire.cap'],
  ];

  it.each(cases)('%s', (_name, policy, now, window, cap, fired, skipRule) => {
    const input: FiringInput = { schedule: every15, nextFireAt: DOWN_FROM, now: d(now), policy, catchupWindowSeconds: window, cap };
    const plan = planFiring(input);
    expect(plan.fire.map(hm)).toEqual(fired);
    expect(plan.skipped).toHaveLength(13 - fired.length);
    for (const s of plan.skipped) expect(s.rule).toBe(skipRule);
    expect(plan.nextFireAt?.toISOString()).toBe('2026-01-01T12:15:00.000Z');
    expect(plan.more).toBe(false);
    expectAccounted(input, [plan]);
  });

  it('explains each skip with its lateness, window or cap', () => {
    const base = { schedule: every15, nextFireAt: DOWN_FROM, now: d('2026-01-01T12:05:00Z') } as const;
    expect(planFiring({ ...base, policy: 'skip', catchupWindowSeconds: 3600 }).skipped[0]!.reason)
      .toBe('missed by 3h5m (grace 30s); misfire policy skip');
    expect(planFiring({ ...base, policy: 'run_once', catchupWindowSeconds: 3600 }).skipped[0]!.reason)
      .toBe('missed by 3h5m; misfire policy run_once runs only the latest due instant');
    expect(planFiring({ ...base, policy: 'run_all', catchupWindowSeconds: 3600 }).skipped[0]!.reason)
      .toBe('missed by 3h5m, outside the catch-up window of 1h');
    expect(planFiring({ ...base, policy: 'run_all', catchupWindowSeconds: 14_400, cap: 5 }).skipped[0]!.reason)
      .toBe('beyond the catch-up cap of 5 runs');
  });

  it('caps run_all at 100 runs by default: the latest 100, the rest skipped with misfire.cap', () => {
    const input: FiringInput = {
      schedule: parseSchedule('* * * * *'), nextFireAt: DOWN_FROM, now: d('2026-01-01T12:00:00Z'), policy: 'run_all', catchupWindowSeconds: 86_400,
    };
    const plan = planFiring(input);
    expect(plan.fire).toHaveLength(100);
    expect(hm(plan.fire[0]!)).toBe('10:21:00');
    expect(hm(plan.fire[99]!)).toBe('12:00:00');
    expect(plan.skipped).toHaveLength(81);
    expect(plan.skipped.every((s) => s.rule === 'misfire.cap')).toBe(true);
    expectAccounted(input, [plan]);
  });
});

describe('the grace between on time and misfired', () => {
  it.each([
    [30, '2026-01-01T12:00:30Z', ['12:00:00']], // exactly the grace: on time
    [30, '2026-01-01T12:00:31Z', []],
    [0, '2026-01-01T12:00:00Z', ['12:00:00']],
    [0, '2026-01-01T12:00:00.001Z', []],
    [120, '2026-01-01T12:01:59Z', ['12:00:00']],
  ])('grace %is, now %s: skip policy fires %j', (grace, now, fired) => {
    const plan = planFiring({ schedule: every15, nextFireAt: d('2026-01-01T12:00:00Z'), now: d(now), policy: 'skip', catchupWindowSeconds: 0, graceSeconds: grace });
    expect(plan.fire.map(hm)).toEqual(fired);
  });

  it('a busy tick under run_once runs the latest on-time instant, not a backlog of them', () => {
    const plan = planFiring({
      schedule: parseSchedule('*/5 * * * * *'), nextFireAt: d('2026-01-01T12:00:00Z'), now: d('2026-01-01T12:00:12Z'), policy: 'run_once', catchupWindowSeconds: 0,
    });
    expect(plan.fire.map(hm)).toEqual(['12:00:10']);
    expect(plan.skipped.map((s) => [hm(s.instant), s.rule])).toEqual([['12:00:00', 'misfire.superseded'], ['12:00:05', 'misfire.superseded']]);
  });

  it('names the rule a fired instant ran under', () => {
    const now = d('2026-01-01T12:05:00Z');
    expect(fireRule('run_all', d('2026-01-01T12:04:50Z'), now)).toBe('misfire.on_time');
    expect(fireRule('run_all', d('2026-01-01T11:45:00Z'), now)).toBe('misfire.run_all.in_window');
    expect(fireRule('run_once', d('2026-01-01T12:00:00Z'), now)).toBe('misfire.run_once.latest');
  });
});

describe('a long outage of a fast schedule is handled in batches', () => {
  const now = d('2026-01-01T12:00:00Z');

  function drain(input: FiringInput): FiringPlan[] {
    const plans: FiringPlan[] = [];
    let next: Date | null = input.nextFireAt;
    for (let i = 0; i < 100; i++) {
      const plan = planFiring({ ...input, nextFireAt: next });
      plans.push(plan);
      next = plan.nextFireAt;
      if (!plan.more) break;
    }
    return plans;
  }

  it.each([
    // 11:59:30 .. 12:00:00 are within the 30 s grace, but skip and run_once run no backlog: only 12:00:00
    ['skip', 3600, 1],
    ['run_once', 3600, 1],
    ['run_all', 3600, 100],
  ] as const)('%s, every 1s down 3h: 10,801 instants, each accounted once, as one unbounded call would (%i runs)', (policy, window, fired) => {
    const input: FiringInput = { schedule: parseSchedule('every 1s'), nextFireAt: DOWN_FROM, now, policy, catchupWindowSeconds: window };
    const plans = drain(input);
    expect(plans.length).toBe(11);
    expect(plans.slice(0, -1).every((p) => p.more && p.fire.length === 0 && p.skipped.length === 1000 && p.nextFireAt! <= now)).toBe(true);
    expectAccounted(input, plans);
    const last = plans[plans.length - 1]!;
    expect(last.fire).toHaveLength(fired);
    expect(hm(last.fire[last.fire.length - 1]!)).toBe('12:00:00');
    expect(last.nextFireAt?.toISOString()).toBe('2026-01-01T12:00:01.000Z');
    const once = planFiring({ ...input, batch: 1_000_000 });
    expect(once.fire).toEqual(last.fire);
    expect(plans.flatMap((p) => p.skipped)).toEqual(once.skipped);
  });

  it('a per-second cron pattern down 40 minutes takes three calls', () => {
    const input: FiringInput = {
      schedule: parseSchedule('* * * * * *'), nextFireAt: d('2026-01-01T11:20:00Z'), now, policy: 'run_all', catchupWindowSeconds: 600,
    };
    const plans = drain(input);
    expect(plans.map((p) => [p.fire.length, p.skipped.length, p.more])).toEqual([[0, 1000, true], [0, 1000, true], [100, 301, false]]);
    expect(plans[0]!.skipped[0]!.rule).toBe('misfire.run_all.outside_window');
    expectAccounted(input, plans);
  });
});

describe('max_runs and schedules that end', () => {
  const base = { schedule: every15, nextFireAt: DOWN_FROM, now: d('2026-01-01T12:05:00Z'), catchupWindowSeconds: 3600 } as const;

  it('stops at max_runs: fires what is left, records the rest, and ends the schedule', () => {
    const input: FiringInput = { ...base, policy: 'run_all', maxRuns: 10, firedCount: 8 };
    const plan = planFiring(input);
    expect(plan.fire.map(hm)).toEqual(['11:15:00', '11:30:00']);
    expect(plan.skipped.filter((s) => s.rule === 'misfire.max_runs').map((s) => hm(s.instant))).toEqual(['11:45:00', '12:00:00']);
    expect(plan.skipped.find((s) => s.rule === 'misfire.max_runs')!.reason).toBe('max_runs (10) reached');
    expect(plan.nextFireAt).toBeNull();
    expectAccounted(input, [plan]);
  });

  it('the run that reaches max_runs ends the schedule, even on time', () => {
    const plan = planFiring({ ...base, now: d('2026-01-01T09:00:01Z'), policy: 'run_once', maxRuns: 3, firedCount: 2 });
    expect(plan.fire.map(hm)).toEqual(['09:00:00']);
    expect(plan.nextFireAt).toBeNull();
  });

  it('below max_runs the schedule continues', () => {
    const plan = planFiring({ ...base, now: d('2026-01-01T09:00:01Z'), policy: 'run_once', maxRuns: 3, firedCount: 1 });
    expect(plan.nextFireAt?.toISOString()).toBe('2026-01-01T09:15:00.000Z');
  });

  it('a job already at max_runs fires nothing, records the due instant as skipped, and has no next instant', () => {
    const plan = planFiring({ ...base, policy: 'run_all', maxRuns: 5, firedCount: 5 });
    expect(plan).toMatchObject({ fire: [], nextFireAt: null, more: false });
    expect(plan.skipped.map((s) => [s.instant, s.rule])).toEqual([[base.nextFireAt, 'misfire.max_runs']]);
  });

  it('a one-shot "at" fires once and ends', () => {
    const at = parseSchedule('at 2026-01-01T12:00:00Z');
    const onTime = planFiring({ schedule: at, nextFireAt: d('2026-01-01T12:00:00Z'), now: d('2026-01-01T12:00:02Z'), policy: 'skip', catchupWindowSeconds: 0 });
    expect(onTime).toEqual({ fire: [d('2026-01-01T12:00:00Z')], skipped: [], nextFireAt: null, more: false });
    const missed = planFiring({ schedule: at, nextFireAt: d('2026-01-01T12:00:00Z'), now: d('2026-01-02T12:00:00Z'), policy: 'skip', catchupWindowSeconds: 0 });
    expect(missed.fire).toEqual([]);
    expect(missed.skipped.map((s) => s.rule)).toEqual(['misfire.skip.late']);
    expect(missed.nextFireAt).toBeNull();
  });

  it('a job not yet due, or with no next instant, is left as it is', () => {
    expect(planFiring({ ...base, now: d('2026-01-01T08:59:59Z'), policy: 'run_once' })).toEqual({ fire: [], skipped: [], nextFireAt: DOWN_FROM, more: false });
    expect(planFiring({ ...base, nextFireAt: null, policy: 'run_once' })).toEqual({ fire: [], skipped: [], nextFireAt: null, more: false });
  });

  it('refuses nonsense inputs', () => {
    expect(() => planFiring({ ...base, policy: 'run_all', catchupWindowSeconds: -1 })).toThrow('catchupWindowSeconds must be a non-negative number');
    expect(() => planFiring({ ...base, policy: 'later' as MisfirePolicy })).toThrow('unknown misfire policy "later"');
    expect(() => planFiring({ ...base, policy: 'run_all', cap: 0 })).toThrow('cap must be a positive integer');
  });
});

describe('misfire across a DST change', () => {
  it('run_all over the New York fall-back night counts the repeated hour twice for an interval pattern', () => {
    const input: FiringInput = {
      schedule: parseSchedule('0 * * * *', 'America/New_York'), nextFireAt: d('2026-11-01T04:00:00Z'),
      now: d('2026-11-01T08:00:00Z'), policy: 'run_all', catchupWindowSeconds: 86_400,
    };
    const plan = planFiring(input);
    expect(plan.fire.map((x) => x.toISOString())).toEqual([
      '2026-11-01T04:00:00.000Z', '2026-11-01T05:00:00.000Z', '2026-11-01T06:00:00.000Z', '2026-11-01T07:00:00.000Z', '2026-11-01T08:00:00.000Z',
    ]);
    expectAccounted(input, [plan]);
  });
});

describe('a fast schedule after a stall: no backlog inside the grace period', () => {
  const every5s = parseSchedule('every 5s');
  const now = d('2026-01-01T12:00:02Z');
  const base = { schedule: every5s, nextFireAt: d('2026-01-01T11:00:00Z'), now, catchupWindowSeconds: 3600 } as const;

  it.each(['skip', 'run_once'] as const)('%s fires one instant, the latest, and accounts for the rest', (policy) => {
    const plan = planFiring({ ...base, policy });
    expect(plan.fire.map(hm)).toEqual(['12:00:00']);
    expect(plan.skipped.filter((s) => s.rule === 'misfire.superseded').map((s) => hm(s.instant)))
      .toEqual(['11:59:35', '11:59:40', '11:59:45', '11:59:50', '11:59:55']);
    expectAccounted({ ...base, policy }, [plan]);
  });

  it('run_all still runs every instant inside its window (up to the cap)', () => {
    const plan = planFiring({ ...base, policy: 'run_all' });
    expect(plan.fire).toHaveLength(100);
    expect(plan.skipped.some((s) => s.rule === 'misfire.superseded')).toBe(false);
  });
});

describe('a paused job', () => {
  const drain = (input: FiringInput): FiringPlan[] => {
    const plans: FiringPlan[] = [];
    let next: Date | null = input.nextFireAt;
    for (let i = 0; i < 100 && next; i++) {
      const plan = planFiring({ ...input, nextFireAt: next });
      plans.push(plan);
      next = plan.nextFireAt;
      if (!plan.more) break;
    }
    return plans;
  };

  it.each(['skip', 'run_once', 'run_all'] as const)('under misfire %s runs none of its due instants, on time or not, and records each as misfire.paused', (policy) => {
    // 09:00 .. 12:00 due, 12:00 within the grace: it would run if the job were not paused
    const input: FiringInput = { schedule: every15, nextFireAt: DOWN_FROM, now: d('2026-01-01T12:00:10Z'), policy, catchupWindowSeconds: 14_400, paused: true };
    const plan = planFiring(input);
    expect(plan.fire).toEqual([]);
    expect(plan.skipped).toHaveLength(13);
    for (const s of plan.skipped) expect(s.rule).toBe('misfire.paused');
    expect(plan.nextFireAt?.toISOString()).toBe('2026-01-01T12:15:00.000Z');
    expectAccounted(input, [plan]);
    expect(planFiring({ ...input, paused: false }).fire.length).toBeGreaterThan(0);
  });

  it('a long pause of a fast schedule is recorded in batches, each instant once', () => {
    const input: FiringInput = { schedule: parseSchedule('every 1s'), nextFireAt: d('2026-01-01T11:00:00Z'), now: d('2026-01-01T12:00:00Z'), policy: 'run_all', catchupWindowSeconds: 3600, paused: true };
    const plans = drain(input);
    expect(plans.map((p) => p.more)).toEqual([true, true, true, false]);
    expect(plans.every((p) => p.fire.length === 0 && p.skipped.every((s) => s.rule === 'misfire.paused'))).toBe(true);
    expectAccounted(input, plans);
    expect(plans[plans.length - 1]!.nextFireAt?.toISOString()).toBe('2026-01-01T12:00:01.000Z');
  });

  it('a one-shot paused at its instant is over: it does not come again on resume', () => {
    const at = parseSchedule('at 2026-01-01T09:00:00Z');
    const plan = planFiring({ schedule: at, nextFireAt: d('2026-01-01T09:00:00Z'), now: d('2026-01-01T09:00:05Z'), policy: 'run_once', catchupWindowSeconds: 60, paused: true });
    expect(plan).toMatchObject({ fire: [], nextFireAt: null, more: false });
    expect(plan.skipped.map((s) => s.rule)).toEqual(['misfire.paused']);
  });
});
