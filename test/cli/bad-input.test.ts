import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { listApprovals } from '../../src/store/approvals.ts';
import { createJob } from '../../src/store/jobs.ts';
import { runCli } from '../support/cli.ts';
import { useTestDatabase } from '../support/db.ts';

const database = useTestDatabase();
const dir = mkdtempSync(join(tmpdir(), 'echo-bad-input-'));
const configFile = join(dir, 'echo-agent.yaml');
let env: NodeJS.ProcessEnv = {};
let jobId = '';

const jobFile = (name: string, extra: string) => {
  const file = join(dir, `${name}.yaml`);
  writeFileSync(file, `name: ${name}\nschedule: "0 3 * * *"\npayload:\n  kind: steps\n  steps:\n    - tool: list_dir\n      args: { path: . }\n${extra}`);
  return file;
};

beforeAll(async () => {
  const { schema, db } = database();
  // a short wait: a create that wrongly went on to ask a human fails fast instead of hanging
  writeFileSync(configFile, [
    'database:', `  url: postgres://postgres@127.0.0.1:5432/test?options=-c%20search_path%3D${schema}`,
    'permissions:', '  approval:', '    wait_timeout_seconds: 3',
    'notify:', '  targets:', '    ops: { url: "https://hooks.example.com/x" }', '',
  ].join('\n'));
  env = { ECHO_AGENT_CONFIG: configFile };
  const job = await createJob(db, {
    name: 'agent-job', owner: 'alice', created_by: 'alice', schedule: '0 3 * * *', timezone: 'UTC', tools: [], paused: false,
    payload: { kind: 'agent', prompt: 'summarise', model: 'small' },
  });
  jobId = job.id;
});

describe('a job definition is checked before anyone is asked to approve it', () => {
  it.each([
    ['a misspelt policy', 'overlap_policy: skipp\n', /overlap_policy/],
    ['an unknown key', 'timeout_secnds: 30\n', /timeout_secnds/],
    ['a timeout past the timer limit', 'timeout_seconds: 3000000\n', /timeout_seconds/],
    ['a jitter past the integer column', 'jitter_seconds: 3000000000\n', /jitter_seconds/],
    ['an unknown tool in the tool set', 'tools: [list_dir, wirte_file]\n', /tools\[1\]: "wirte_file" is not a known tool/],
    ['a delivery target that is not configured', 'delivery: { notify: opps }\n', /delivery\.notify: "opps" is not a configured notify target \(known: ops\)/],
  ])('%s: exit 65 with the field and the file named, and no approval request', async (_what, extra, message) => {
    const file = jobFile(`bad-${Math.random().toString(36).slice(2, 8)}`, extra);
    const r = await runCli(['jobs', 'create', '--file', file, '--as', 'alice'], { env });
    expect(r.stderr).toMatch(message);
    expect(r.stderr).toContain(`job file ${file}: `);
    expect(r.code).toBe(65);
    expect(await listApprovals(database().db)).toEqual([]);
  }, 30_000);

  it('refuses a schedule that would never fire (an "at" instant in the past)', async () => {
    const r = await runCli(['jobs', 'create', '--name', 'late', '--schedule', 'at 2020-01-01T00:00:00Z', '--prompt', 'x'], { env });
    expect(r.stderr).toMatch(/schedule: has no instant after now/);
    expect(r.code).toBe(65);
    // with --json the outcome is JSON on stdout, and the error is on stderr all the same
    const json = await runCli(['jobs', 'create', '--name', 'late', '--schedule', 'at 2020-01-01T00:00:00Z', '--prompt', 'x', '--json'], { env });
    expect(json.code).toBe(65);
    expect(json.stderr).toMatch(/schedule: has no instant after now/);
    expect(JSON.parse(json.stdout)).toMatchObject({ result: { success: false } });
  });

  it('names an unknown step tool', async () => {
    const file = join(dir, 'bad-step.yaml');
    writeFileSync(file, 'name: s\nschedule: "0 3 * * *"\npayload:\n  kind: steps\n  steps:\n    - tool: list_dri\n');
    const r = await runCli(['jobs', 'create', '--file', file], { env });
    expect(r.stderr).toMatch(/payload\.steps\[0\]\.tool: "list_dri" is not a known tool/);
    expect(r.code).toBe(65);
  });

  it('lists the payload kinds when the kind is wrong', async () => {
    const file = join(dir, 'bad-kind.yaml');
    writeFileSync(file, 'name: k\nschedule: "0 3 * * *"\npayload: { kind: stepz }\n');
    const r = await runCli(['jobs', 'create', '--file', file], { env });
    expect(r.stderr).toMatch(/payload\.kind: expected kind "steps".*or "agent"/);
    expect(r.code).toBe(65);
  });

  it('refuses an update that changes nothing, and one of a job that does not exist', async () => {
    const empty = await runCli(['jobs', 'update', jobId], { env });
    expect(empty.stderr).toMatch(/names no field to change/);
    expect(empty.code).toBe(64);
    const missing = await runCli(['jobs', 'update', 'job_nosuch', '--name', 'x'], { env });
    expect(missing.stderr).toMatch(/no job with id or name "job_nosuch"/);
    expect(missing.code).toBe(1);
    expect(await listApprovals(database().db)).toEqual([]);
  });

  it('refuses --tools with no names instead of meaning the default set', async () => {
    const r = await runCli(['jobs', 'update', jobId, '--tools', ' , '], { env });
    expect(r.stderr).toMatch(/--tools: names no tool/);
    expect(r.code).toBe(64);
  });

  it('refuses --model without an agent prompt on create', async () => {
    const r = await runCli(['jobs', 'create', '--name', 'm', '--schedule', 'every 5m', '--model', 'gpt'], { env });
    expect(r.stderr).toMatch(/--model: is for an agent payload/);
    expect(r.code).toBe(64);
  });

  it('says a missing job file is missing (66, EX_NOINPUT)', async () => {
    const r = await runCli(['jobs', 'create', '--file', join(dir, 'nope.yaml')], { env });
    expect(r.stderr).toMatch(/nope\.yaml: cannot read \(no such file\)/);
    expect(r.code).toBe(66);
  });

  it.each([
    ['a device that never ends', () => '/dev/zero'],
    ['a file of 2 MiB', () => { const f = join(dir, 'huge.yaml'); writeFileSync(f, `name: x\n# ${'y'.repeat(2 * 1024 * 1024)}\n`); return f; }],
  ])('refuses %s as a job file before reading it all (65, EX_DATAERR)', async (_what, file) => {
    const path = file();
    const r = await runCli(['jobs', 'create', '--file', path], { env });
    expect(r.stderr).toBe(`echo-agent: job file ${path}: larger than 1 MiB; a job is a few kilobytes of YAML or JSON\n`);
    expect(r.code).toBe(65);
  });
});

