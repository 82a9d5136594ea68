import { Cron } from 'croner';
import { describe, expect, it } from 'vitest';
import { CRON_FIELDS, cronFieldProblem, cronFieldsOf, describeCronerError, type CronField } from '../../src/scheduler/cron-fields.ts';

// the options schedule.ts builds every cron schedule with
const OPTIONS = { paused: true, mode: '5-or-6-parts', fixedTimeRule: 'no-wildcard' } as const;
const cronerAccepts = (pattern: string) => {
  try {
    new Cron(pattern, OPTIONS);
    return true;
  } catch {
    return false;
  }
};

/** A pattern of the given form with `text` in `field` and `*` everywhere else. */
function withField(field: CronField, text: string, count: 5 | 6 = 6): string {
  return cronFieldsOf(count).map((f) => (f === field ? text : '*')).join(' ');
}

const forms = CRON_FIELDS.flatMap((f) => (f.at5 === null ? [[f, 6] as const] : [[f, 5] as const, [f, 6] as const]));

describe('the field table', () => {
  it('orders the 5-field form minute to day of week, and the 6-field form with second first', () => {
    expect(cronFieldsOf(5).map((f) => f.name)).toEqual(['minute', 'hour', 'day of month', 'month', 'day of week']);
    expect(cronFieldsOf(6).map((f) => f.name)).toEqual(['second', 'minute', 'hour', 'day of month', 'month', 'day of week']);
  });

  it.each(CRON_FIELDS.map((f) => [f.name, f] as const))('%s: its examples are accepted, by us and by croner', (_, field) => {
    for (const example of field.examples) {
      const pattern = withField(field, example);
      expect(cronFieldProblem(pattern), pattern).toBeUndefined();
      expect(cronerAccepts(pattern), pattern).toBe(true);
    }
  });
});

describe('a value out of range names the field and quotes what was written', () => {
  it.each(forms.map(([f, n]) => [f.name, n, f] as const))('%s in the %i-field form', (name, count, field) => {
    expect(cronFieldProblem(withField(field, String(field.min), count))).toBeUndefined();
    expect(cronFieldProblem(withField(field, String(field.max), count))).toBeUndefined();
    const over = String(field.max + 1);
    expect(cronFieldProblem(withField(field, over, count))).toBe(`${name} field "${over}" is out of range ${field.min}–${field.max}`);
    expect(cronFieldProblem(withField(field, `0${over}`, count))).toBe(`${name} field "0${over}" is out of range ${field.min}–${field.max}`);
    if (field.min > 0) {
      expect(cronFieldProblem(withField(field, String(field.min - 1), count))).toBe(`${name} field "${field.min - 1}" is out of range ${field.min}–${field.max}`);
    }
    expect(cronFieldProblem(withField(field, `${field.min},${over}`, count))).toBe(`${name} field "${field.min},${over}": "${over}" is out of range ${field.min}–${field.max}`);
  });

  it.each(CRON_FIELDS.map((f) => [f.name, f] as const))('%s: a step up to the number of its values is accepted, one more is refused', (name, field) => {
    const fits = withField(field, `*/${field.maxStep}`);
    const tooBig = withField(field, `*/${field.maxStep + 1}`);
    expect([cronFieldProblem(fits), cronerAccepts(fits)]).toEqual([undefined, true]);
    expect([cronFieldProblem(tooBig), cronerAccepts(tooBig)]).toEqual([`${name} field "*/${field.maxStep + 1}": a step must be at most ${field.maxStep}`, false]);
  });

  it('a stepped range may end past the field, as croner allows, unless the step reaches there', () => {
    expect(cronFieldProblem('0 1-24/2 * * *')).toBeUndefined(); // 1, 3, ... 23
    expect(cronFieldProblem('0 0-24/2 * * *')).toBe('hour field "0-24/2": "24" is out of range 0–23');
    expect(cronFieldProblem('0 0 * * 1-8/7')).toBe('day of week field "1-8/7": "8" is out of range 0–7');
  });
});

