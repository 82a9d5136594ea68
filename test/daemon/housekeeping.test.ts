import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import { defaultConfig } from '../../src/config/schema.ts';
import { startDaemon } from '../../src/daemon/daemon.ts';
import { silentLogger } from '../../src/log/logger.ts';
import { pgSpillStore } from '../../src/store/spills.ts';
import { useTestDatabase } from '../support/db.ts';

const database = useTestDatabase();

describe('daemon housekeeping', () => {
  it('the reconcile pass removes spills older than tools.spill_retention_hours and keeps newer ones', async () => {
    const { url, schema, db } = database();
    const store = pgSpillStore(db);
    const old = await store.put('old output', { tool: 'read_file', execution_id: 'e1' });
    const fresh = await store.put('fresh output', { tool: 'read_file', execution_id: 'e2' });
    await db.execute(sql`update spills set created_at = now() - interval '3 hours' where id = ${old}`);
    const config = defaultConfig({ tools: { spill_retention_hours: 2 }, daemon: { http: { port: 0 } }, queue: { prefix: `test-house-${randomBytes(3).toString('hex')}` } });
    const daemon = await startDaemon(config, { logger: silentLogger, database: { url, schema }, queue: { kind: 'postgres', url, schema: `${schema}_q` }, http: false, work: false });
    try {
      await daemon.reconcileOnce();
      expect(await store.get(old, 0, 10)).toBeNull();
      expect(await store.get(fresh, 0, 100)).toMatchObject({ content: 'fresh output' });
    } finally {
      await daemon.stop();
    }
  });
});
