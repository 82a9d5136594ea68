import type { NewJob } from '../../src/store/jobs.ts';

/** A minimal steps job; override any field. */
export function aJob(over: Partial<NewJob> = {}): NewJob {
  return {
    name: 'nightly report',
    owner: 'alice',
    created_by: 'alice',
    schedule: '0 3 * * *',
    timezone: 'Europe/Berlin',
    payload: { kind: 'steps', steps: [{ tool: 'read_file', args: { path: 'README.md' } }] },
    tools: ['read_file', 'notify'],
    ...over,
  };
}
