import { mkdtempSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { listJobs } from '../../src/store/jobs.ts';
import { approvedElsewhere, runCli } from '../support/cli.ts';
import { useTestDatabase } from '../support/db.ts';
import { schemaConfigYaml } from '../support/approval-screens.ts';

// "What may job X do tonight, and who approved that?" from the grant view alone: who asked for the grant and for
// each change made under it, who approved each (the grant's approver approved none of the later ones), and, when the
// job no longer matches what was approved, whether any recorded change explains that.
const database = useTestDatabase();
const dir = mkdtempSync(join(tmpdir(), 'echo-grants-who-'));
const me = { os_account: userInfo().username, host: hostname() };
let env: NodeJS.ProcessEnv;
let writer: string;
let selfMade: string;
let timeoutApproval: string;

/** `jobs create|update ... --as requester` without a terminal, approved from another process with `--as approver`; the request's id. */
async function requestedAndApproved(args: string[], requester: string, approver: string): Promise<string> {
  const r = await approvedElsewhere(approver, [...args, '--as', requester], env);
  expect(r.code, r.stderr).toBe(0);
  return r.approvalId;
}

const jobFile = (name: string, path: string) => {
  const file = join(dir, `${name}.yaml`);
  writeFileSync(file, [`name: ${name}`, 'schedule: "0 3 * * *"', 'payload:', '  kind: steps', '  steps:', `    - { tool: list_dir, args: { path: "${path}" } }`, 'tools: [list_dir]', ''].join('\n'));
  return file;
};
const show = async (id: string) => {
  const r = await runCli(['grants', 'show', id], { env });
  expect(r.code, r.stderr).toBe(0);
  return r.stdout;
};
const showJson = async (id: string) => JSON.parse((await runCli(['grants', 'show', id, '--json'], { env })).stdout) as {
  grant: {
    approver: string; requested_by: string | null; requested_from: unknown; self_approved: boolean; definition_matches: boolean;
    changed_since: Record<string, unknown> | null; changes_since: Record<string, unknown>[];
    definition_change: { recorded: boolean; recorded_by: unknown; fields: string[] | null } | null;
  };
};
const listJson = async () => JSON.parse((await runCli(['grants', 'list', '--all', '--json'], { env })).stdout) as Record<string, unknown>[];

beforeAll(async () => {
  const file = join(dir, 'echo-agent.yaml');
  writeFileSync(file, schemaConfigYaml(database().schema, ['tools:', `  workspace: ${dir}`, 'permissions:', '  approval:', '    wait_timeout_seconds: 60']));
  env = { ECHO_AGENT_CONFIG: file };
  writeFileSync(join(dir, 'timeout.yaml'), 'timeout_seconds: 900\n');
  await requestedAndApproved(['jobs', 'create', '--file', jobFile('writer', 'reports')], 'bob', 'alice');
  await requestedAndApproved(['jobs', 'create', '--file', jobFile('self-made', 'notes')], 'dave', 'dave');
  const jobs = await listJobs(database().db);
  writer = jobs.find((j) => j.name === 'writer')!.id;
  selfMade = jobs.find((j) => j.name === 'self-made')!.id;
  // outside the definition: the grant stays, and carol asked for it and frank approved it, not alice
  timeoutApproval = await requestedAndApproved(['jobs', 'update', writer, '--file', join(dir, 'timeout.yaml')], 'carol', 'frank');
}, 240_000);

describe('grants show and grants list name who asked, beside who approved', () => {
  it('grants show names who requested the grant\'s approval, and a self-approval as one', async () => {
    expect(await show(writer)).toMatch(/approved by alice on cli at \S+ \(approval apr_\w+, answered from OS account \S+ on \S+, answered (?:with echo-agent approvals approve\|deny, not at the asking prompt|at the prompt of the session that asked)\), requested by bob from OS account \S+ on \S+; definition still matches/);
    expect((await showJson(writer)).grant).toMatchObject({ approver: 'alice', requested_by: 'bob', requested_from: me, self_approved: true, same_os_account: true });
    expect(await show(selfMade)).toMatch(/approved by dave .*, requested by dave from OS account \S+ on \S+ too \(self-approved\); definition still matches/);
    expect((await showJson(selfMade)).grant).toMatchObject({ approver: 'dave', requested_by: 'dave', self_approved: true });
  });

  it('grants list has a REQUESTED BY column, and --json the requester and the accounts the answer came from', async () => {
    const text = (await runCli(['grants', 'list'], { env })).stdout;
    expect(text.split('\n')[0]).toMatch(/APPROVER .* REQUESTED BY +ENDED/);
    expect(text.split('\n').find((l) => l.includes(writer))).toMatch(/ alice +cli +\S+ +list_dir +bob\b/);
    expect(text.split('\n').find((l) => l.includes(selfMade))).toMatch(/ dave +cli +\S+ +list_dir +dave \(self\)/);
    const rows = await listJson();
    expect(rows.find((r) => r.job_id === writer)).toMatchObject({ approver: 'alice', requested_by: 'bob', requested_from: me, answered_from: me, revoked_from: null });
  });
});

describe('a change made under the grant names who asked for it and who approved it', () => {
  it('grants show: the change, its requester, its approver and the approval id, in text and JSON', async () => {
    const text = await show(writer);
    expect(text).toContain(`changed since, keeping the grant: timeout_seconds, requested by carol at `);
    expect(text).toMatch(new RegExp(`timeout_seconds, requested by carol at \\S+, approved by frank \\(approval ${timeoutApproval}, answered from OS account \\S+ on \\S+\\); see: audit list --trace \\S+`));
    const { grant } = await showJson(writer);
    expect(grant.approver).toBe('alice');
    expect(grant.changed_since).toMatchObject({ by: 'carol', requested_by: 'carol', approved_by: 'frank', approval_id: timeoutApproval, answered_from: me, fields: ['timeout_seconds'] });
    expect(grant.changes_since).toHaveLength(1);
  });
});

describe('a definition changed where no record shows it', () => {
  it('says it changed outside echo-agent, names the fields that differ, and keeps the unrelated recorded change from reading as its cause', async () => {
    await database().db.execute(`update jobs set payload = jsonb_set(payload, '{steps,0,args,path}', '"/etc"') where id = '${writer}'`);
    const text = await show(writer);
    expect(text).toContain('definition CHANGED since approval');
    expect(text).toContain('  changed outside echo-agent: no recorded update made it what it is; it differs from the approved one in: payload.steps[0].args.path\n');
    expect(text).toContain('  changed since, keeping the grant (outside the definition, not what no longer matches): timeout_seconds, requested by carol');
    expect(text).not.toContain('"/etc"');
    const { grant } = await showJson(writer);
    expect(grant.definition_matches).toBe(false);
    expect(grant.definition_change).toEqual({ recorded: false, recorded_by: null, fields: ['payload.steps[0].args.path'] });
  });

  it('a job still as approved has no such line', async () => {
    expect(await show(selfMade)).not.toContain('changed outside echo-agent');
    expect((await showJson(selfMade)).grant.definition_change).toBeNull();
  });
});

describe('grants list names the account behind a revoke', () => {
  it('--json has revoked_from, and the ENDED cell the account and host', async () => {
    const r = await runCli(['grants', 'revoke', selfMade, '--why', 'self-approved', '--as', 'erin'], { env });
    expect(r.code, r.stderr).toBe(0);
    expect((await listJson()).find((g) => g.job_id === selfMade)).toMatchObject({ revoked_by: 'erin', revoked_from: me });
    const line = (await runCli(['grants', 'list', '--all'], { env })).stdout.split('\n').find((l) => l.includes(selfMade))!;
    expect(line).toContain(`by erin (${me.os_account}@${me.host}): self-approved`);
  });
});
