import { describe, expect, it } from 'vitest';
import { allowlistStore } from '../../src/store/allowlist.ts';
import { listAudit } from '../../src/store/audit.ts';
import { useTestDatabase } from '../support/db.ts';

const database = useTestDatabase();
const record = { tool: 'exec', scope: 'git status', created_by: 'alice', reason: '"always" answered for exec (git status)', approval_id: 'apr_1' };

describe('allowlist records', () => {
  it('finds only what was added, by tool and scope', async () => {
    const store = allowlistStore(database().db);
    expect(await store.find('exec', 'git status')).toBeNull();
    const added = await store.add(record);
    expect(added).toMatchObject({ tool: 'exec', scope: 'git status', created_by: 'alice' });
    expect(added.id).toMatch(/^alw_/);
    expect(added.created_at).toBeInstanceOf(Date);
    expect(await store.find('exec', 'git status')).toEqual(added);
    expect(await store.find('exec', 'git push')).toBeNull();
    expect(await store.find('write_file', 'git status')).toBeNull();
  });

  it('adding the same live scope twice, even concurrently, keeps one record', async () => {
    const store = allowlistStore(database().db);
    const rec = { ...record, scope: 'npm test' };
    const results = await Promise.all([store.add(rec), store.add(rec), store.add({ ...rec, created_by: 'bob' })]);
    expect(new Set(results.map((r) => r.id)).size).toBe(1);
    expect((await store.list({ tool: 'exec' })).filter((r) => r.scope === 'npm test')).toHaveLength(1);
    expect((await listAudit(database().db, { kind: 'allowlist.added' })).filter((r) => r.data.scope === 'npm test')).toHaveLength(1);
  });

  it('a revoked record no longer matches, stays listed as revoked, and the scope can be granted again', async () => {
    const store = allowlistStore(database().db);
    const rec = { ...record, scope: 'make build' };
    const added = await store.add(rec);
    const revoked = await store.revoke(added.id, 'admin', 'too broad');
    expect(revoked).toMatchObject({ revoked_by: 'admin', revoked_why: 'too broad' });
    expect(await store.find('exec', 'make build')).toBeNull();
    expect(await store.revoke(added.id, 'admin', 'twice')).toBeNull();
    expect((await store.list()).map((r) => r.id)).not.toContain(added.id);
    expect((await store.list({ includeRevoked: true })).map((r) => r.id)).toContain(added.id);
    const again = await store.add(rec);
    expect(again.id).not.toBe(added.id);
    const [audit] = await listAudit(database().db, { kind: 'allowlist.revoked' });
    expect(audit).toMatchObject({ actor: 'admin', reason: 'too broad', data: { allowlist_id: added.id } });
  });
});
