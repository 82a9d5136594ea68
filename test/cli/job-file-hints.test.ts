import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { joinedProblems, splitProblems } from '../../src/cli/job-file-problems.ts';
import { listApprovals } from '../../src/store/approvals.ts';
import { runCli } from '../support/cli.ts';
import { useTestDatabase } from '../support/db.ts';

// What a builder reads when a job file is wrong: each of a step's argument problems with the step and its line,
// the real fix rather than the word they wrote echoed back, one limit, and the product's words, not the schema
// library's. Every case is refused before anyone is asked (exit 65, no request).
const database = useTestDatabase();
const dir = mkdtempSync(join(tmpdir(), 'echo-job-hints-'));
let env: NodeJS.ProcessEnv;
const file = (name: string, lines: readonly string[]) => {
  const path = join(dir, name);
  writeFileSync(path, `${lines.join('\n')}\n`);
  return path;
};
const head = (name: string) => [`name: ${name}`, 'schedule: "0 3 * * *"'];

beforeAll(() => {
  const config = file('echo-agent.yaml', [
    'database:', `  url: postgres://postgres@127.0.0.1:5432/test?options=-c%20search_path%3D${database().schema}`,
    'tools:', `  workspace: ${dir}`, 'permissions:', '  approval:', '    wait_timeout_seconds: 1',
  ]);
  env = { ECHO_AGENT_CONFIG: config };
});

async function refused(path: string): Promise<string> {
  const r = await runCli(['jobs', 'create', '--file', path], { env });
  expect(r.code, r.stderr).toBe(65);
  expect(await listApprovals(database().db)).toEqual([]);
  return r.stderr;
}

describe('a step\'s argument problems', () => {
  it('are one problem each, every one naming the step and its line', async () => {
    const path = file('badargs.yaml', [...head('badargs'), 'tools: [write_file]', 'payload:', '  kind: steps', '  steps:', '    - tool: write_file', '      args: { file: out.txt, text: hi }']);
    expect(await refused(path)).toBe([
      `echo-agent: job file ${path}: 4 problems:`,
      '  line 8: payload.steps[0] (write_file): invalid arguments: path: is required',
      '  line 8: payload.steps[0] (write_file): invalid arguments: content: is required',
      '  line 8: payload.steps[0] (write_file): invalid arguments: file: is not a known parameter',
      '  line 8: payload.steps[0] (write_file): invalid arguments: text: is not a known parameter', '',
    ].join('\n'));
  });

  it('keep their own line when the arguments are on lines of their own', async () => {
    const path = file('badargs-block.yaml', [...head('block'), 'payload:', '  kind: steps', '  steps:', '    - tool: write_file', '      args:', '        path: out.txt', '        text: hi']);
    const said = await refused(path);
    expect(said).toContain('  line 7: payload.steps[0] (write_file): invalid arguments: content: is required\n');
    expect(said).toContain('  line 9: payload.steps[0] (write_file): invalid arguments: text: is not a known parameter\n');
  });

  it('come apart from the next step\'s and the next field\'s problems', () => {
    expect(joinedProblems('payload.steps[0] (write_file): invalid arguments: path: is required; content: is required; payload.steps[1].tool: "x" is not a known tool; add x to tools'))
      .toEqual([
        { path: ['payload', 'steps', 0, 'args', 'path'], text: 'payload.steps[0] (write_file): invalid arguments: path: is required' },
        { path: ['payload', 'steps', 0, 'args', 'content'], text: 'payload.steps[0] (write_file): invalid arguments: content: is required' },
        { path: ['payload', 'steps', 1, 'tool'], text: 'payload.steps[1].tool: "x" is not a known tool; add x to tools' },
      ]);
    expect(splitProblems('payload.steps[0] (notify): invalid arguments: extra: is not a known parameter; put it under options; timezone "X": bad'))
      .toEqual(['payload.steps[0] (notify): invalid arguments: extra: is not a known parameter; put it under options', 'timezone "X": bad']);
  });
});

describe('a field the payload\'s kind does not take', () => {
  it('steps in an agent payload: the kind is what to change, not "did you mean steps?"', async () => {
    const said = await refused(file('agent-steps.yaml', [...head('agent-steps'), 'payload:', '  kind: agent', '  prompt: hi', '  steps: []']));
    expect(said).toContain('line 6: payload.steps: an agent payload takes a prompt, not steps; for a list of steps, write kind: steps');
    expect(said).not.toContain('did you mean steps?');
  });

  it('a prompt in a steps payload: the same, the other way round', async () => {
    const said = await refused(file('steps-prompt.yaml', [...head('steps-prompt'), 'payload:', '  kind: steps', '  prompt: hi', '  steps: [{ tool: list_dir }]']));
    expect(said).toContain('line 5: payload.prompt: a steps payload takes steps, not a prompt; for a prompt the model follows, write kind: agent');
    expect(said).not.toContain('did you mean prompt?');
  });
});

describe('values of the wrong kind, in the product\'s words', () => {
  it('a huge whole number gets one limit, the field\'s own', async () => {
    const said = await refused(file('huge.yaml', [...head('huge'), 'max_runs: 1e20', 'payload: { kind: agent, prompt: x }']));
    expect(said).toBe(`echo-agent: job file ${join(dir, 'huge.yaml')}: line 3: max_runs: at most 2147483647\n`);
  });

  it('tools, delivery, a step and its args each say what to write, never "Invalid input: expected …, received …"', async () => {
    const said = await refused(file('types.yaml', [
      ...head('types'), 'tools: list_dir', 'delivery: none', 'payload:', '  kind: steps', '  steps:', '    - tool: read_file', '      args: "README.md"', '    - list_dir',
    ]));
    expect(said).toContain('line 3: tools: expected a list of tool names, got "list_dir"; write tools: [list_dir], or leave tools out for the default set');
    expect(said).toContain('line 4: delivery: expected { notify: TARGET }, got "none"; leave delivery out (or write delivery: null) for no delivery');
    expect(said).toContain('line 9: payload.steps[0].args: expected a mapping of the tool\'s arguments, got "README.md"; write them as a mapping, e.g. args: { path: README.md }');
    expect(said).toContain('line 10: payload.steps[1]: expected a step { tool, args }, got "list_dir"');
    expect(said).not.toMatch(/Invalid input|received/);
  });
});

describe('names other schedulers and shells use', () => {
  it('retries: did you mean max_retries?', async () => {
    expect(await refused(file('retries.yaml', [...head('retries'), 'retries: 3', 'payload: { kind: agent, prompt: x }'])))
      .toContain('line 3: retries: is not a field of a job (did you mean max_retries?)');
  });

  it('list_directory: did you mean list_dir?', async () => {
    expect(await refused(file('list-directory.yaml', [...head('ls'), 'payload:', '  kind: steps', '  steps:', '    - tool: list_directory'])))
      .toContain('line 6: payload.steps[0].tool: "list_directory" is not a known tool (did you mean list_dir?)');
  });
});
