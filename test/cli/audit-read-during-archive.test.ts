import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { appendAudits } from '../../src/store/audit.ts';
import { deleteArchivedRecords, planArchive, plannedRecords, recordArchive } from '../../src/store/audit-archive.ts';
import { ChainWalk } from '../../src/store/audit-file.ts';
import { freshDatabase, type TestDatabase } from '../support/db.ts';
import { runCli, type CliResult } from '../support/cli.ts';

const READER_CEILING_MS = 60_000;

/**
 * An archive that commits while `verify` or `export` reads the chain in batches. The reader is
 * held on a lock on audit_events after its first query (the archives table), the archive is made
 * and committed meanwhile, and only then does the reader go on: it must not see half of each.
 */
async function readWhileArchiving(args: readonly string[]): Promise<{ result: CliResult; d: TestDatabase }> {
  const d = await freshDatabase();
  await appendAudits(d.db, Array.from({ length: 30 }, (_, i) => ({ kind: 'test.old', reason: `r${i}` })));
  const dir = mkdtempSync(join(tmpdir(), 'echo-audit-snapshot-'));
  const config = join(dir, 'echo-agent.yaml');
  writeFileSync(config, `database:\n  url: postgres://postgres@127.0.0.1:5432/test?options=-c%20search_path%3D${d.schema}\n`);
  let reader: Promise<CliResult> | undefined;
  await d.db.transaction(async (tx) => {
    await tx.execute(sql`lock table audit_events in access exclusive mode`);
    reader = runCli(args, { env: { ECHO_AGENT_CONFIG: config }, timeoutMs: 150_000 });
    await untilWaitingOnAuditEvents(d, reader);
    const before = new Date(Date.now() + 60_000);
    const plan = (await planArchive(tx, before))!;
    const walk = new ChainWalk(plan.after);
    for await (const row of plannedRecords(tx, plan)) walk.push(row);
    await recordArchive(tx, { plan, lastHash: walk.head!.hash, before, file: 'a.jsonl', fileSha256: 'f'.repeat(64), actor: 'ops' });
    expect(await deleteArchivedRecords(tx)).toBe(29);
  });
  return { result: await reader!, d };
}

/** Until the reader waits on the lock: a CLI start is slow under load, so the ceiling is wide; a reader that exited ends it at once. */
async function untilWaitingOnAuditEvents(d: TestDatabase, reader: Promise<CliResult>): Promise<void> {
  const seen: { exited?: CliResult } = {};
  reader.then((r) => { seen.exited = r; }, () => undefined);
  const deadline = Date.now() + READER_CEILING_MS;
  for (;;) {
    const res = await d.pool.query(
      `select count(*)::int as n from pg_locks l join pg_class c on c.oid = l.relation
        join pg_namespace s on s.oid = c.relnamespace where not l.granted and c.relname = 'audit_events' and s.nspname = $1`, [d.schema]);
    if (res.rows[0].n > 0) return;
    const { exited } = seen;
    if (exited) throw new Error(`the reader exited (code ${exited.code}) before it reached audit_events; stderr: ${exited.stderr || '(none)'}`);
    if (Date.now() > deadline) throw new Error(`the reader did not reach audit_events within ${READER_CEILING_MS / 1000} s`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('reading the audit chain while an archive commits', () => {
  it('audit verify reports the chain as it was when it began, not a break where the archive cut', async () => {
    const { result, d } = await readWhileArchiving(['audit', 'verify', '--json']);
    try {
      expect(result.stderr).toBe('');
      expect(result.code).toBe(0);
      expect(JSON.parse(result.stdout)).toMatchObject({ ok: true, checked: 30, from: 1, head: { seq: 30 } });
    } finally {
      await d.drop();
    }
  }, 180_000);

  it('audit export writes a whole, checked chain when an archive commits part-way through', async () => {
    const { result, d } = await readWhileArchiving(['audit', 'export']);
    try {
      expect(result.code).toBe(0);
      const rows = result.stdout.trim().split('\n').map((l) => JSON.parse(l) as { seq: number });
      expect(rows.map((r) => r.seq)).toEqual(Array.from({ length: 30 }, (_, i) => i + 1));
      expect(result.stderr).toMatch(/^exported 30 records, chain ok, head 30:/);
    } finally {
      await d.drop();
    }
  }, 180_000);
});
