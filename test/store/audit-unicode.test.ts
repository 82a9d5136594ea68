import { describe, expect, it } from 'vitest';
import { verifyAudit } from '../../src/store/audit-verify.ts';
import { appendAudit, listAudit } from '../../src/store/audit.ts';
import { createApproval } from '../../src/store/approvals.ts';
import { useTestDatabase } from '../support/db.ts';

const database = useTestDatabase();

describe('text PostgreSQL\'s jsonb would refuse', () => {
  it('a record whose arguments hold an unpaired surrogate or a NUL is still written, and the chain verifies', async () => {
    const { db } = database();
    const args = { command: 'echo \ud800 done', '\udc00key': 'nul\u0000here' };
    await appendAudit(db, { kind: 'gate.decision', actor: 'model', outcome: 'deny', data: { args } });
    const [row] = await listAudit(db, { kind: 'gate.decision' });
    expect(row!.data).toEqual({ args: { command: 'echo \ufffd done', '\ufffdkey': 'nul\ufffdhere' } });
    expect((await verifyAudit(db)).ok).toBe(true);
  });

  it('an approval request for such a call is stored', async () => {
    const { db } = database();
    const row = await createApproval(db, {
      call_hash: 'h', tool: 'exec', args: { command: 'echo \ud83d' }, risk: 'exec', channel: 'cli', expires_at: new Date(Date.now() + 60_000),
    });
    expect(row.args).toEqual({ command: 'echo \ufffd' });
  });
});
