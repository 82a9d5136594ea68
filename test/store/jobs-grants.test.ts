import { sql } from 'drizzle-orm';
import { instantsDueAtPause, instantsMissedWhilePaused } from '../../src/jobs/next-fire.ts';
import { instantsDroppedByRemoval } from '../../src/jobs/next-fire.ts';
import { describe, expect, it, vi } from 'vitest';
import { listAudit } from '../../src/store/audit.ts';
import { verifyAudit } from '../../src/store/audit-verify.ts';
import { definitionHash } from '../../src/store/definition-hash.ts';
import {
  authorization, authorizationFor, clearGrant, issueGrant, listGrants, liveGrant, revokeGrant,
} from '../../src/store/grants.ts';
import { createJob, getJob, jobLineage, listJobs, lockDueJobs, pauseJob, removeJob, resumeJob, updateJob } from '../../src/store/jobs.ts';
import { insertRun, getRun } from '../../src/store/runs.ts';
import { useTestDatabase } from '../support/db.ts';
import { aJob } from './fixtures.ts';

const database = useTestDatabase();
const humanApproval = { approval_id: 'apr_1', approver: 'alice', channel: 'cli', approved_at: new Date('2026-12-01T10:00:00Z') };

describe('jobs', () => {
  it('stores a job with a job_ id that BullMQ can use and the definition hash of its approved fields', async () => {
    const job = await createJob(database().db, aJob());
    expect(job.id).toMatch(/^job_[a-z2-7]{26}$/);
    expect(job.definition_hash).toBe(definitionHash(aJob()));
    expect(job).toMatchObject({ overlap_policy: 'skip', misfire_policy: 'run_once', jitter_seconds: 0, max_retries: 0, fired_count: 0, paused: false });
    const [created] = await listAudit(database().db, { job_id: job.id, kind: 'job.created' });
    expect(created?.data).toMatchObject({ definition_hash: job.definition_hash });
  });

  const agent = (prompt: string, model?: string) => ({ payload: { kind: 'agent' as const, prompt, ...(model ? { model } : {}) } });
  it.each([
    ['the steps', {}, { payload: { kind: 'steps' as const, steps: [{ tool: 'read_file', args: { path: 'OTHER.md' } }] } }],
    ['the prompt', agent('Summarise the logs.'), agent('Delete the logs.')],
    ['the model', agent('Summarise the logs.', 'small'), agent('Summarise the logs.', 'big')],
    ['the tool set', {}, { tools: ['read_file', 'write_file'] }],
    ['the schedule', {}, { schedule: '0 4 * * *' }],
    ['the timezone', {}, { timezone: 'America/New_York' }],
    ['the delivery', {}, { delivery: { notify: 'ops' } }],
  ])('changing %s changes the definition hash (a human must approve it again)', (_what, from, to) => {
    const before = aJob(from);
    expect(definitionHash({ ...before, ...to })).not.toBe(definitionHash(before));
  });

  it.each([
    ['only the tool order or duplicates', { tools: ['notify', 'read_file', 'notify'] }],
    ['the name', { name: 'renamed' }],
    ['the jitter', { jitter_seconds: 30 }],
    ['max runs', { max_runs: 5 }],
    ['the overlap policy', { overlap_policy: 'allow' as const }],
  ])('changing %s keeps the definition hash', (_what, to) => {
    expect(definitionHash({ ...aJob(), ...to })).toBe(definitionHash(aJob()));
  });

  it('a grant issued without an explicit time is stamped on the database clock, not the host clock', async () => {
    const db = database().db;
    const job = await createJob(db, aJob());
    vi.useFakeTimers({ toFake: ['Date'] });
    try {
      vi.setSystemTime(new Date('2031-01-01T00:00:00Z'));
      const grant = await issueGrant(db, { job_id: job.id, approval_id: 'apr_clock', approver: 'alice', channel: 'cli' });
      vi.useRealTimers();
      const [{ now }] = (await db.execute<{ now: Date }>(sql`select now() as now`)).rows as [{ now: Date }];
      expect(Math.abs(grant.approved_at!.getTime() - new Date(now).getTime())).toBeLessThan(60_000);
    } finally {
      vi.useRealTimers();
    }
  });

  it('a definition change clears the live grant (I2); a cosmetic change keeps it', async () => {
    const db = database().db;
    const job = await createJob(db, aJob());
    const grant = await issueGrant(db, { job_id: job.id, ...humanApproval });
    const cosmetic = await updateJob(db, job.id, { name: 'renamed' }, { actor: 'bob' });
    expect(cosmetic).toMatchObject({ definitionChanged: false, clearedGrant: null, changed: ['name'] });
    expect((await liveGrant(db, job.id))?.id).toBe(grant.id);

    const changed = await updateJob(db, job.id, { tools: ['read_file', 'write_file'] }, { actor: 'bob' });
    expect(changed).toMatchObject({ definitionChanged: true, changed: ['tools'] });
    expect(changed!.clearedGrant).toMatchObject({ id: grant.id, revoked_by: 'bob' });
    expect(changed!.clearedGrant!.revoked_why).toMatch(/definition changed \(tools\)/);
    expect(await liveGrant(db, job.id)).toBeNull();
    expect((await listAudit(db, { job_id: job.id, kind: 'grant.cleared' })).length).toBe(1);
  });

  it('names only the fields that changed, though jsonb hands the stored payload back with its keys reordered', async () => {
    const db = database().db;
    const job = await createJob(db, aJob({ payload: { kind: 'agent', prompt: 'Summarise the logs.', model: 'small' } }));
    await issueGrant(db, { job_id: job.id, ...humanApproval });
    // the whole definition, as an update merges it, with the payload's keys in another order
    const updated = await updateJob(db, job.id, { schedule: '0 4 * * *', payload: { prompt: 'Summarise the logs.', model: 'small', kind: 'agent' } }, { actor: 'bob' });
    expect(updated).toMatchObject({ definitionChanged: true, changed: ['schedule'] });
    expect(updated!.clearedGrant!.revoked_why).toBe('definition changed (schedule)');
  });

  it('a second pause without a note keeps the first one\'s, records nothing, and says nothing changed; so does resuming an active job', async () => {
    const db = database().db;
    const job = await createJob(db, aJob({ next_fire_at: new Date('2026-12-03T02:00:00Z') }));
    await pauseJob(db, job.id, { actor: 'ops', note: 'db maintenance' }, instantsDueAtPause);
    expect(await pauseJob(db, job.id, { actor: 'ops' }, instantsDueAtPause)).toMatchObject({ changed: false, job: { paused: true, pause_note: 'db maintenance' } });
    expect(await pauseJob(db, job.id, { actor: 'dana', note: 'extended to Friday' }, instantsDueAtPause)).toMatchObject({ changed: true, job: { pause_note: 'extended to Friday' } });
    expect((await resumeJob(db, job.id, { actor: 'ops' }, instantsMissedWhilePaused))?.changed).toBe(true);
    expect(await resumeJob(db, job.id, { actor: 'ops' }, instantsMissedWhilePaused)).toMatchObject({ changed: false, job: { paused: false } });
    const records = await listAudit(db, { job_id: job.id, order: 'asc' });
    expect(records.filter((r) => r.kind === 'job.paused' || r.kind === 'job.resumed').map((r) => [r.kind, r.actor, r.reason])).toEqual([
      ['job.paused', 'ops', 'db maintenance'], ['job.paused', 'dana', 'extended to Friday'], ['job.resumed', 'ops', null],
    ]);
  });

  it('pauses with a note, resumes, and soft-removes keeping history, cancelling queued runs and ending the grant', async () => {
    const db = database().db;
    const job = await createJob(db, aJob({ next_fire_at: new Date('2099-12-03T02:00:00Z') }));
    await issueGrant(db, { job_id: job.id, ...humanApproval });
    expect(await pauseJob(db, job.id, { actor: 'ops', note: 'maintenance window' }, instantsDueAtPause)).toMatchObject({ changed: true, job: { paused: true, pause_note: 'maintenance window' } });
    const resumeAt = new Date('2099-12-04T02:00:00Z');
    expect(await resumeJob(db, job.id, { actor: 'ops' }, () => ({ skipped: [], unrecorded: null, next_fire_at: resumeAt }))).toMatchObject({ changed: true, job: { paused: false, pause_note: null, next_fire_at: resumeAt } });
    const run = await insertRun(db, { job_id: job.id, nominal_at: new Date('2099-12-04T02:00:00Z') });

    const removed = await removeJob(db, job.id, { actor: 'ops', why: 'obsolete' }, instantsDroppedByRemoval);
    expect(removed?.removed_at).toBeInstanceOf(Date);
    expect(await getJob(db, job.id)).toBeNull();
    expect((await getJob(db, job.id, { includeRemoved: true }))?.id).toBe(job.id);
    expect((await listJobs(db)).map((j) => j.id)).not.toContain(job.id);
    expect((await getRun(db, run!.id))?.state).toBe('cancelled');
    expect(await liveGrant(db, job.id)).toBeNull();
    expect((await listGrants(db, { job_id: job.id, includeRevoked: true }))[0]?.revoked_why).toBe('job removed');
    expect(await removeJob(db, job.id, { actor: 'ops' }, instantsDroppedByRemoval)).toBeNull();
    expect(await updateJob(db, job.id, { name: 'x' }, { actor: 'ops' })).toBeNull();
    const kinds = (await listAudit(db, { job_id: job.id, order: 'asc' })).map((r) => r.kind);
    expect(kinds).toEqual(['job.created', 'grant.issued', 'job.paused', 'job.resumed', 'job.removed', 'grant.cleared']);
  });

  it('due jobs are locked for one replica at a time (SKIP LOCKED)', async () => {
    const { db } = database();
    const due = await createJob(db, aJob({ next_fire_at: new Date('2000-01-01T00:00:00Z') }));
    await createJob(db, aJob({ next_fire_at: new Date('2000-01-01T00:00:00Z'), paused: true }));
    await createJob(db, aJob({ next_fire_at: new Date('2999-01-01T00:00:00Z') }));
    await db.transaction(async (a) => {
      const first = await lockDueJobs(a, { limit: 10 });
      expect(first.map((j) => j.id)).toContain(due.id);
      const second = await db.transaction((b) => lockDueJobs(b, { limit: 10 }));
      expect(second.map((j) => j.id)).not.toContain(due.id);
    });
  });
});

