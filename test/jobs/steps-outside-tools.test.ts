import { describe, expect, it } from 'vitest';
import { mergedDefinition, parseDefinition } from '../../src/jobs/service.ts';
import type { JobRow } from '../../src/store/schema.ts';
import { CATALOG_BY_NAME } from '../../src/tools/catalog-table.ts';

const checks = { knownTool: (n: string) => CATALOG_BY_NAME.has(n), notifyTargets: [] };
const steps = (...tools: string[]) => ({ kind: 'steps' as const, steps: tools.map((tool) => ({ tool, args: {} })) });
const def = (tools: string[], payload = steps('list_dir', 'write_file')) => ({ name: 'n', schedule: '0 3 * * *', payload, tools });

describe('a steps job calls only tools its own tools list lets its runs use', () => {
  it('refuses a step outside a non-empty tools list, naming the step, the tool and the list', () => {
    expect(() => parseDefinition(def(['list_dir']), checks)).toThrow(
      'payload.steps[1] (write_file): not in the job\'s tools [list_dir], so every run would refuse this step (context.allowed_tools); add write_file to tools',
    );
  });

  it('takes an empty tools list as the default set, and a list that names every step', () => {
    expect(parseDefinition(def([]), checks).tools).toEqual([]);
    expect(parseDefinition(def(['list_dir', 'write_file', 'read_file']), checks).payload).toEqual(steps('list_dir', 'write_file'));
  });

  it('an agent job\'s tools list is the model\'s choice, not checked against anything', () => {
    expect(parseDefinition(def(['read_file'], { kind: 'agent', prompt: 'x' } as never), checks).tools).toEqual(['read_file']);
  });

  it('an update that narrows the tools below the steps is refused too', () => {
    const stored = {
      ...def(['list_dir', 'write_file']), timezone: 'UTC', delivery: null, overlap_policy: 'skip', misfire_policy: 'run_once', catchup_window_seconds: 3600,
      jitter_seconds: 0, timeout_seconds: 600, max_retries: 0, retry_backoff_seconds: 30, max_runs: null,
    } as unknown as JobRow;
    expect(() => mergedDefinition(stored, { tools: ['list_dir'] }, checks)).toThrow(/payload\.steps\[1\] \(write_file\): not in the job's tools \[list_dir\]/);
    expect(mergedDefinition(stored, { tools: ['write_file', 'list_dir'] }, checks).tools).toEqual(['write_file', 'list_dir']);
  });
});
