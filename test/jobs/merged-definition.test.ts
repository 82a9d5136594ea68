import { describe, expect, it } from 'vitest';
import { mergedDefinition } from '../../src/jobs/service.ts';
import type { JobRow } from '../../src/store/schema.ts';
import { CATALOG_BY_NAME } from '../../src/tools/catalog-table.ts';

const checks = { knownTool: (n: string) => CATALOG_BY_NAME.has(n), notifyTargets: ['ops'] };
const stored = {
  name: 'digest', schedule: '0 7 * * *', timezone: 'Europe/Berlin', payload: { kind: 'agent', prompt: 'summarise the news', model: 'small' },
  tools: ['web_search'], delivery: { notify: 'ops' }, overlap_policy: 'skip', misfire_policy: 'run_once', catchup_window_seconds: 3600,
  jitter_seconds: 0, timeout_seconds: 600, max_retries: 0, retry_backoff_seconds: 30, max_runs: null,
} as unknown as JobRow;

describe('a job update keeps what it does not change', () => {
  it('a new prompt keeps the stored model', () => {
    expect(mergedDefinition(stored, { payload: { kind: 'agent', prompt: 'summarise the weather' } }, checks).payload)
      .toEqual({ kind: 'agent', prompt: 'summarise the weather', model: 'small' });
  });

  it('a model alone keeps the stored prompt', () => {
    expect(mergedDefinition(stored, { payload: { kind: 'agent', model: 'large' } as never }, checks).payload)
      .toEqual({ kind: 'agent', prompt: 'summarise the news', model: 'large' });
  });

  it('a payload of another kind replaces the stored one whole', () => {
    const steps = { kind: 'steps' as const, steps: [{ tool: 'web_search', args: {} }] };
    expect(mergedDefinition(stored, { payload: steps }, checks).payload).toEqual(steps);
  });

  it('other fields stay as stored', () => {
    const def = mergedDefinition(stored, { schedule: 'every 1h' }, checks);
    expect(def).toMatchObject({ schedule: 'every 1h', timezone: 'Europe/Berlin', tools: ['web_search'], delivery: { notify: 'ops' } });
  });

  it('refuses an update that names no field', () => {
    expect(() => mergedDefinition(stored, {}, checks)).toThrow(/names no field to change/);
  });
});

describe('a job name', () => {
  it('may not be shaped like a job id, which job commands would take for one', () => {
    expect(() => mergedDefinition(stored, { name: 'job_wk4lsjyevih3gf5myzokkgruzm' }, checks)).toThrow(/name: .*shaped like a job id/);
    expect(mergedDefinition(stored, { name: 'job_report' }, checks).name).toBe('job_report');
  });
});
