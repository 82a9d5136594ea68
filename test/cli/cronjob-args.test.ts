import { describe, expect, it } from 'vitest';
import { cronjobArgs } from '../../src/cli/commands/jobs.ts';
import { ROOT } from '../support/cli.ts';

describe('jobs create/update flags as a cronjob call', () => {
  it('--model with a --file whose payload is an agent prompt sets that payload\'s model', () => {
    const args = cronjobArgs('create', { file: `${ROOT}/jobs/morning-digest.yaml`, model: 'large' });
    expect(args.payload).toMatchObject({ kind: 'agent', prompt: expect.stringContaining('digest'), model: 'large' });
  });

  it('--model with a steps file, or with no agent payload at all, is refused', () => {
    expect(() => cronjobArgs('create', { file: `${ROOT}/jobs/heartbeat.yaml`, model: 'large' })).toThrow(/--model: is for an agent payload/);
    expect(() => cronjobArgs('create', { name: 'm', schedule: 'every 5m', model: 'large' })).toThrow(/--model: is for an agent payload/);
  });
});
