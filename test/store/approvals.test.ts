import { describe, expect, it } from 'vitest';
import type { ApprovalRequest } from '../../src/approval/ports.ts';
import {
  answerApproval, createApproval, endWait, expireApprovals, getApproval, listApprovals, waitForAnswer, type NewApproval,
} from '../../src/store/approvals.ts';
import { storeApprover } from '../../src/store/approver.ts';
import { listAudit } from '../../src/store/audit.ts';
import { buildContext } from '../../src/tools/context.ts';
import { pidSpace, processIdentity, thisProcess } from '../../src/util/process-identity.ts';
import { useTestDatabase } from '../support/db.ts';

const database = useTestDatabase();
const inMinutes = (m: number) => new Date(Date.now() + m * 60_000);

function request(over: Partial<NewApproval> = {}): NewApproval {
  return {
    call_hash: 'hash-of-this-call', tool: 'cronjob', args: { action: 'create', name: 'nightly' }, risk: 'dangerous',
    scopes: ['cronjob'], allow_always: false, channel: 'cli', user_id: 'alice', execution_id: 'exec-1', trace_id: 'trace-1',
    expires_at: inMinutes(5), ...over,
  };
}

describe('approvals', () => {
  it('persists a pending request with an apr_ id', async () => {
    const row = await createApproval(database().db, request());
    expect(row).toMatchObject({ state: 'pending', answer: null, tool: 'cronjob' });
    expect(row.id).toMatch(/^apr_/);
    expect((await listApprovals(database().db, { state: 'pending' })).map((r) => r.id)).toContain(row.id);
  });

  it('accepts an answer bound to the request id and the call hash, once', async () => {
    const { db } = database();
    const row = await createApproval(db, request());
    const ok = await answerApproval(db, { id: row.id, call_hash: row.call_hash, answer: 'once', answered_by: 'alice' });
    expect(ok).toMatchObject({ ok: true, approval: { state: 'approved', answer: 'once', answered_by: 'alice' } });
    const again = await answerApproval(db, { id: row.id, call_hash: row.call_hash, answer: 'deny', answered_by: 'bob' });
    expect(again).toMatchObject({ ok: false, refusal: 'already_answered' });
    expect((await getApproval(db, row.id))?.answer).toBe('once');
  });

  it.each([
    { name: 'a mismatched call hash', over: {}, answer: { call_hash: 'another-call' }, refusal: 'hash_mismatch' },
    { name: 'an unknown id', over: {}, answer: { id: 'apr_nope' }, refusal: 'not_found' },
    { name: 'an expired request', over: { expires_at: new Date(Date.now() - 1000) }, answer: {}, refusal: 'expired' },
    { name: '"always" where it is not offered', over: { allow_always: false }, answer: { answer: 'always' as const }, refusal: 'always_not_allowed' },
  ])('refuses $name ($refusal) and audits the attempt', async ({ over, answer, refusal }) => {
    const { db } = database();
    const row = await createApproval(db, request(over));
    const result = await answerApproval(db, { id: row.id, call_hash: row.call_hash, answer: 'once', answered_by: 'mallory', ...answer });
    expect(result).toMatchObject({ ok: false, refusal });
    if (refusal !== 'not_found') expect((await getApproval(db, row.id))?.state).toBe(refusal === 'expired' ? 'expired' : 'pending');
    const audited = await listAudit(db, { kind: 'approval.answer_refused', limit: 1 });
    expect(audited[0]).toMatchObject({ actor: 'mallory', outcome: refusal });
  });

  describe('an answer when the asking process has ended', () => {
    const asker = { os_account: 'alice', host: 'box', pid: 4242, started: '100', boot_id: 'boot-1', pid_ns: 'pid:[1]' };
    const answer = (id: string, call_hash: string, space: { boot_id: string; pid_ns: string }, ended: boolean) => answerApproval(database().db, {
      id, call_hash, answer: 'once', answered_by: 'bob', origin: { os_account: 'bob', host: 'box', ancestors: [], pidSpace: space, hasEnded: () => ended },
    });

    it('is refused as asker_gone and the request withdrawn, in the same kernel and pid namespace', async () => {
      const row = await createApproval(database().db, request({ asked_from: asker }));
      expect(await answer(row.id, row.call_hash, { boot_id: 'boot-1', pid_ns: 'pid:[1]' }, true)).toMatchObject({ ok: false, refusal: 'asker_gone', approval: { state: 'withdrawn' } });
    });

    it.each([
      ['another pid namespace (a container)', { boot_id: 'boot-1', pid_ns: 'pid:[2]' }, true],
      ['another boot (or machine)', { boot_id: 'boot-2', pid_ns: 'pid:[1]' }, true],
      ['a process still running', { boot_id: 'boot-1', pid_ns: 'pid:[1]' }, false],
    ])('counts from %s, where the asker\'s pid says nothing', async (_case, space, ended) => {
      const row = await createApproval(database().db, request({ asked_from: asker }));
      expect(await answer(row.id, row.call_hash, space, ended)).toMatchObject({ ok: true, approval: { state: 'approved' } });
    });

    it('counts for a request recorded before pid spaces were (no boot id)', async () => {
      const { boot_id: _b, pid_ns: _n, ...old } = asker;
      const row = await createApproval(database().db, request({ asked_from: old }));
      expect(await answer(row.id, row.call_hash, { boot_id: 'boot-1', pid_ns: 'pid:[1]' }, true)).toMatchObject({ ok: true });
    });
  });

  it('"always" is accepted where offered; deny is recorded as denied', async () => {
    const { db } = database();
    const always = await createApproval(db, request({ allow_always: true, tool: 'write_file', risk: 'write' }));
    expect(await answerApproval(db, { id: always.id, call_hash: always.call_hash, answer: 'always', answered_by: 'alice' }))
      .toMatchObject({ ok: true, approval: { state: 'approved', answer: 'always' } });
    const denied = await createApproval(db, request());
    expect(await answerApproval(db, { id: denied.id, call_hash: denied.call_hash, answer: 'deny', answered_by: 'alice' }))
      .toMatchObject({ ok: true, approval: { state: 'denied', answer: 'deny' } });
  });

  it('expires pending requests past their time by the database clock', async () => {
    const { db } = database();
    const old = await createApproval(db, request({ expires_at: new Date(Date.now() - 1000) }));
    const fresh = await createApproval(db, request());
    expect(await expireApprovals(db)).toBeGreaterThanOrEqual(1);
    expect((await getApproval(db, old.id))?.state).toBe('expired');
    expect((await getApproval(db, fresh.id))?.state).toBe('pending');
  });

  it('a request past its expiry is no longer listed as pending, before any reconciler pass marks it', async () => {
    const stale = await createApproval(database().db, request({ expires_at: new Date(Date.now() - 1_000) }));
    const fresh = await createApproval(database().db, request());
    const pending = (await listApprovals(database().db, { state: 'pending' })).map((r) => r.id);
    expect(pending).toContain(fresh.id);
    expect(pending).not.toContain(stale.id);
    expect((await getApproval(database().db, stale.id))!.state).toBe('pending');
  });

  it('a waiter sees an answer given from another connection while it polls', async () => {
    const { db } = database();
    const row = await createApproval(db, request());
    const waiting = waitForAnswer(db, { id: row.id, deadline: inMinutes(1), pollMs: 20 });
    await new Promise((r) => setTimeout(r, 60));
    await answerApproval(db, { id: row.id, call_hash: row.call_hash, answer: 'once', answered_by: 'alice' });
    expect(await waiting).toMatchObject({ state: 'approved', answered_by: 'alice' });
  });

  it('a waiter past its deadline expires the request, so a late answer is refused', async () => {
    const { db } = database();
    const row = await createApproval(db, request());
    expect(await waitForAnswer(db, { id: row.id, deadline: new Date(Date.now() + 80), pollMs: 20 })).toMatchObject({ state: 'expired' });
    expect(await answerApproval(db, { id: row.id, call_hash: row.call_hash, answer: 'once', answered_by: 'alice' }))
      .toMatchObject({ ok: false, refusal: 'expired' });
  });

  it('the store approver persists the gate request and returns the bound human answer', async () => {
    const { db } = database();
    const ctx = buildContext({ channel: 'telegram', user_id: 'alice' });
    const req: ApprovalRequest = {
      request_id: 'apr_fromgate1', call_hash: 'h-gate', tool: 'cronjob', args: { action: 'create', token: 'abcd' }, risk: 'dangerous',
      flags: [], scopes: ['cronjob'], allow_always: false, ctx, expires_at: inMinutes(1),
    };
    const approver = storeApprover(db, {
      pollMs: 20,
      onPending: (row, code) => void answerApproval(db, { id: row.id, call_hash: row.call_hash, answer: 'once', answered_by: 'admin', code }),
    });
    const answer = await approver.ask(req, new AbortController().signal);
    expect(answer).toEqual({ answer: 'once', approver: 'admin', request_id: 'apr_fromgate1', call_hash: 'h-gate' });
    expect((await getApproval(db, 'apr_fromgate1'))?.args).toEqual({ action: 'create', token: '[REDACTED]' });
    // the process that waits, so an answer from below it can be told apart from a person's
    expect((await getApproval(db, 'apr_fromgate1'))?.asked_from).toEqual({ ...processIdentity(), ...thisProcess()!, ...pidSpace()! });

    const aborted = new AbortController();
    const pending = storeApprover(db, { pollMs: 20 }).ask({ ...req, request_id: 'apr_fromgate2' }, aborted.signal);
    setTimeout(() => aborted.abort(), 50);
    expect(await pending).toEqual({ answer: 'timeout' });
    expect((await getApproval(db, 'apr_fromgate2'))?.state).toBe('withdrawn');
    // the gate's own wait ran out: an expiry, even though the request's stored time has not come
    const timedOut = new AbortController();
    const late = storeApprover(db, { pollMs: 20 }).ask({ ...req, request_id: 'apr_fromgate3' }, timedOut.signal);
    setTimeout(() => timedOut.abort('timeout'), 50);
    expect(await late).toEqual({ answer: 'timeout' });
    expect((await getApproval(db, 'apr_fromgate3'))?.state).toBe('expired');
  });

  it('a request withdrawn after its expiry has passed is recorded as expired, and a withdrawn one refuses answers as withdrawn', async () => {
    const { db } = database();
    const old = await createApproval(db, request({ expires_at: new Date(Date.now() - 1000) }));
    expect(await endWait(db, old.id, 'withdrawn')).toMatchObject({ state: 'expired' });
    const row = await createApproval(db, request());
    expect(await endWait(db, row.id, 'withdrawn')).toMatchObject({ state: 'withdrawn' });
    expect(await answerApproval(db, { id: row.id, call_hash: row.call_hash, answer: 'once', answered_by: 'alice' }))
      .toMatchObject({ ok: false, refusal: 'withdrawn' });
    const withdrawn = (await listApprovals(db, { state: 'withdrawn' })).map((a) => a.id);
    expect(withdrawn).toContain(row.id);
    expect(withdrawn).not.toContain(old.id);
  });
});