describe('names and specials', () => {
  it.each([
    '0 0 * JAN-MAR *', '0 0 * jan,jul *', '0 0 * JAN-DEC/3 *', '0 0 * * mon-fri', '0 0 * * MON-SUN', '0 0 * * SAT-SUN',
    '0 0 * * 7', '0 0 * * 0-7/7', '0 0 L * *', '0 0 l * *', '0 0 LW * *', '0 0 15W * *', '0 0 L,15W * *', '0 0 * * 5L',
    '0 0 * * FRIL', '0 0 * * MON#2', '0 0 * * FRI#L', '0 0 * * 5-6#L', '0 0 * * MON#1,FRI#L', '0 0 ? * MON', '0 0 1 * ?',
    '?/5 * * * *', '0 0 1 * +MON', '0 0 1 * +MON-FRI', '*,5 * * * *', '05 * * * *', '0-30/5 * * * *', '*/60 * * * *',
    '0 */10 0-23/6 * * *', '0 0 * * */2L',
  ])('%s is accepted, by us and by croner', (pattern) => {
    expect(cronFieldProblem(pattern)).toBeUndefined();
    expect(cronerAccepts(pattern)).toBe(true);
  });

  it.each([
    ['15W * * * *', 'minute field "15W": W (the nearest weekday, e.g. 15W) is only allowed in the day of month field'],
    ['0 L * * *', 'hour field "L": L (the last day of the month) is only allowed in the day of month field'],
    ['0 0 * 5L *', 'month field "5L": L after a weekday (its last one in the month, e.g. 5L) is only allowed in the day of week field'],
    ['0 0 * 1#2 *', 'month field "1#2": # (the nth weekday of the month, e.g. MON#2) is only allowed in the day of week field'],
    ['0 0 +1 * *', 'day of month field "+1": + (day of month AND day of week) is only allowed in the day of week field'],
    ['0 0 * * LW', 'day of week field "LW": LW (the last weekday of the month) is only allowed in the day of month field'],
    ['0 0 5L * *', 'day of month field "5L": L stands alone here (the last day of the month); 5L, the last Friday, belongs in day of week'],
    ['0 0 * * L', 'day of week field "L": L needs a weekday before it here (e.g. 5L or FRIL, the last Friday; L alone is for day of month)'],
    ['0 0 * * JAN', 'day of week field "JAN" is a month name; the day of week field takes 0–7 or SUN–SAT'],
    ['0 0 * MON *', 'month field "MON" is a day of week name; the month field takes 1–12 or JAN–DEC'],
    ['0 0 JUL * *', 'day of month field "JUL" is a month name; the day of month field takes 1–31'],
  ])('%s outside its field: %s', (pattern, message) => {
    expect(cronFieldProblem(pattern)).toBe(message);
    expect(cronerAccepts(pattern)).toBe(false);
  });
});

