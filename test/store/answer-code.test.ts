import { describe, expect, it } from 'vitest';
import { createApprovalGate } from '../../src/approval/gate.ts';
import { systemGatePorts } from '../../src/util/system-ports.ts';
import { emptyAllowlist, type ApprovalRequest } from '../../src/approval/ports.ts';
import { defaultConfig } from '../../src/config/schema.ts';
import { RULES } from '../../src/policy/rules.ts';
import { answerCodeHash, codeMatches, newAnswerCode } from '../../src/store/answer-code.ts';
import { answerApproval, createApproval, getApproval, type NewApproval } from '../../src/store/approvals.ts';
import { storeApprover } from '../../src/store/approver.ts';
import { listAudit } from '../../src/store/audit.ts';
import { catalogLookup } from '../../src/tools/facts.ts';
import { buildContext } from '../../src/tools/context.ts';
import { ScriptedGuard } from '../support/gate-harness.ts';
import { tamper, useTestDatabase } from '../support/db.ts';

// A tool process of the asking session can run `approvals approve` detached from the session's process tree
// (setsid), or write the approvals table with plain SQL once it has read the database password. Neither has
// the code the session printed where it asked, so neither can give an answer the session accepts (I3).
const database = useTestDatabase();

function request(code_hash: string, over: Partial<NewApproval> = {}): NewApproval {
  return {
    call_hash: 'h-code', tool: 'cronjob', args: { action: 'create', name: 'nightly' }, risk: 'dangerous', scopes: [], allow_always: false,
    channel: 'cli', user_id: 'alice', expires_at: new Date(Date.now() + 60_000), code_hash, ...over,
  };
}

describe('the code shown where a request was asked', () => {
  it('is 100 bits in groups of four, and two requests never share one', () => {
    const codes = Array.from({ length: 200 }, () => newAnswerCode());
    for (const c of codes) {
      expect(c.text).toMatch(/^[0-9A-HJKMNP-TV-Z]{4}(-[0-9A-HJKMNP-TV-Z]{4}){4}$/);
      expect(c.hash).toBe(answerCodeHash(c.text));
      expect(c.hash).not.toContain(c.text.replace(/-/g, ''));
    }
    expect(new Set(codes.map((c) => c.text)).size).toBe(codes.length);
    // typed by hand: O, I and L for 0, 1 and 1, any case, no dashes
    expect(codeMatches('oooo iiii LLLL-2222 3333', answerCodeHash('0000-1111-1111-2222-3333'))).toBe(true);
    expect(codeMatches('0000-1111-1111-2222-3334', answerCodeHash('0000-1111-1111-2222-3333'))).toBe(false);
  });

  it.each([
    ['no code', undefined, 'code_missing'],
    ['an empty code', ' ', 'code_missing'],
    ['another request\'s code', newAnswerCode().text, 'code_wrong'],
  ] as const)('an answer with %s is refused, recorded with who tried, and the request still waits', async (_what, code, refusal) => {
    const { db } = database();
    const row = await createApproval(db, request(newAnswerCode().hash));
    const result = await answerApproval(db, { id: row.id, call_hash: row.call_hash, answer: 'once', answered_by: 'alice', ...(code !== undefined ? { code } : {}) });
    expect(result).toMatchObject({ ok: false, refusal });
    expect(await getApproval(db, row.id)).toMatchObject({ state: 'pending', answer: null, answer_proof: null });
    const refused = (await listAudit(db, { kind: 'approval.answer_refused', limit: 50 })).find((a) => a.data.approval_id === row.id);
    expect(refused).toMatchObject({ outcome: refusal, actor: 'alice' });
    // the refusal record never keeps what was typed: a near miss would tell the next try too much
    if (code?.trim()) expect(JSON.stringify(refused)).not.toContain(code);
  });

  it('the right code counts however it is typed (lower case, no dashes), and a denial needs it as much as an approval', async () => {
    const { db } = database();
    const code = newAnswerCode();
    const row = await createApproval(db, request(code.hash));
    // by hand: lower case, no dashes, and the digits 0 and 1 read as the letters o and l
    const typed = code.text.toLowerCase().replace(/-/g, '').replace(/0/g, 'o').replace(/1/g, 'l');
    expect(await answerApproval(db, { id: row.id, call_hash: row.call_hash, answer: 'once', answered_by: 'bob', code: typed }))
      .toMatchObject({ ok: true, approval: { state: 'approved', answered_by: 'bob' } });
    expect((await getApproval(db, row.id))!.answer_proof).toMatch(/^[0-9a-f]{64}$/);
    const other = await createApproval(db, request(newAnswerCode().hash));
    expect(await answerApproval(db, { id: other.id, call_hash: other.call_hash, answer: 'deny', answered_by: 'bob' })).toMatchObject({ ok: false, refusal: 'code_missing' });
  });
});

