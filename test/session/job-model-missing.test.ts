import { describe, expect, it } from 'vitest';
import { defaultConfig } from '../../src/config/schema.ts';
import { jobModelMissing, type PayloadShape } from '../../src/session/job-preview.ts';

const noModel = defaultConfig();
const withModel = defaultConfig({ model: { base_url: 'http://127.0.0.1:9/v1', name: 'small' } });
const steps = (...s: { tool: string; args?: unknown }[]): PayloadShape => ({ kind: 'steps', steps: s });
const wf = (...s: { tool: string; args?: unknown }[]) => ({ tool: 'workflow', args: { action: 'create', name: 'w', steps: s } });

describe('which jobs need a model (the create warning, grants show)', () => {
  it.each<[string, PayloadShape, boolean]>([
    ['an agent job', { kind: 'agent' }, true],
    ['steps that only read and write', steps({ tool: 'read_file' }, { tool: 'write_file' }), false],
    ['a step delegating to a sub-agent', steps({ tool: 'delegate_task', args: { prompt: 'x' } }), true],
    ['a step spawning a background agent', steps({ tool: 'spawn_task', args: { prompt: 'x' } }), true],
    ['a task created (its job is an agent job)', steps({ tool: 'task', args: { action: 'create', title: 't', prompt: 'x' } }), true],
    ['a task listed', steps({ tool: 'task', args: { action: 'list' } }), false],
    // the job a workflow creates runs its own steps
    ['a workflow of plain steps', steps(wf({ tool: 'list_dir', args: { path: '.' } })), false],
    ['a workflow with a sub-agent step', steps(wf({ tool: 'delegate_task', args: { prompt: 'x' } })), true],
    ['a workflow of a workflow with a task created', steps(wf(wf({ tool: 'task', args: { action: 'create', prompt: 'x' } }))), true],
  ])('%s: needs one=%s', (_what, payload, needs) => {
    expect(jobModelMissing(noModel, payload).length > 0).toBe(needs);
    expect(jobModelMissing(withModel, payload)).toEqual([]);
  });
});
