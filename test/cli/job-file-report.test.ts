import { describe, expect, it } from 'vitest';
import { problemReport, splitProblems } from '../../src/cli/job-file-problems.ts';
import { nearestTimeZone } from '../../src/util/time-zones.ts';

describe('a job\'s problems, as reported', () => {
  it('one problem stays on the subject\'s line; several go one a line, lines first in order, those without a line last', () => {
    expect(problemReport('job file j.yaml', [{ text: 'name: must not be empty', line: 1 }])).toBe('job file j.yaml: line 1: name: must not be empty');
    expect(problemReport('jobs create', [
      { text: 'timezone: bad' }, { text: 'b', line: 9 }, { text: 'step', line: 2, file: 'steps file s.yaml' }, { text: 'a', line: 3 },
    ])).toBe('jobs create: 4 problems:\n  line 3: a\n  line 9: b\n  steps file s.yaml, line 2: step\n  timezone: bad');
  });

  it('the checks\' joined problems come apart at each field, not inside a problem\'s own "; "', () => {
    expect(splitProblems('tools[0]: "x" is not a known tool; payload.steps[0] (exec): not in the job\'s tools [a]; add exec to tools; timezone "Mars/Base": not an IANA time zone'))
      .toEqual(['tools[0]: "x" is not a known tool', 'payload.steps[0] (exec): not in the job\'s tools [a]; add exec to tools', 'timezone "Mars/Base": not an IANA time zone']);
  });
});

describe('the time zone a typo most likely meant', () => {
  it.each([['Europe/Berln', 'Europe/Berlin'], ['europe/pariss', 'Europe/Paris'], ['Berlin', 'Europe/Berlin'], ['UT', 'UTC'], ['Mars/Base', undefined]])('%s: %s', (typo, meant) => {
    expect(nearestTimeZone(typo)).toBe(meant);
  });
});
