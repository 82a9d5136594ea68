import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { cronjobArgs } from '../../src/cli/commands/jobs.ts';
import { listApprovals } from '../../src/store/approvals.ts';
import { createJob } from '../../src/store/jobs.ts';
import { insertRun } from '../../src/store/runs.ts';
import type { JobRow } from '../../src/store/schema.ts';
import { ROOT, approvedElsewhere, runCli } from '../support/cli.ts';
import { useTestDatabase } from '../support/db.ts';
import { schemaConfigYaml } from '../support/approval-screens.ts';

const database = useTestDatabase();
const dir = mkdtempSync(join(tmpdir(), 'echo-jobs-messages-'));
let env: NodeJS.ProcessEnv;
let steps: JobRow;

beforeAll(async () => {
  const file = join(dir, 'echo-agent.yaml');
  writeFileSync(file, schemaConfigYaml(database().schema, ['permissions:', '  approval:', '    wait_timeout_seconds: 60']));
  env = { ECHO_AGENT_CONFIG: file };
  steps = await createJob(database().db, {
    name: 'steps-nightly', owner: 'alice', created_by: 'alice', schedule: '0 3 * * *', timezone: 'UTC', tools: [], paused: false,
    payload: { kind: 'steps', steps: [{ tool: 'list_dir', args: { path: '.' } }] },
  });
});

const approvedBy = (who: string, args: string[]) => approvedElsewhere(who, args, env);

describe('jobs update and create: bad input says what is wrong, with the usage or data exit code', () => {
  it('--model on a steps job is a usage error naming the job\'s kind', async () => {
    const r = await runCli(['jobs', 'update', steps.name, '--model', 'gpt'], { env });
    expect(r.stderr).toContain(`--model is for agent jobs; steps-nightly (${steps.id}) is a steps job`);
    expect(r.stderr).not.toContain('payload.prompt');
    expect(r.code).toBe(64);
  });

  it('--model with a job file whose payload is steps is refused, not turned into a prompt-less agent payload', () => {
    expect(() => cronjobArgs('update', { file: join(ROOT, 'jobs/heartbeat.yaml'), model: 'gpt' }, 'heartbeat')).toThrow(/--model: is for an agent payload, and job file .*heartbeat\.yaml has another kind/);
  });

  it('an update that names no change is a usage error, before any request', async () => {
    const r = await runCli(['jobs', 'update', steps.id], { env });
    expect(r.stderr).toMatch(/jobs update: names no field to change; give --name, --schedule/);
    expect(r.code).toBe(64);
    expect(await listApprovals(database().db)).toEqual([]);
  });

  it('a job file without a payload is a bad job file (65), named', async () => {
    const file = join(dir, 'nopayload.yaml');
    writeFileSync(file, 'name: nopayload\nschedule: "0 3 * * *"\n');
    const r = await runCli(['jobs', 'create', '--file', file], { env });
    expect(r.stderr).toContain(`job file ${file}: payload is missing (put it in the file, or give --steps or --prompt)`);
    expect(r.code).toBe(65);
    // without a file it stays a usage error
    const flags = await runCli(['jobs', 'create', '--name', 'n', '--schedule', '0 3 * * *'], { env });
    expect(flags.stderr).toContain('jobs create: payload is missing (give --steps or --prompt or put it in --file)');
    expect(flags.code).toBe(64);
  });

  it('a step outside the job\'s own tools is refused before anyone is asked (65), naming the step, the tool and the list', async () => {
    const file = join(dir, 'outside.yaml');
    writeFileSync(file, 'name: outside\nschedule: "0 3 * * *"\ntools: [list_dir]\npayload:\n  kind: steps\n  steps:\n    - tool: list_dir\n      args: { path: . }\n    - tool: write_file\n      args: { path: a.txt, content: x }\n');
    const r = await runCli(['jobs', 'create', '--file', file, '--as', 'alice'], { env });
    expect(r.stderr).toContain('payload.steps[1] (write_file): not in the job\'s tools [list_dir], so every run would refuse this step (context.allowed_tools)');
    expect(r.code).toBe(65);
    expect(await listApprovals(database().db)).toEqual([]);
  });
});

describe('jobs create and update print a line for a person, and JSON with --json', () => {
  it('create, then update: the job, and who approved it', async () => {
    const created = await approvedBy('bob', ['jobs', 'create', '--name', 'human-line', '--schedule', '0 4 * * *', '--prompt', 'report', '--as', 'alice']);
    expect(created.code, created.stderr).toBe(0);
    expect(created.stdout).toMatch(/^job job_\w+ "human-line" created; cron_authorized: yes \(approved by bob\)\n$/);
    const updated = await approvedBy('bob', ['jobs', 'update', 'human-line', '--schedule', '0 5 * * *', '--as', 'alice']);
    expect(updated.code, updated.stderr).toBe(0);
    expect(updated.stdout).toMatch(/^job job_\w+ "human-line" updated; cron_authorized: yes \(approved by bob\)\n$/);
    // a rename is outside the definition: carol's answer keeps bob's grant, and the line says whose it is
    const renamed = await approvedBy('carol', ['jobs', 'update', 'human-line', '--name', 'human-line-2', '--as', 'alice']);
    expect(renamed.code, renamed.stderr).toBe(0);
    expect(renamed.stdout).toMatch(/^job job_\w+ "human-line-2" updated; cron_authorized: yes \(its grant from bob stays: the change is outside the definition\)\n$/);
  }, 240_000);
});

describe('jobs runs --limit', () => {
  it('warns only when there were more runs than shown', async () => {
    const job = await createJob(database().db, {
      name: 'three-runs', owner: 'alice', created_by: 'alice', schedule: '0 3 * * *', timezone: 'UTC', tools: [], paused: false,
      payload: { kind: 'steps', steps: [{ tool: 'list_dir', args: { path: '.' } }] },
    });
    for (const day of [1, 2, 3]) await insertRun(database().db, { job_id: job.id, nominal_at: new Date(`2026-01-0${day}T03:00:00Z`), trigger: 'cron' });
    const all = await runCli(['jobs', 'runs', job.id, '--limit', '3', '--json'], { env });
    expect(all.code, all.stderr).toBe(0);
    expect(JSON.parse(all.stdout)).toHaveLength(3);
    expect(all.stderr).not.toContain('showing');
    const cut = await runCli(['jobs', 'runs', job.id, '--limit', '2', '--json'], { env });
    expect(JSON.parse(cut.stdout)).toHaveLength(2);
    expect(cut.stderr).toContain('showing the newest 2; use --limit for more');
  });
});
