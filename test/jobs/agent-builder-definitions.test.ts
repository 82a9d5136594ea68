import { describe, expect, it } from 'vitest';
import { baseDefinition, definitionProblem } from '../support/job-definitions.ts';
import { definitionShapeIssues } from '../../src/jobs/service.ts';

const base = baseDefinition;
const problem = definitionProblem;

describe('what an agent builder is told about a job definition', () => {
  it('a misspelt tool name, in tools or in a step, names the tool it most likely meant', () => {
    expect(problem({ ...base, tools: ['list_dir', 'red_file'] })).toContain('tools[1]: "red_file" is not a known tool (did you mean read_file?)');
    expect(problem({ ...base, payload: { kind: 'steps', steps: [{ tool: 'list_dirs', args: {} }] } }))
      .toContain('payload.steps[0].tool: "list_dirs" is not a known tool (did you mean list_dir?)');
  });

  it('a step written with "arguments" (the OpenAI word) is told the field is args', () => {
    expect(problem({ ...base, payload: { kind: 'steps', steps: [{ tool: 'list_dir', arguments: { path: '.' } }] } }))
      .toContain('payload.steps[0].arguments: is not a field of a step (did you mean args?)');
  });

  it('a top-level field written inside the payload is told where it belongs', () => {
    expect(problem({ ...base, payload: { kind: 'agent', prompt: 'x', tools: ['read_file'] } }))
      .toContain('payload.tools: is not a field of a job (tools is a top-level field of the job, not of payload)');
  });

  it('a field named like an Object method is no field, with no invented suggestion', () => {
    const got = problem({ ...base, payload: { kind: 'steps', steps: [{ tool: 'list_dir', constructor: 1 }] } });
    expect(got).toContain('payload.steps[0].constructor: is not a field of a step');
    expect(got).not.toContain('did you mean');
  });

  it('shape issues carry the path into the definition, for a file line to be found', () => {
    expect(definitionShapeIssues({ ...base, timeout: 30 } as never)).toEqual([
      { path: ['timeout'], text: 'timeout: is not a field of a job (did you mean timeout_seconds?)' },
    ]);
  });
});
