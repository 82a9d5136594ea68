import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { liveGrant } from '../../src/store/grants.ts';
import { approvedElsewhere, runCli } from '../support/cli.ts';
import { useTestDatabase } from '../support/db.ts';
import { schemaConfigYaml } from '../support/approval-screens.ts';

// jobs create|update --json: the grant as an object, as runs show --json and grants show --json give one,
// while the grant policy's sentence stays where scripts read it.
const database = useTestDatabase();
const dir = mkdtempSync(join(tmpdir(), 'echo-jobs-json-grant-'));
let env: NodeJS.ProcessEnv;

beforeAll(() => {
  const file = join(dir, 'echo-agent.yaml');
  writeFileSync(file, schemaConfigYaml(database().schema, ['permissions:', '  approval:', '    wait_timeout_seconds: 60']));
  env = { ECHO_AGENT_CONFIG: file };
});

const approvedBy = (who: string, args: string[]) => approvedElsewhere(who, args, env);

interface ChangeJson {
  ok: boolean;
  grant: { id: string; job_id: string; approver: string; approval_id: string; channel: string; cron_authorized: boolean; tool_scope: string[] | null } | null;
  result: { output: { job: { id: string }; grant?: unknown; grant_rule: string } };
}

describe('jobs create and update --json name the grant', () => {
  it('create: `grant` is the job\'s live grant as an object (id, approver, approval); result.output.grant stays the sentence', async () => {
    const r = await approvedBy('gina', ['jobs', 'create', '--name', 'json-grant', '--schedule', '0 3 * * *', '--steps', writeSteps('s.yaml'), '--json']);
    expect(r.code, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout) as ChangeJson;
    const live = (await liveGrant(database().db, out.result.output.job.id))!;
    expect(out.grant).toMatchObject({ id: live.id, job_id: out.result.output.job.id, approver: 'gina', approval_id: live.approval_id, channel: 'cli', cron_authorized: true });
    expect(out.grant!.approval_id).toMatch(/^apr_/);
    expect(typeof out.result.output.grant).toBe('string');
    expect(out.result.output.grant_rule).toBe('grant.human_approved');
  }, 90_000);

  it('update: `grant` is the grant the job holds after the change, the new one for a definition change', async () => {
    const before = JSON.parse((await runCli(['jobs', 'list', '--json'], { env })).stdout) as { id: string; name: string }[];
    const job = before.find((j) => j.name === 'json-grant')!;
    const old = (await liveGrant(database().db, job.id))!;
    const r = await approvedBy('hank', ['jobs', 'update', job.id, '--schedule', '0 4 * * *', '--json']);
    expect(r.code, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout) as ChangeJson;
    expect(out.grant).toMatchObject({ job_id: job.id, approver: 'hank', cron_authorized: true });
    expect(out.grant!.id).not.toBe(old.id);
    expect(out.grant!.id).toBe((await liveGrant(database().db, job.id))!.id);
  }, 90_000);

  it('a refused or invalid change has grant null', async () => {
    const r = await runCli(['jobs', 'update', 'no-such-job', '--schedule', '0 4 * * *', '--json'], { env });
    expect(r.code).not.toBe(0);
    const nothing = await runCli(['jobs', 'create', '--name', 'x', '--schedule', '0 3 * * *', '--steps', writeSteps('bad.yaml', 'exec'), '--json'], { env });
    expect(nothing.code).not.toBe(0);
    const doc = JSON.parse(nothing.stdout) as { ok: boolean; grant?: unknown };
    expect(doc.ok).toBe(false);
    expect(doc.grant ?? null).toBeNull();
  });
});

function writeSteps(name: string, tool = 'list_dir'): string {
  const path = join(dir, name);
  writeFileSync(path, tool === 'list_dir' ? '- tool: list_dir\n  args: { path: "." }\n' : `- tool: ${tool}\n  args: { command: "id" }\n`);
  return path;
}
