import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { issueGrant, revokeGrant } from '../../src/store/grants.ts';
import { createJob, type NewJob } from '../../src/store/jobs.ts';
import type { JobRow } from '../../src/store/schema.ts';
import { runCli } from '../support/cli.ts';
import { useTestDatabase } from '../support/db.ts';
import { schemaConfigYaml } from '../support/approval-screens.ts';

const database = useTestDatabase();
const dir = mkdtempSync(join(tmpdir(), 'echo-jobs-show-grant-'));
let env: NodeJS.ProcessEnv;
const base = (name: string, extra: Partial<NewJob> = {}): NewJob => ({
  name, owner: 'alice', created_by: 'alice', schedule: '0 4 * * *', timezone: 'UTC', tools: [], paused: false,
  payload: { kind: 'agent', prompt: 'summarise the inbox' }, next_fire_at: new Date('2099-01-01T04:00:00Z'), delivery: { notify: 'ops' }, ...extra,
});

let revoked: JobRow;

beforeAll(async () => {
  const file = join(dir, 'echo-agent.yaml');
  writeFileSync(file, schemaConfigYaml(database().schema, ['model:', '  base_url: http://127.0.0.1:9/v1', '  name: small', 'notify:', '  targets:', '    ops:', '      url: https://hooks.example.com/x']));
  env = { ECHO_AGENT_CONFIG: file };
  const db = database().db;
  revoked = await createJob(db, base('digest'));
  const grant = await issueGrant(db, { job_id: revoked.id, approval_id: 'apr_digest', approver: 'dave', channel: 'cli', tool_scope: null });
  await revokeGrant(db, { grant_id: grant.id, by: 'erin', why: 'incident 42' });
});

describe('jobs show of a job whose grant was revoked', () => {
  it('names who revoked it and why, says nothing is delivered, and names the model its runs use', async () => {
    const r = await runCli(['jobs', 'show', revoked.id], { env });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/grant: none; the last one, grt_\S+ \(approved by dave at .*\), ended at .* by erin.*: incident 42/);
    expect(r.stdout).toContain('delivery: notify target ops, but nothing is posted while the job has no live grant');
    expect(r.stdout).toContain('model: small @ http://127.0.0.1:9/v1 (from config, not part of the grant');
    const json = JSON.parse((await runCli(['jobs', 'show', revoked.id, '--json'], { env })).stdout) as { last_grant: { ended_by: string; why: string }; model: { name: string; name_in_grant: boolean } };
    expect(json.last_grant).toMatchObject({ ended_by: 'erin', why: 'incident 42' });
    expect(json.model).toMatchObject({ name: 'small', name_in_grant: false });
  });
});
