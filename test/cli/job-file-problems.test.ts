import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { listApprovals } from '../../src/store/approvals.ts';
import { createJob } from '../../src/store/jobs.ts';
import { runCli } from '../support/cli.ts';
import { useTestDatabase } from '../support/db.ts';

// How `jobs create` and `jobs update` say what is wrong with a job: each problem with its field and, where the
// field came from a file, its line; one problem a line, in line order; warnings only for a job that can be created.
// No model is configured, so a valid agent job draws the "no model" warning.
const database = useTestDatabase();
const dir = mkdtempSync(join(tmpdir(), 'echo-job-file-problems-'));
let env: NodeJS.ProcessEnv;
const file = (name: string, lines: readonly string[]) => {
  const path = join(dir, name);
  writeFileSync(path, `${lines.join('\n')}\n`);
  return path;
};
const agentJob = (name: string, ...extra: string[]) => [`name: ${name}`, 'schedule: "30 2 * * *"', 'payload:', '  kind: agent', '  prompt: summarise the day', ...extra];

beforeAll(async () => {
  // a request nobody answers is refused after a second
  const config = file('echo-agent.yaml', [
    'database:', `  url: postgres://postgres@127.0.0.1:5432/test?options=-c%20search_path%3D${database().schema}`,
    'tools:', `  workspace: ${dir}`, 'permissions:', '  approval:', '    wait_timeout_seconds: 1',
  ]);
  env = { ECHO_AGENT_CONFIG: config };
  await createJob(database().db, {
    name: 'existing', owner: 'alice', created_by: 'alice', schedule: '0 3 * * *', timezone: 'UTC', tools: [], paused: false,
    payload: { kind: 'agent', prompt: 'hello' },
  });
});

describe('a misspelt time zone', () => {
  it('is named with its line in the job file and the zone it most likely meant', async () => {
    const path = file('tz.yaml', agentJob('tz', 'timezone: Europe/Berln'));
    const r = await runCli(['jobs', 'create', '--file', path], { env });
    expect(r.code).toBe(65);
    expect(r.stderr).toBe(`echo-agent: job file ${path}: line 6: timezone: "Europe/Berln" is not an IANA time zone (did you mean Europe/Berlin?)\n`);
  });

  it('given as a flag, on create or update, is named the same way, without a line', async () => {
    const created = await runCli(['jobs', 'create', '--name', 'tz-flag', '--schedule', '0 3 * * *', '--prompt', 'x', '--timezone', 'europe/pariss'], { env });
    expect(created.code).toBe(65);
    expect(created.stderr).toBe('echo-agent: jobs create: timezone: "europe/pariss" is not an IANA time zone (did you mean Europe/Paris?)\n');
    const updated = await runCli(['jobs', 'update', 'existing', '--timezone', 'Europe/Berln'], { env });
    expect(updated.code).toBe(65);
    expect(updated.stderr).toBe('echo-agent: jobs update existing: timezone: "Europe/Berln" is not an IANA time zone (did you mean Europe/Berlin?)\n');
  });
});

describe('a value that is not one of the choices', () => {
  it('is echoed with the choices and the one it most likely meant', async () => {
    const path = file('enum.yaml', agentJob('enum', 'overlap_policy: skipp', 'timeout_seconds: 30s'));
    const r = await runCli(['jobs', 'create', '--file', path], { env });
    expect(r.code).toBe(65);
    expect(r.stderr).toContain('line 6: overlap_policy: expected one of skip, buffer_one, allow, cancel_other, got "skipp" (did you mean skip?)');
    // a value of the wrong type is echoed too
    expect(r.stderr).toContain('line 7: timeout_seconds: expected a whole number, got "30s"');
    expect(r.stderr).not.toMatch(/Invalid (option|input)/);
  });
});

describe('an empty text', () => {
  it('"must not be empty", not the schema library\'s "at least 1 characters"', async () => {
    const path = file('empty.yaml', ['name: ""', 'schedule: "30 2 * * *"', 'payload:', '  kind: agent', '  prompt: ""']);
    const r = await runCli(['jobs', 'create', '--file', path], { env });
    expect(r.code).toBe(65);
    expect(r.stderr).toContain('line 1: name: must not be empty');
    expect(r.stderr).toContain('line 5: payload.prompt: must not be empty');
    expect(r.stderr).not.toMatch(/at least 1 characters?/);
  });
});