describe('options are exact', () => {
  it.each([
    [['audit', 'list', '--since', '1'], /--since: expected an ISO-8601 date/],
    [['audit', 'list', '--since', '2024-02-30'], /--since: no such calendar date/],
    [['audit', 'list', '--since', '2024-06-01T10:00'], /--since: an instant needs Z or an offset/],
    [['audit', 'list', '--limit', '0x10'], /--limit: expected a whole number from 1 to 10000/],
    [['audit', 'list', '--limit', '1e20'], /--limit: expected a whole number/],
    [['jobs', 'runs', 'job_x', '--limit', '0'], /--limit: expected a whole number/],
    [['approvals', 'list', '--limit', '-1'], /--limit/],
    [['jobs', 'remove', 'job_x', '--note', 'obsolete'], /unknown option '--note'/],
    [['audit', 'verify', '--head', '12'], /--head: expected SEQ:HASH/],
    [['jobs', 'resume', 'job_x', '--why', 'x'], /unknown option '--why'/],
    [['jobs', 'list', '--as', ''], /unknown option|--as/],
    [['jobs', 'pause', 'job_x', '--as', ' '], /--as: is empty/],
  ])('%j exits 64 naming the option', async (args, message) => {
    const r = await runCli(args, { env });
    expect(r.stderr).toMatch(message);
    expect(r.code).toBe(64);
  });

  it('accepts a date and an instant with an offset', async () => {
    for (const since of ['2024-06-01', '2024-06-01T10:00:00+02:00', '2024-06-01T10:00Z']) {
      const r = await runCli(['audit', 'list', '--since', since, '--json'], { env });
      expect(r.code, r.stderr).toBe(0);
      expect(Array.isArray(JSON.parse(r.stdout))).toBe(true);
    }
  });

  it('refuses an empty --config rather than falling back to another file', async () => {
    const r = await runCli(['--config', '', 'tools', 'list'], { env });
    expect(r.stderr).toMatch(/--config[\s\S]*is empty/);
    expect(r.code).toBe(78);
  });

  it.each([[[]], [['jobs']], [['check']]])('a missing sub-command (%j) is a usage error, --help is not', async (args) => {
    expect((await runCli(args, { env })).code).toBe(64);
    expect((await runCli([...args, '--help'], { env })).code).toBe(0);
  });
});

describe('unknown ids are errors', () => {
  it.each([
    [['jobs', 'runs', 'job_nosuch']],
    [['grants', 'list', '--job', 'job_nosuch']],
    [['jobs', 'show', 'job_nosuch']],
    [['grants', 'show', 'job_nosuch']],
  ])('%j exits 1 with "no job with id or name"', async (args) => {
    const r = await runCli(args, { env });
    expect(r.stderr).toMatch(/no job with id or name "job_nosuch"/);
    expect(r.code).toBe(1);
  });

  it('shows a removed job as removed', async () => {
    const { db } = database();
    const job = await createJob(db, {
      name: 'gone', owner: 'alice', created_by: 'alice', schedule: '0 3 * * *', timezone: 'UTC', tools: [], paused: false,
      payload: { kind: 'steps', steps: [{ tool: 'list_dir', args: {} }] },
    });
    expect((await runCli(['jobs', 'remove', job.id, '--why', 'obsolete'], { env })).code).toBe(0);
    const r = await runCli(['jobs', 'show', job.id], { env });
    expect(r.stdout).toMatch(/removed \d{4}-/);
  });
});

describe('check --file', () => {
  it('prints JSON lines with --json and exits by the strictest verdict', async () => {
    const file = join(dir, 'commands.txt');
    writeFileSync(file, 'ls -la\nrm -rf /\n');
    const r = await runCli(['check', 'command', '--file', file, '--json'], { env });
    const lines = r.stdout.trim().split('\n').map((l) => JSON.parse(l) as { command: string; decision: string });
    expect(lines.map((l) => [l.command, l.decision])).toEqual([['ls -la', 'allow'], ['rm -rf /', 'deny']]);
    expect(r.code).toBe(1);
    writeFileSync(file, 'ls -la\n');
    expect((await runCli(['check', 'command', '--file', file], { env })).code).toBe(0);
  });
});
