import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { defaultConfig } from '../../src/config/schema.ts';
import { builtinTools } from '../../src/daemon/daemon-tools.ts';
import { executeRun } from '../../src/daemon/run-executor.ts';
import { createGuard } from '../../src/guard/index.ts';
import { manualRun } from '../../src/jobs/service.ts';
import { silentLogger } from '../../src/log/logger.ts';
import { ruleRegistry } from '../../src/cli/rule-registry.ts';
import { definitionHash } from '../../src/store/definition-hash.ts';
import { issueGrant } from '../../src/store/grants.ts';
import { createJob, getJob, type NewJob } from '../../src/store/jobs.ts';
import type { GrantRow, JobRow } from '../../src/store/schema.ts';
import { systemGuardDeps } from '../../src/util/system-ports.ts';
import { runCli } from '../support/cli.ts';
import { tamper, useTestDatabase } from '../support/db.ts';
import { schemaConfigYaml } from '../support/approval-screens.ts';

// The admin review's items 5, 6, 9, 14, 15 and 18: what the grant views and run views say after a revoke, an
// out-of-band edit, or a request answered from the asker's own OS account, and that --json names things alike.
const database = useTestDatabase();
const dir = mkdtempSync(join(tmpdir(), 'echo-grants-shapes-'));
let env: NodeJS.ProcessEnv;
const config = defaultConfig({ tools: { workspace: dir, restrict_to_workspace: true } });
const steps = (tool: string): NewJob['payload'] => ({ kind: 'steps', steps: [{ tool, args: { path: '.' } }] });
const base = (name: string, over: Partial<NewJob> = {}): NewJob => ({
  name, owner: 'alice', created_by: 'alice', schedule: '0 4 * * *', timezone: 'UTC', tools: ['list_dir'], paused: false, payload: steps('list_dir'), ...over,
});
const cli = async (args: string[]) => {
  const r = await runCli(args, { env });
  expect(r.code, r.stderr).toBe(0);
  return r.stdout;
};
const json = async <T>(args: string[]) => JSON.parse(await cli([...args, '--json'])) as T;
const me = { os_account: 'root', host: 'vm' };
/** An answered approval row, asked and answered from the given accounts. */
const approval = (id: string, requester: string, approver: string, askedFrom: object, answeredFrom: object) => tamper(database(),
  `insert into approvals (id, call_hash, tool, args, risk, channel, user_id, state, answer, answered_by, asked_from, answered_from, answered_at, expires_at)
   values ('${id}', 'h', 'cronjob', '{}', 'dangerous', 'cli', '${requester}', 'approved', 'once', '${approver}', '${JSON.stringify({ ...askedFrom, pid: 1, started: 'x' })}', '${JSON.stringify(answeredFrom)}', now(), now() + interval '1 hour')`);

let revoked: JobRow;
let revokedGrant: GrantRow;
let edited: JobRow;
let editedGrant: GrantRow;
let sameAccount: JobRow;
let twoAccounts: JobRow;
let execJob: JobRow;

beforeAll(async () => {
  const file = join(dir, 'echo-agent.yaml');
  writeFileSync(file, schemaConfigYaml(database().schema, ['tools:', `  workspace: ${dir}`]));
  env = { ECHO_AGENT_CONFIG: file };
  const { db } = database();
  revoked = await createJob(db, base('revoked'));
  revokedGrant = await issueGrant(db, { job_id: revoked.id, approval_id: 'apr_rev', approver: 'carol', channel: 'cli', tool_scope: ['list_dir'] });
  edited = await createJob(db, base('edited'));
  editedGrant = await issueGrant(db, { job_id: edited.id, approval_id: 'apr_ed', approver: 'carol', channel: 'cli', tool_scope: ['list_dir'] });
  await tamper(database(), `update jobs set payload = '${JSON.stringify(steps('read_file'))}'::jsonb where id = '${edited.id}'`);
  sameAccount = await createJob(db, base('same-account'));
  await approval('apr_same', 'root', 'alice', me, me);
  await issueGrant(db, { job_id: sameAccount.id, approval_id: 'apr_same', approver: 'alice', channel: 'cli', tool_scope: ['list_dir'] });
  twoAccounts = await createJob(db, base('two-accounts'));
  await approval('apr_two', 'root', 'alice', me, { os_account: 'alice', host: 'vm' });
  await issueGrant(db, { job_id: twoAccounts.id, approval_id: 'apr_two', approver: 'alice', channel: 'cli', tool_scope: ['list_dir'] });
  execJob = await createJob(db, base('writer2', { tools: ['write_file'], payload: { kind: 'steps', steps: [{ tool: 'exec', args: { command: 'true' } }] } }));
  await issueGrant(db, { job_id: execJob.id, approval_id: 'apr_x', approver: 'carol', channel: 'cli', tool_scope: ['write_file'] });
}, 60_000);