describe('a malformed field names the rule it breaks', () => {
  it.each([
    ['a b c d e', 'minute field "a" is not a number, range, list or step (e.g. 5, 1-5, 1,15, */10)'],
    ['0 0 * FOO *', 'month field "FOO" is not a number, name, range, list or step (e.g. 5, JAN, 1-5, JAN-MAR, 1,6, */3)'],
    ['0 0 * * MON-XYZ', 'day of week field "MON-XYZ": "XYZ" is not a number or name (SUN–SAT)'],
    ['1,x * * * *', 'minute field "1,x": "x" is not a number'],
    ['*/0 * * * *', 'minute field "*/0": a step must be at least 1'],
    ['*/x * * * *', 'minute field "*/x": a step must be a whole number (e.g. */10)'],
    ['5/10 * * * *', 'minute field "5/10": a step needs * or a range before the / (e.g. */10, 0-30/10)'],
    ['*/5/2 * * * *', 'minute field "*/5/2": a step looks like */10 or 0-30/10'],
    ['5-1 * * * *', 'minute field "5-1": a range must go from low to high'],
    ['0-4,5-1 * * * *', 'minute field "0-4,5-1": a range must go from low to high (in "5-1")'],
    ['0 0 * * FRI-MON', 'day of week field "FRI-MON": a range must go from low to high'],
    ['1-2-3 * * * *', 'minute field "1-2-3": a range needs one value on each side of the - (e.g. 1-5)'],
    ['1,,2 * * * *', 'minute field "1,,2": a list item is empty (check for stray commas)'],
    ['0 0 1-5W * *', 'day of month field "1-5W": W works on a single day (e.g. 15W), not on a range or step'],
    ['0 0 0W * *', 'day of month field "0W": "0" is out of range 1–31'],
    ['0 0 LW,1 * *', 'day of month field "LW,1": LW stands alone, not in a list'],
    ['0 0 * * MON#6', 'day of week field "MON#6": # needs a week number 1–5 or L after it (e.g. MON#2, FRI#L)'],
    ['0 0 * * *#2', 'day of week field "*#2": #2 needs a weekday or weekdays before it (e.g. MON#2, 5L, 1-5L)'],
    ['0 0 * * +', 'day of week field "+": + needs days after it (e.g. +MON)'],
  ])('%s: %s', (pattern, message) => {
    expect(cronFieldProblem(pattern)).toBe(message);
    expect(cronerAccepts(pattern)).toBe(false);
  });

  it('reports the first bad field, and leaves a pattern without 5 or 6 fields to its caller', () => {
    expect(cronFieldProblem('61 25 * * *')).toBe('minute field "61" is out of range 0–59');
    expect(cronFieldProblem('61 * *')).toBeUndefined();
  });
});

describe('our check and croner agree on which fields are valid', () => {
  const atoms = ['0', '1', '5', '7', '8', '12', '13', '23', '24', '31', '32', '59', '60', 'JAN', 'dec', 'MON', 'sun', 'SAT', '*', '?', 'L', 'x', ''];
  const items = [
    ...atoms,
    ...atoms.flatMap((a) => atoms.map((b) => `${a}-${b}`)),
    ...['0', '1', '7', '12', '24', '31', '60', '61'].flatMap((s) => [`*/${s}`, `1-24/${s}`, `0-59/${s}`, `5/${s}`]),
    ...['1', '5', '15', '31', '32', 'L', '1-5'].flatMap((a) => [`${a}W`, `${a}L`, `${a}#2`, `${a}#L`, `${a}#6`]),
    'LW', 'lw', '+MON', '+*', '+', 'FRIL', 'MON#1,FRI#L', '1,,2', '*,5', 'JANUARY', 'MON-SUN/2', 'SUN-SAT/2',
  ];
  it.each(CRON_FIELDS.map((f) => [f.name, f] as const))('%s', (_, field) => {
    const disagree = items.filter(Boolean).filter((item) => {
      const pattern = withField(field, item);
      return (cronFieldProblem(pattern) === undefined) !== cronerAccepts(pattern);
    });
    expect(disagree).toEqual([]);
  });
});

describe("croner's own message, kept for what our check misses", () => {
  const cronerMessage = (pattern: string) => {
    try {
      new Cron(pattern, OPTIONS);
    } catch (err) {
      return (err as Error).message;
    }
    throw new Error(`croner accepted ${pattern}`);
  };

  it.each([
    ['0 0 31 13 *', 'month 13 is out of range 1–12', /month: 12/],
    ['0 0 0 * *', 'day of month 0 is out of range 1–31', /day: -1/],
    ['0 0 0W * *', 'day of month 0 is out of range 1–31', /nearestWeekdays/],
    ['a b c d e', 'the minute field contains illegal characters', /entry/],
    ['0 0 * * MON-XYZ', 'the day of week field contains illegal characters', /1-XYZ/],
  ])('%s reads %j, without the prefix or croner-internal numbers', (pattern, text, internal) => {
    const raw = cronerMessage(pattern);
    expect(raw).toMatch(internal); // the case is still one croner words its own way
    const message = describeCronerError(raw);
    expect(message).toContain(text);
    expect(message).not.toMatch(internal);
    expect(message).not.toContain('CronPattern');
  });
});
