import { describe, expect, it } from 'vitest';
import { createApprovalGate } from '../../src/approval/gate.ts';
import { defaultConfig } from '../../src/config/schema.ts';
import { createGuard } from '../../src/guard/index.ts';
import { systemGatePorts, systemGuardDeps } from '../../src/util/system-ports.ts';
import { allowlistStore } from '../../src/store/allowlist.ts';
import { answerApproval, listApprovals } from '../../src/store/approvals.ts';
import { storeApprover } from '../../src/store/approver.ts';
import { auditDecisionSink } from '../../src/store/decision-sink.ts';
import { buildContext } from '../../src/tools/context.ts';
import { catalogLookup } from '../../src/tools/facts.ts';
import { useTestDatabase } from '../support/db.ts';

/**
 * I11: a context's own credentials have no shape the patterns know; a call that carries one (a model
 * that pasted it into a header) must not put it into the decision record, the stored approval request
 * or a hard block's "matched:" text.
 */
const database = useTestDatabase();
const CREDENTIAL = 'Qw7unshapedCredValue';

function gate() {
  const { db } = database();
  const config = defaultConfig();
  return createApprovalGate(config, {
    ...systemGatePorts,
    guard: createGuard(config, systemGuardDeps({ dns: false })), allowlist: allowlistStore(db), lookupTool: catalogLookup(config), smartReviewer: null,
    // whoever answers says no: what matters is what the request stored
    humanApprover: storeApprover(db, { pollMs: 10, onPending: (row, code) => void answerApproval(db, { id: row.id, call_hash: row.call_hash, answer: 'deny', answered_by: 'alice', code }) }),
    sink: auditDecisionSink(db),
  });
}

async function storedText(): Promise<string> {
  const { pool } = database();
  const rows = await pool.query(`select t::text as t from audit_events t union all select t::text from approvals t`);
  return rows.rows.map((r: { t: string }) => r.t).join('\n');
}

describe('I11: the credentials of a context stay out of what the gate stores', () => {
  it('a hard block quoting the credential stores it masked in the decision record', async () => {
    const ctx = buildContext({ channel: 'cli', user_id: 'alice', credentials: { svc: CREDENTIAL } });
    const d = await gate().check({ tool: 'exec', args: { command: `rm -rf / ${CREDENTIAL}` } }, ctx);
    expect(d).toMatchObject({ outcome: 'deny', step: 1, rule: 'shell.rm.recursive_root' });
    const text = await storedText();
    expect(text).toContain('shell.rm.recursive_root');
    expect(text).toContain('rm -rf / [REDACTED]');
    expect(text).not.toContain(CREDENTIAL);
  });

  it('a call a person is asked about stores its request and its decision with the credential masked', async () => {
    const ctx = buildContext({ channel: 'telegram', user_id: 'alice', credentials: { svc: CREDENTIAL } });
    const d = await gate().check({ tool: 'exec', args: { command: `curl -H "X-Key: ${CREDENTIAL}" http://169.254.169.254/latest/` } }, ctx);
    expect(d).toMatchObject({ outcome: 'deny', step: 11, approver: 'alice' });
    const [request] = await listApprovals(database().db, {});
    expect(request!.args).toEqual({ command: 'curl -H "X-Key: [REDACTED]" http://169.254.169.254/latest/' });
    expect(await storedText()).not.toContain(CREDENTIAL);
  });
});
