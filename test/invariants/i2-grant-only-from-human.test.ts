import { describe, expect, it } from 'vitest';
import { defaultConfig } from '../../src/config/schema.ts';
import { builtinTools } from '../../src/daemon/daemon-tools.ts';
import { listAudit } from '../../src/store/audit.ts';
import { authorizationFor, liveGrant } from '../../src/store/grants.ts';
import { buildContext, nestedContext } from '../../src/tools/context.ts';
import { executeTool } from '../../src/tools/executor.ts';
import type { CallApproval } from '../../src/tools/types.ts';
import { useTestDatabase } from '../support/db.ts';

/**
 * I2: cron_authorized only on a job whose current definition a human approved, in an attended,
 * non-nested context. The cronjob tool decides it from the context and the approval the gate hands it;
 * these tests hand it each kind of approval that is not a person's answer to this call.
 */
const database = useTestDatabase();
const config = defaultConfig();
const cronjob = () => builtinTools(config, { db: database().db }).get('cronjob')!;
const create = (name: string) => ({ action: 'create', name, schedule: '0 4 * * *', payload: { kind: 'steps', steps: [{ tool: 'read_file', args: { path: 'a' } }] } });

const human: CallApproval = { approval_source: 'human', approval_id: 'apr_i2_human', approver: 'alice' };
// what a persistent approval record (step 9) hands a tool: an id and the person who once made the record
const standing: CallApproval = { approval_source: 'auto', approval_id: 'al_i2_record', approver: 'alice' };

const attendedHuman = () => buildContext({ channel: 'cli', user_id: 'alice', approval_source: 'human' });

async function createdId(out: Awaited<ReturnType<typeof executeTool>>): Promise<string> {
  expect(out.success).toBe(true);
  return (out.output as { job: { id: string } }).job.id;
}

describe('I2: a job is cron_authorized only through a human answer to this very call', () => {
  it('control: a human-approved create in an attended, top-level context authorises the job', async () => {
    const out = await executeTool(cronjob(), create('i2-control'), attendedHuman(), { approval: human });
    expect(out).toMatchObject({ success: true, output: { cron_authorized: true, grant_rule: 'grant.human_approved' } });
    expect((await authorizationFor(database().db, await createdId(out)))?.cron_authorized).toBe(true);
  });

  it('an approval from a standing record (with an id and a person behind it) is not a human approval', async () => {
    const out = await executeTool(cronjob(), create('i2-standing'), buildContext({ channel: 'cli', user_id: 'alice', approval_source: 'auto' }), { approval: standing });
    expect(out).toMatchObject({ success: true, output: { cron_authorized: false, grant_rule: 'grant.not_human' } });
    const id = await createdId(out);
    expect((await authorizationFor(database().db, id))?.cron_authorized).toBe(false);
    expect(await liveGrant(database().db, id)).toBeNull();
    const [record] = await listAudit(database().db, { job_id: id, kind: 'grant.not_issued' });
    expect(record).toMatchObject({ rule: 'grant.not_human' });
  });

  it('a human answer given in an unattended context never authorises a job', async () => {
    const ctx = buildContext({ channel: 'cron', unattended: true, session_key: 'cron:job_other', user_id: 'alice', approval_source: 'human' });
    const out = await executeTool(cronjob(), create('i2-unattended'), ctx, { approval: human });
    expect(out).toMatchObject({ success: true, output: { cron_authorized: false, grant_rule: 'grant.unattended' } });
    const id = await createdId(out);
    expect((await authorizationFor(database().db, id))?.cron_authorized).toBe(false);
    expect(await liveGrant(database().db, id)).toBeNull();
  });

  it('a nested execution never authorises a job, whatever approval it carries', async () => {
    const ctx = { ...nestedContext(attendedHuman()), approval_source: 'human' as const };
    const out = await executeTool(cronjob(), create('i2-nested'), ctx, { approval: human });
    expect(out).toMatchObject({ success: true, output: { cron_authorized: false, grant_rule: 'grant.nested' } });
    const id = await createdId(out);
    expect((await authorizationFor(database().db, id))?.cron_authorized).toBe(false);
    expect(await liveGrant(database().db, id)).toBeNull();
  });

  it.each([
    ['a standing record', buildContext({ channel: 'cli', user_id: 'bob', approval_source: 'auto' }), standing],
    ['an unattended context', buildContext({ channel: 'cron', unattended: true, session_key: 'cron:job_other', user_id: 'bob', approval_source: 'human' }), human],
    ['a nested execution', { ...nestedContext(attendedHuman()), approval_source: 'human' as const }, human],
  ] as const)('a definition change passed by %s clears the grant of a human-approved job', async (label, ctx, approval) => {
    const db = database().db;
    const id = await createdId(await executeTool(cronjob(), create(`i2-change-${label}`), attendedHuman(), { approval: human }));
    expect((await authorizationFor(db, id))?.cron_authorized).toBe(true);
    const out = await executeTool(cronjob(), { action: 'update', id, schedule: '30 5 * * *' }, ctx, { approval });
    expect(out).toMatchObject({ success: true, output: { cron_authorized: false } });
    expect((await authorizationFor(db, id))?.cron_authorized).toBe(false);
    expect(await liveGrant(db, id)).toBeNull();
  });
});