describe('a job file that is not valid YAML', () => {
  it('shows the parser\'s whole reason with its line and column, not a message cut after "column 1:"', async () => {
    const path = file('dup.yaml', ['name: a', 'name: b', 'schedule: "30 2 * * *"']);
    const r = await runCli(['jobs', 'create', '--file', path], { env });
    expect(r.code).toBe(65);
    expect(r.stderr).toBe(`echo-agent: job file ${path}: not valid YAML/JSON: line 2, column 1: Map keys must be unique\n`);
  });

  it('names each of the parser\'s problems on a line of its own', async () => {
    const path = file('nested.yaml', ['name: broken', 'schedule: "30 2 * * *"', 'payload:', '  kind: agent', '   prompt: x']);
    const r = await runCli(['jobs', 'create', '--file', path], { env });
    expect(r.code).toBe(65);
    expect(r.stderr).toContain(`echo-agent: job file ${path}: not valid YAML/JSON: 2 problems:\n  line 4, column 9: Nested mappings are not allowed in compact mappings\n`);
    expect(r.stderr).not.toMatch(/column \d+:\n(?! {2}line)/);
  });
});

describe('several problems', () => {
  it('are each on a line of their own, in the order of their lines in the file', async () => {
    // the schema reports them in its own field order, not the file's
    const path = file('multi.yaml', [...agentJob('multi'), 'misfire_policy: nope', 'overlap_policy: skipp', 'timeout_seconds: 0'].map((l) => l.replace('summarise the day', '""')));
    const r = await runCli(['jobs', 'create', '--file', path], { env });
    expect(r.code).toBe(65);
    expect(r.stderr).toBe([
      `echo-agent: job file ${path}: 4 problems:`,
      '  line 5: payload.prompt: must not be empty',
      '  line 6: misfire_policy: expected one of skip, run_once, run_all, got "nope"',
      '  line 7: overlap_policy: expected one of skip, buffer_one, allow, cancel_other, got "skipp" (did you mean skip?)',
      '  line 8: timeout_seconds: at least 1', '',
    ].join('\n'));
  });

  it('from flags and a steps file: the steps file\'s line for a step, and the flag\'s problems after them', async () => {
    const steps = file('steps.yaml', ['- tool: list_dir', '  args: { path: . }', '- tool: ""']);
    const r = await runCli(['jobs', 'create', '--name', 'flagged', '--schedule', '0 3 * * *', '--timezone', 'Europe/Berln', '--steps', steps], { env });
    expect(r.code).toBe(65);
    expect(r.stderr).toBe([
      'echo-agent: jobs create: 2 problems:',
      `  steps file ${steps}, line 3: payload.steps[1].tool: must not be empty`,
      '  timezone: "Europe/Berln" is not an IANA time zone (did you mean Europe/Berlin?)', '',
    ].join('\n'));
  });

  it('found by the tool\'s own checks are split at each problem, not inside one', async () => {
    const path = file('outside.yaml', [
      'name: outside', 'schedule: "30 2 * * *"', 'tools: [list_dir]', 'payload:', '  kind: steps', '  steps:',
      '    - tool: write_file', '      args: { path: x, content: y }', '    - tool: lst_dir',
    ]);
    const r = await runCli(['jobs', 'create', '--file', path], { env });
    expect(r.code).toBe(65);
    expect(r.stderr).toBe([
      `echo-agent: job file ${path}: 2 problems:`,
      '  line 7: payload.steps[0] (write_file): not in the job\'s tools [list_dir], so every run would refuse this step (context.allowed_tools); add write_file to tools',
      '  line 9: payload.steps[1].tool: "lst_dir" is not a known tool (did you mean list_dir?)', '',
    ].join('\n'));
  });
});

describe('warnings about later runs', () => {
  it('are not printed for a job that is refused: only its problems are', async () => {
    const path = file('refused-agent.yaml', agentJob('refused-agent', 'timezone: Europe/Berln'));
    const r = await runCli(['jobs', 'create', '--file', path], { env });
    expect(r.code).toBe(65);
    expect(r.stderr).not.toContain('warning:');
    // refused by the tool's checks rather than the schema: no warning either
    const tool = await runCli(['jobs', 'create', '--name', 'refused-tool', '--schedule', '0 3 * * *', '--prompt', 'x', '--tools', 'list_dir,red_file'], { env });
    expect(tool.code).toBe(65);
    expect(tool.stderr).toBe('echo-agent: jobs create: tools[1]: "red_file" is not a known tool (did you mean read_file?)\n');
    expect(await listApprovals(database().db)).toHaveLength(0);
  });

  it('are still printed for a job that is valid', async () => {
    const path = file('valid-agent.yaml', agentJob('valid-agent', 'timezone: Europe/Berlin'));
    const r = await runCli(['jobs', 'create', '--file', path], { env });
    expect(r.stderr).toContain('warning: this configuration has no model.base_url or model.name');
  });
});
