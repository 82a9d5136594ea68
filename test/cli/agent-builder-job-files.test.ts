import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { listApprovals } from '../../src/store/approvals.ts';
import { createJob } from '../../src/store/jobs.ts';
import { runCli } from '../support/cli.ts';
import { useTestDatabase } from '../support/db.ts';

const database = useTestDatabase();
const dir = mkdtempSync(join(tmpdir(), 'echo-builder-files-'));
let env: NodeJS.ProcessEnv;
const file = (name: string, text: string) => {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
};

beforeAll(() => {
  // no notify.targets; a request nobody answers is refused after a second
  const config = file('echo-agent.yaml', [
    'database:', `  url: postgres://postgres@127.0.0.1:5432/test?options=-c%20search_path%3D${database().schema}`,
    'tools:', `  workspace: ${dir}`, 'permissions:', '  approval:', '    wait_timeout_seconds: 1', '',
  ].join('\n'));
  env = { ECHO_AGENT_CONFIG: config };
});

const stepsJob = (extra: string) => [
  'name: nightly', 'schedule: "30 2 * * *"', 'payload:', '  kind: steps', '  steps:', '    - tool: list_dir', '      args: { path: . }', extra, '',
].join('\n');

describe('a job file with a bad field, as its author wrote it', () => {
  it('is refused before anyone is asked, naming the file, the line and the field each misspelling meant', async () => {
    const path = file('misspelt.yaml', stepsJob('timeout: 30\nretries: 2'));
    const r = await runCli(['jobs', 'create', '--file', path], { env });
    expect(r.code).toBe(65);
    expect(r.stderr).toContain(`echo-agent: job file ${path}: 2 problems:\n  line 8: timeout: is not a field of a job (did you mean timeout_seconds?)\n  line 9: retries: is not a field of a job (did you mean max_retries?)\n`);
    // not the cronjob tool's argument names, which the file does not have
    expect(r.stderr).not.toContain('options.');
    expect(await listApprovals(database().db)).toHaveLength(0);
  });

  it('names the line of a bad field inside a step, and the field it meant', async () => {
    const path = file('arguments.yaml', ['name: n2', 'schedule: every 5m', 'payload:', '  kind: steps', '  steps:', '    - tool: list_dir', '      arguments: { path: . }', ''].join('\n'));
    const r = await runCli(['jobs', 'create', '--file', path], { env });
    expect(r.code).toBe(65);
    expect(r.stderr).toContain('line 7: payload.steps[0].arguments: is not a field of a step (did you mean args?)');
  });

  it('names the line of a schedule, a tool or a step the checks refuse, in the file\'s words, not as a cronjob call', async () => {
    const path = file('refused.yaml', [
      'name: n3', 'schedule: "61 2 * * *"', 'tools: [list_dir]', 'payload:', '  kind: steps', '  steps:', '    - tool: list_dir', '      args: { path: . }',
      '    - tool: lst_dir', '      args: {}', '',
    ].join('\n'));
    const r = await runCli(['jobs', 'create', '--file', path], { env });
    expect(r.code).toBe(65);
    expect(r.stderr).toContain(`echo-agent: job file ${path}: line 9: payload.steps[1].tool: "lst_dir" is not a known tool (did you mean list_dir?)`);
    expect(r.stderr).not.toContain('invalid arguments for cronjob');
    // no option was given beside the file, so none is mentioned
    expect(r.stderr).not.toContain('with the options given beside it');
    const flagged = await runCli(['jobs', 'create', '--file', file('schedule.yaml', stepsJob('')), '--schedule', '61 2 * * *'], { env });
    expect(flagged.code).toBe(65);
    // the schedule came from the flag: no line of the file is blamed for it
    expect(flagged.stderr).toContain('(with the options given beside it): schedule: "61 2 * * *": minute field "61" is out of range 0–59');
    expect(await listApprovals(database().db)).toHaveLength(0);
  });

  it('on update, names the file\'s line too, judged against the job as it would be', async () => {
    await createJob(database().db, {
      name: 'to-update', owner: 'alice', created_by: 'alice', schedule: '0 3 * * *', timezone: 'UTC', tools: [], paused: false,
      payload: { kind: 'agent', prompt: 'hello' },
    });
    const path = file('tools-in-payload.yaml', ['payload:', '  kind: agent', '  prompt: hello', '  tools: [read_file]', ''].join('\n'));
    const r = await runCli(['jobs', 'update', 'to-update', '--file', path], { env });
    expect(r.code).toBe(65);
    expect(r.stderr).toContain('line 4: payload.tools: is not a field of a job (tools is a top-level field of the job, not of payload)');
  });
});

describe('what a job keeps or leaves out, said before the approval', () => {
  it('a named tool that is not ready here (notify without notify.targets) is named with the missing setting', async () => {
    const path = file('digest.yaml', ['name: digest', 'schedule: "0 7 * * 1-5"', 'payload: { kind: agent, prompt: "write and notify" }', 'tools: [read_file, notify]', ''].join('\n'));
    const r = await runCli(['jobs', 'create', '--file', path], { env });
    expect(r.stderr).toMatch(/warning: the job names tools its runs are not offered under this configuration: notify \(tools\.not_ready: [^)]*notify\.targets\)/);
    expect(r.stderr).toContain('A grant approved now does not cover them');
    // said before the request waited
    expect(r.stderr.indexOf('warning:')).toBeLessThan(r.stderr.indexOf('is waiting'));
  });

  it('jobs update --file names the settings the file leaves out that the update keeps', async () => {
    await createJob(database().db, {
      name: 'kept', owner: 'alice', created_by: 'alice', schedule: '30 2 * * *', timezone: 'Europe/Berlin', tools: [], paused: false,
      payload: { kind: 'steps', steps: [{ tool: 'list_dir', args: { path: '.' } }] }, max_retries: 1, retry_backoff_seconds: 60,
    });
    const path = file('kept.yaml', stepsJob('').replace('name: nightly', 'name: kept'));
    const r = await runCli(['jobs', 'update', 'kept', '--file', path], { env });
    expect(r.stderr).toContain(`note: job file ${path} leaves out settings the job has, and the update keeps them: timezone: "Europe/Berlin", max_retries: 1, retry_backoff_seconds: 60`);
  });

  it('jobs update --file names a payload field the file leaves out that the update keeps (an agent job\'s model)', async () => {
    await createJob(database().db, {
      name: 'modelled', owner: 'alice', created_by: 'alice', schedule: '30 2 * * *', timezone: 'UTC', tools: [], paused: false,
      payload: { kind: 'agent', prompt: 'old prompt', model: 'big-expensive-model' },
    });
    const path = file('modelled.yaml', ['payload:', '  kind: agent', '  prompt: new prompt', ''].join('\n'));
    const r = await runCli(['jobs', 'update', 'modelled', '--file', path], { env });
    expect(r.stderr).toContain('payload.model: "big-expensive-model"');
    expect(r.stderr).not.toContain('payload.prompt');
  });
});
