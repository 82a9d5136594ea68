import { describe, expect, it } from 'vitest';
import { meantParameter } from '../../src/jobs/near-words.ts';
import { CATALOG_BY_NAME } from '../../src/tools/catalog-table.ts';
import { validateParams } from '../../src/tools/validate.ts';
import { definitionShapeIssues } from '../../src/jobs/service.ts';
import { baseDefinition } from '../support/job-definitions.ts';

// A mistyped argument names the parameter it most likely meant, as a mistyped tool or job field does.
const said = (tool: string, args: unknown) => validateParams(CATALOG_BY_NAME.get(tool)!.parameters, args);

describe('an unknown tool argument', () => {
  it('is paired with the required one its typo left missing', () => {
    expect(said('write_file', { paht: 'a.txt', contents: 'x' })).toBe([
      'path: is required', 'content: is required',
      'paht: is not a known parameter (did you mean path?)', 'contents: is not a known parameter (did you mean content?)',
    ].join('; '));
  });

  it('an abbreviation of a missing required one is that one, not a closer optional one (cmd: command, not cwd)', () => {
    expect(said('exec', { cmd: 'ls' })).toBe('command: is required; cmd: is not a known parameter (did you mean command?)');
  });

  it('else a near optional parameter not given', () => {
    expect(said('read_file', { path: 'a', offest: 3 })).toBe('offest: is not a known parameter (did you mean offset?)');
  });

  it('a parameter already given is not suggested, and nothing near gets no hint', () => {
    expect(said('write_file', { path: 'a', content: 'x', paht: 'b' })).toBe('paht: is not a known parameter');
    expect(said('write_file', { file: 'a', text: 'x' })).toBe('path: is required; content: is required; file: is not a known parameter; text: is not a known parameter');
  });

  it('a parameter that belongs under another keeps saying where, with no guess beside it', () => {
    expect(said('cronjob', { action: 'create', tools: ['read_file'] })).toBe('tools: is not a known parameter; put it under options');
  });

  it('meantParameter prefers the missing ones', () => {
    expect(meantParameter('paht', ['path'], ['patch', 'path'])).toBe('path');
    expect(meantParameter('zzz', ['path'], ['mode'])).toBeUndefined();
  });
});

describe('a step\'s unknown field', () => {
  it('is not a field of a step; a job\'s own unknown field is not a field of a job', () => {
    const texts = (d: unknown) => definitionShapeIssues(d as never).map((i) => i.text);
    expect(texts({ ...baseDefinition, payload: { kind: 'steps', steps: [{ tool: 'list_dir', params: { path: '.' } }] } }))
      .toEqual(['payload.steps[0].params: is not a field of a step (did you mean args?)']);
    expect(texts({ ...baseDefinition, payload: { kind: 'steps', steps: [{ tool: 'list_dir', args: { path: '.' }, max_retries: 2 }] } }))
      .toEqual(['payload.steps[0].max_retries: is not a field of a step (max_retries is a top-level field of the job, not of payload.steps[0])']);
    expect(texts({ ...baseDefinition, colour: 'blue' })).toEqual(['colour: is not a field of a job']);
  });
});
