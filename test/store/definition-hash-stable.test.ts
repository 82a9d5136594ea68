import { describe, expect, it } from 'vitest';
import { definitionHash } from '../../src/store/definition-hash.ts';
import type { Payload } from '../../src/store/schema.ts';

// A run whose job's definition no longer hashes to its grant's clears that grant for good (grant.changed_outside):
// a build that hashed the same definition differently would clear every grant at its first run. Changing the hash
// therefore needs a migration that re-hashes jobs and grants together; this test fails first.
describe('the definition hash of a job', () => {
  it('stays the same across builds for the same definition (a change would clear every grant)', () => {
    const steps = { kind: 'steps', steps: [{ tool: 'read_file', args: { path: 'notes.md' } }] } as unknown as Payload;
    expect(definitionHash({ payload: steps, tools: ['write_file', 'read_file', 'read_file'], schedule: ' 0 3 * * * ', timezone: 'Europe/Berlin', delivery: null }))
      .toBe('a9ac0508bd210ae79a94fbf38f12c2a9796eb1f86ee110654ceefc432a9b5214');
    const agent = { kind: 'agent', prompt: 'Summarise the day' } as unknown as Payload;
    expect(definitionHash({ payload: agent, tools: null, schedule: 'every 1h' })).toBe('d410c407aeaee276e63d1d36fd2e4894293de6a840238c0cf60d6cfd53c459d0');
  });

  it('does not depend on the order or repetition of the tools, nor on spaces around the schedule', () => {
    const steps = { kind: 'steps', steps: [] } as unknown as Payload;
    expect(definitionHash({ payload: steps, tools: ['b', 'a', 'a'], schedule: ' @daily' })).toBe(definitionHash({ payload: steps, tools: ['a', 'b'], schedule: '@daily' }));
  });
});
