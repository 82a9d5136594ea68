import { describe, expect, it } from 'vitest';
import { baseDefinition, definitionProblem } from '../support/job-definitions.ts';
import { nearestName } from '../../src/util/nearest-name.ts';

const base = baseDefinition;
const problem = definitionProblem;

describe('a job definition with a misspelt field names it and the field it most likely meant', () => {
  const cases: [string, Record<string, unknown>, string][] = [
    ['a prefix of the real field', { ...base, timeout: 30 }, 'timeout: is not a field of a job (did you mean timeout_seconds?)'],
    ['two letters off', { ...base, overlap_polcy: 'skip' }, 'overlap_polcy: is not a field of a job (did you mean overlap_policy?)'],
    ['inside delivery', { ...base, delivery: { notfy: 'ops' } }, 'delivery.notfy: is not a field of a job (did you mean notify?)'],
    ['inside the payload', { ...base, payload: { kind: 'agent', promt: 'x' } }, 'payload.promt: is not a field of a job (did you mean prompt?)'],
    ['nothing near it', { ...base, colour: 'blue' }, 'colour: is not a field of a job'],
  ];
  for (const [what, def, message] of cases) {
    it(what, () => {
      const got = problem(def);
      expect(got).toContain(message);
      if (!message.includes('did you mean')) expect(got).not.toContain('did you mean');
    });
  }

  it('a misspelt tool in a step is named too, by the same checks as before', () => {
    expect(problem({ ...base, payload: { kind: 'steps', steps: [{ tool: 'read_fille', args: {} }] } })).toContain('payload.steps[0].tool: "read_fille" is not a known tool');
  });
});

describe('a schedule that does not parse', () => {
  it('is named once, with its value and the field that is wrong', () => {
    const got = problem({ ...base, schedule: '61 2 * * *' });
    expect(got).toContain('schedule: "61 2 * * *": minute field "61" is out of range 0–59');
    expect(got).not.toMatch(/schedule: schedule/);
  });
});

describe('nearestName', () => {
  it('takes the closest name within two edits, else the only name the word begins', () => {
    expect(nearestName('grnat.issued', ['grant.issued', 'grant.revoked'])).toBe('grant.issued');
    expect(nearestName('grant', ['grant.issued', 'grant.revoked'])).toBeUndefined();
    expect(nearestName('run.del', ['run.delivery', 'run.state'])).toBe('run.delivery');
    expect(nearestName('zzz', ['a', 'b'])).toBeUndefined();
  });
});

describe('a value beyond a limit names the limit in words, not the schema library\'s', () => {
  it.each<[string, Record<string, unknown>, string]>([
    ['a timeout over a week', { ...base, timeout_seconds: 99_999_999 }, 'timeout_seconds: at most 604800 (7 days)'],
    ['a timeout of zero', { ...base, timeout_seconds: 0 }, 'timeout_seconds: at least 1'],
  ])('%s', (_, def, message) => {
    const got = problem(def);
    expect(got).toContain(message);
    expect(got).not.toMatch(/Too (big|small)|expected number to be/);
  });
});