describe('the asking session takes only an answer given with its code', () => {
  const ctx = () => buildContext({ channel: 'telegram', user_id: 'alice' });
  const asked = (id: string): ApprovalRequest => ({
    request_id: id, call_hash: 'h-asked', tool: 'cronjob', args: { action: 'create', name: 'nightly' }, risk: 'dangerous',
    flags: [], scopes: [], allow_always: false, ctx: ctx(), expires_at: new Date(Date.now() + 30_000),
  });

  it('an answer written into the table with plain SQL is unverified, whatever it says', async () => {
    const { db } = database();
    const approver = storeApprover(db, {
      pollMs: 20,
      // what a process with the database password does instead of `approvals approve`
      onPending: (row) => void tamper(database(), `update approvals set state = 'approved', answer = 'once', answered_by = 'alice', answered_at = now() where id = '${row.id}'`),
    });
    expect(await approver.ask(asked('apr_sqlwritten'), new AbortController().signal)).toEqual({ answer: 'unverified' });
  });

  it('an answer given with another request\'s proof is unverified too: the proof binds the code to this request and this answer', async () => {
    const { db } = database();
    const approver = storeApprover(db, {
      pollMs: 20,
      onPending: (row) => void (async () => {
        // a code of the attacker's own, put in place of the hash, then answered with it
        const mine = newAnswerCode();
        await tamper(database(), `update approvals set code_hash = '${mine.hash}' where id = '${row.id}'`);
        await answerApproval(db, { id: row.id, call_hash: row.call_hash, answer: 'once', answered_by: 'alice', code: mine.text });
      })(),
    });
    expect(await approver.ask(asked('apr_swappedcode'), new AbortController().signal)).toEqual({ answer: 'unverified' });
  });

  it('through the gate: step 11 refuses the call with approval.human.unverified, and no human approval is produced', async () => {
    const { db } = database();
    const config = defaultConfig({ tools: { profile: 'full' }, permissions: { approval: { wait_timeout_seconds: 30 } } });
    const decisions: { rule: string; approval_source?: string | null }[] = [];
    const gate = createApprovalGate(config, {
      ...systemGatePorts,
      guard: new ScriptedGuard(), lookupTool: catalogLookup(config), smartReviewer: null,
      allowlist: emptyAllowlist,
      sink: { record: async (d) => { decisions.push(d); } },
      humanApprover: storeApprover(db, {
        pollMs: 20,
        onPending: (row) => void tamper(database(), `update approvals set state = 'approved', answer = 'once', answered_by = 'alice', answered_at = now() where id = '${row.id}'`),
      }),
    });
    const d = await gate.check({ tool: 'cronjob', args: { action: 'list' } }, ctx());
    expect(d).toMatchObject({ outcome: 'deny', step: 11, rule: 'approval.human.unverified' });
    expect(d.reason.startsWith(RULES['approval.human.unverified'])).toBe(true);
    expect(decisions.some((x) => x.approval_source === 'human')).toBe(false);
  });
});