describe('a run that starts after a revoke (item 9)', () => {
  it('says which grant was revoked, when, by whom and why: runs show, runs list and --json, rule grant.revoked', async () => {
    const { db } = database();
    const r = await json<Record<string, unknown>>(['grants', 'revoke', revoked.id, '--why', 'incident 42', '--as', 'dave']);
    // item 14: a revoked grant does not say cron_authorized: true
    expect(r).not.toHaveProperty('cron_authorized');
    expect(r).toMatchObject({ id: revokedGrant.id, in_force: false, authorized_when_in_force: true });
    const run = (await manualRun({ db }, revoked.id, 'alice'))!;
    await executeRun({ db, config, tools: builtinTools(config, { db }), guard: createGuard(config, systemGuardDeps({ dns: false })), logger: silentLogger, workerId: 'test:1' }, run.id);

    const shown = await cli(['runs', 'show', run.id]);
    expect(shown).toMatch(new RegExp(`\\ngrant: - \\(none: grant ${revokedGrant.id} revoked \\d+ ms before the run started, at \\S+, by dave: incident 42; grant.revoked, judged under unattended_policy\\)\\n`));
    const shownJson = await json<{ grant: unknown; ended_grant: Record<string, unknown> }>(['runs', 'show', run.id]);
    expect(shownJson.grant).toBeNull();
    expect(shownJson.ended_grant).toMatchObject({ id: revokedGrant.id, ending: 'grant.revoked', ended_by: 'dave', why: 'incident 42' });
    const line = (await cli(['runs', 'list', '--job', revoked.id])).split('\n').find((l) => l.startsWith(run.id));
    expect(line).toContain(`no (grant.revoked; grant ${revokedGrant.id} revoked by dave)`);
    const [listed] = await json<Record<string, unknown>[]>(['runs', 'list', '--job', revoked.id]);
    expect(listed).toMatchObject({ authorization_rule: 'grant.revoked', ended_grant: { id: revokedGrant.id, ended_by: 'dave', why: 'incident 42' } });

    // the job views agree, and the rule is one `echo-agent rules` knows
    expect(await json(['jobs', 'show', revoked.id])).toMatchObject({ authorization: { rule: 'grant.revoked', ended_grant: { id: revokedGrant.id } } });
    expect((await cli(['jobs', 'list'])).split('\n').find((l) => l.startsWith(revoked.id))).toContain(`no (grant.revoked; grant ${revokedGrant.id} ended by dave: incident 42)`);
    expect((await ruleRegistry()).find((x) => x.id === 'grant.revoked')).toMatchObject({ table: 'AUTHORIZATION_RULES', source: 'src/store/grants.ts' });
    const all = await json<Record<string, unknown>[]>(['grants', 'list', '--all']);
    const row = all.find((g) => g.id === revokedGrant.id)!;
    expect(row).not.toHaveProperty('cron_authorized');
    expect(row).toMatchObject({ in_force: false, authorized_when_in_force: true });
  }, 60_000);
});

describe('hashes in --json (item 5)', () => {
  it('give the current definition\'s hash, and the stored and approved ones by their own names', async () => {
    const now = definitionHash((await getJob(database().db, edited.id))!);
    expect(now).not.toBe(editedGrant.definition_hash);
    const report = await json<{ job: Record<string, unknown>; grant: Record<string, unknown> }>(['grants', 'show', edited.id]);
    expect(report.job).toMatchObject({ definition_hash: now, definition_hash_stored: edited.definition_hash });
    expect(report.grant).toMatchObject({ definition_hash: editedGrant.definition_hash, definition_matches: false });
    const listed = (await json<Record<string, unknown>[]>(['jobs', 'list'])).find((j) => j.id === edited.id);
    expect(listed).toMatchObject({ definition_hash: now, definition_hash_stored: edited.definition_hash });
    expect(await json(['jobs', 'show', edited.id])).toMatchObject({ job: { definition_hash: now, definition_hash_stored: edited.definition_hash } });
    const grants = (await json<Record<string, unknown>[]>(['grants', 'list'])).find((g) => g.id === editedGrant.id);
    expect(grants).toMatchObject({ definition_hash: editedGrant.definition_hash, job_definition_hash: now, definition_matches: false });
  });
});

describe('grants show text (item 6)', () => {
  it('lists a step tool the daemon refuses in the refused table, though the tools list does not name it', async () => {
    const out = await cli(['grants', 'show', execJob.id]);
    const refused = out.slice(out.indexOf('not available to its runs'));
    expect(refused).toMatch(/\nexec +\S+/);
    expect(out).not.toContain('1 tools');
  });
});

describe('self-approved (item 15)', () => {
  it('is flagged when one OS account asked and answered, whatever the --as names, with a note', async () => {
    expect((await json<{ grant: Record<string, unknown> }>(['grants', 'show', sameAccount.id])).grant)
      .toMatchObject({ requested_by: 'root', approver: 'alice', requested_from: me, answered_from: me, self_approved: true, same_os_account: true });
    expect(await cli(['grants', 'show', sameAccount.id])).toContain('note: self-approved: requested (as root) and answered (as alice) from the same OS account, root on vm; the --as names are not verified');
    expect((await json<{ grant: Record<string, unknown> }>(['grants', 'show', twoAccounts.id])).grant).toMatchObject({ self_approved: false, same_os_account: false });
    expect(await cli(['grants', 'show', twoAccounts.id])).not.toContain('note: self-approved');
  });
});

describe('the same things under the same names (item 18)', () => {
  it('jobs show --json gives the grant with who asked and answered, as grants show does; jobs list --json has last_grant', async () => {
    const shown = await json<{ grant: Record<string, unknown> }>(['jobs', 'show', sameAccount.id]);
    const report = await json<{ grant: Record<string, unknown> }>(['grants', 'show', sameAccount.id]);
    for (const k of ['requested_by', 'requested_from', 'answered_from', 'self_approved', 'same_os_account', 'definition_hash']) expect(shown.grant[k], k).toEqual(report.grant[k]);
    const listed = (await json<Record<string, unknown>[]>(['jobs', 'list'])).find((j) => j.id === revoked.id)!;
    expect(listed.last_grant).toEqual((await json<{ last_grant: unknown }>(['jobs', 'show', revoked.id])).last_grant);
    expect(listed.last_grant).toMatchObject({ id: revokedGrant.id, ended_by: 'dave' });
  });
});
