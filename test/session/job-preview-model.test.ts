import { describe, expect, it } from 'vitest';
import { defaultConfig } from '../../src/config/schema.ts';
import { builtinTools } from '../../src/daemon/daemon-tools.ts';
import { describeJobCall } from '../../src/session/job-preview.ts';
import { useTestDatabase } from '../support/db.ts';

const database = useTestDatabase();

describe('what an approver is shown of an agent job\'s model', () => {
  const shown = (config: ReturnType<typeof defaultConfig>, payload: Record<string, unknown>) =>
    describeJobCall(config, builtinTools(config, { db: database().db }), { action: 'create', name: 'y', schedule: 'every 1m', payload }).join('\n');

  it('a model the job names is shown as its own', () => {
    expect(shown(defaultConfig(), { kind: 'agent', prompt: 'p', model: 'gpt-small' })).toContain('  model: gpt-small (named by the job)');
  });

  it('a model left to the configuration is named, with a warning that it may change without a new approval', () => {
    const text = shown(defaultConfig({ model: { base_url: 'http://127.0.0.1:9/v1', name: 'big-one' } }), { kind: 'agent', prompt: 'p' });
    expect(text).toContain('  model: the configuration\'s model.name (big-one here now), which may change without a new approval');
  });

  it('a steps job shows no model line', () => {
    expect(shown(defaultConfig(), { kind: 'steps', steps: [{ tool: 'list_dir', args: {} }] })).not.toContain('model:');
  });
});
