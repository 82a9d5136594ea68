import { afterAll, describe, expect, it } from 'vitest';
import { createApprovalGate } from '../../src/approval/gate.ts';
import { systemGatePorts } from '../../src/util/system-ports.ts';
import { defaultConfig } from '../../src/config/schema.ts';
import { allowlistStore } from '../../src/store/allowlist.ts';
import { appendAudit, listAudit } from '../../src/store/audit.ts';
import { verifyAudit } from '../../src/store/audit-verify.ts';
import { auditDecisionSink } from '../../src/store/decision-sink.ts';
import { buildContext } from '../../src/tools/context.ts';
import { catalogLookup } from '../../src/tools/facts.ts';
import { freshDatabase, tamper, useTestDatabase, type TestDatabase } from '../support/db.ts';
import { instantClock, RecordingApprover, ScriptedGuard } from '../support/gate-harness.ts';

/**
 * I8: the audit log is hash-chained over every column of a record, so `audit verify` finds an edit to any
 * of them; and a decision's record says who approved it, so an admin can trace an allow to a person.
 */
const database = useTestDatabase();
const made: TestDatabase[] = [];
afterAll(async () => {
  for (const d of made) await d.drop();
});

async function fullChain(n: number): Promise<TestDatabase> {
  const d = await freshDatabase();
  made.push(d);
  for (let i = 1; i <= n; i++) {
    await appendAudit(d.db, {
      kind: 'gate.decision', actor: 'alice', job_id: `job_${i}`, run_id: `run_${i}`, execution_id: `exec-${i}`, trace_id: `trace-${i}`,
      step: 4, rule: 'unattended.read_only', outcome: 'allow', risk: 'read_only', reason: `call ${i}`, data: { i },
    });
  }
  return d;
}

describe('I8: audit verify detects an edit to any column of a record', () => {
  const edits: readonly [string, string][] = [
    ['at', "at = at - interval '1 hour'"],
    ['kind', "kind = 'grant.revoked'"],
    ['actor', "actor = 'mallory'"],
    ['job_id', "job_id = 'job_other'"],
    ['run_id', "run_id = 'run_other'"],
    ['execution_id', "execution_id = 'exec-other'"],
    ['trace_id', "trace_id = 'trace-other'"],
    ['step', 'step = 11'],
    ['rule', "rule = 'approval.human.once'"],
    ['outcome', "outcome = 'deny'"],
    ['risk', "risk = 'dangerous'"],
    ['reason', "reason = 'nothing to see'"],
    ['data', `data = '{"i": 99}'`],
  ];
  it.each(edits)('an edited %s', async (_column, set) => {
    const d = await fullChain(6);
    expect((await verifyAudit(d.db)).ok).toBe(true);
    await tamper(d, `update audit_events set ${set} where seq = 3`);
    const v = await verifyAudit(d.db);
    expect(v.ok).toBe(false);
    expect(v.firstBad).toMatchObject({ seq: 3, problem: 'edited' });
    expect(v.head.seq).toBe(2);
  });
});

describe('I8: a decision\'s record names the approval behind it', () => {
  function gateWith(answer: 'once' | 'always') {
    const config = defaultConfig();
    const guard = new ScriptedGuard();
    guard.commands = [{ program: 'git', subcommand: 'status' }];
    const { db } = database();
    return createApprovalGate(config, {
      ...systemGatePorts,
      guard, allowlist: allowlistStore(db), lookupTool: catalogLookup(config), smartReviewer: null,
      humanApprover: new RecordingApprover(answer), clock: instantClock, sink: auditDecisionSink(db, { run_id: `run_i8_${answer}` }),
    });
  }

  it('a person\'s answer (step 11) and a standing record made by one (step 9) are both traced to the person and the approval', async () => {
    const call = { tool: 'exec', args: { command: 'git status' } };
    const ctx = () => buildContext({ channel: 'telegram', user_id: 'bob' });
    const human = await gateWith('always').check(call, ctx());
    expect(human).toMatchObject({ outcome: 'allow', step: 11, approval_source: 'human', approver: 'alice' });
    const standing = await gateWith('once').check(call, ctx());
    expect(standing).toMatchObject({ outcome: 'allow', step: 9, approval_source: 'auto', approver: 'alice' });

    const [asked] = await listAudit(database().db, { run_id: 'run_i8_always', kind: 'gate.decision' });
    expect(asked).toMatchObject({ step: 11, outcome: 'allow', rule: 'approval.human.always' });
    expect(asked!.data).toMatchObject({ approval_source: 'human', approval_id: human.approval_id, approver: 'alice' });
    const [matched] = await listAudit(database().db, { run_id: 'run_i8_once', kind: 'gate.decision' });
    expect(matched).toMatchObject({ step: 9, outcome: 'allow', rule: 'approval.allowlist' });
    expect(matched!.data).toMatchObject({ approval_source: 'auto', approval_id: standing.approval_id, approver: 'alice' });
    expect(standing.approval_id).toBeTruthy();
  });
});