describe('a child job\'s lineage', () => {
  it('reads the job and the jobs above it, parent first, at most as many as asked, even when parent links loop', async () => {
    const db = database().db;
    const top = await createJob(db, aJob({ name: 'top' }));
    const child = await createJob(db, aJob({ name: 'child', origin: 'task', parent_job_id: top.id }));
    const grandchild = await createJob(db, aJob({ name: 'grandchild', origin: 'task', parent_job_id: child.id }));
    expect((await jobLineage(db, grandchild.id, 8)).map((j) => j.name)).toEqual(['grandchild', 'child', 'top']);
    expect((await jobLineage(db, grandchild.id, 2)).map((j) => j.name)).toEqual(['grandchild', 'child']);
    // links no code makes, written by hand: the read still ends
    await db.execute(sql`update jobs set parent_job_id = ${grandchild.id} where id = ${top.id}`);
    expect((await jobLineage(db, grandchild.id, 5)).map((j) => j.name)).toEqual(['grandchild', 'child', 'top', 'grandchild', 'child']);
  });
});

describe('grants', () => {
  it('issues a cron_authorized grant only with the human approval behind it', async () => {
    const db = database().db;
    const job = await createJob(db, aJob());
    await expect(issueGrant(db, { job_id: job.id, approval_id: null, approver: null, channel: 'cli' })).rejects.toThrow(/human approval/);
    const auto = await issueGrant(db, { job_id: job.id, cron_authorized: false, approval_id: null, approver: null, channel: 'telegram' });
    expect(authorization(job, auto)).toMatchObject({ cron_authorized: false, rule: 'grant.not_authorized' });
  });

  it('a new grant supersedes the live one: at most one live grant per job, even concurrently', async () => {
    const db = database().db;
    const job = await createJob(db, aJob());
    const first = await issueGrant(db, { job_id: job.id, ...humanApproval });
    await Promise.all([1, 2, 3].map((i) => issueGrant(db, { job_id: job.id, ...humanApproval, approval_id: `apr_${i + 1}` })));
    const all = await listGrants(db, { job_id: job.id, includeRevoked: true });
    expect(all).toHaveLength(4);
    expect(all.filter((g) => g.revoked_at === null)).toHaveLength(1);
    expect(all.find((g) => g.id === first.id)?.revoked_why).toMatch(/^superseded by grt_/);
  });

  it('revoke records who and why, stops authorising, and is audited', async () => {
    const db = database().db;
    const job = await createJob(db, aJob());
    const grant = await issueGrant(db, { job_id: job.id, ...humanApproval });
    expect(await authorizationFor(db, job.id)).toMatchObject({ cron_authorized: true, rule: 'grant.valid', grant_id: grant.id });
    await expect(revokeGrant(db, { job_id: job.id, by: 'admin', why: '  ' })).rejects.toThrow(/reason/);
    const revoked = await revokeGrant(db, { grant_id: grant.id, by: 'admin', why: 'job scope too broad' });
    expect(revoked).toMatchObject({ id: grant.id, revoked_by: 'admin', revoked_why: 'job scope too broad' });
    expect(revoked?.revoked_at).toBeInstanceOf(Date);
    expect(await authorizationFor(db, job.id)).toMatchObject({ cron_authorized: false, rule: 'grant.revoked' });
    expect(await revokeGrant(db, { grant_id: grant.id, by: 'admin', why: 'again' })).toBeNull();
    const [audit] = await listAudit(db, { job_id: job.id, kind: 'grant.revoked' });
    expect(audit).toMatchObject({ actor: 'admin', reason: 'job scope too broad', data: { grant_id: grant.id, approver: 'alice' } });
    expect(await clearGrant(db, job.id, { by: 'system', why: 'nothing live' })).toBeNull();
    expect((await verifyAudit(db)).ok).toBe(true);
  });

  it('a grant for another definition does not authorise the current one', async () => {
    const db = database().db;
    const job = await createJob(db, aJob());
    const stale = await issueGrant(db, { job_id: job.id, ...humanApproval, definition_hash: definitionHash(aJob({ schedule: '* * * * *' })) });
    expect(authorization(job, stale)).toMatchObject({ cron_authorized: false, rule: 'grant.definition_changed' });
    const [issued] = await listAudit(db, { job_id: job.id, kind: 'grant.issued' });
    expect(issued?.data).toMatchObject({ definition_matches: false });
  });

  it.each([
    { name: 'no grant', grantOver: null, jobOver: {}, rule: 'grant.none' },
    { name: 'a revoked grant', grantOver: { revoked_at: new Date() }, jobOver: {}, rule: 'grant.none' },
    { name: 'a removed job', grantOver: {}, jobOver: { removed_at: new Date() }, rule: 'grant.job_removed' },
    { name: 'a matching live human grant', grantOver: {}, jobOver: {}, rule: 'grant.valid' },
    // changed behind the store's back: the definition_hash column still says h1
    { name: 'a definition edited with raw SQL', grantOver: {}, jobOver: { schedule: '0 4 * * *' }, rule: 'grant.definition_changed' },
  ])('authorization with $name gives $rule', ({ grantOver, jobOver, rule }) => {
    const approved = { payload: { kind: 'steps' as const, steps: [{ tool: 'read_file', args: { path: 'x' } }] }, tools: [], schedule: '0 3 * * *', timezone: 'UTC', delivery: null };
    const h1 = definitionHash(approved);
    const job = { ...approved, definition_hash: h1, removed_at: null, ...jobOver };
    const grant = grantOver === null ? null : {
      id: 'grt_x', job_id: 'job_x', cron_authorized: true, approval_id: 'apr_1', approver: 'alice', channel: 'cli', approved_at: null,
      definition_hash: h1, tool_scope: null, issued_at: new Date(), revoked_at: null, revoked_by: null, revoked_why: null, ...grantOver,
    };
    expect(authorization(job, grant).rule).toBe(rule);
    expect(authorization(job, grant).cron_authorized).toBe(rule === 'grant.valid');
  });
});
