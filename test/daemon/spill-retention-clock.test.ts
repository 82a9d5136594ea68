import { randomBytes } from 'node:crypto';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { defaultConfig } from '../../src/config/schema.ts';
import { startDaemon } from '../../src/daemon/daemon.ts';
import { silentLogger } from '../../src/log/logger.ts';
import { getSpill, putSpill } from '../../src/store/spills.ts';
import { useTestDatabase } from '../support/db.ts';

const database = useTestDatabase();
afterEach(() => { vi.useRealTimers(); });

describe('spill retention', () => {
  it('counts a spill\'s age on the database clock that stamped it: a host clock hours ahead does not drop a fresh one', async () => {
    const { db, url, schema } = database();
    const config = defaultConfig({ tools: { spill_retention_hours: 1 }, queue: { prefix: `test-spillclock-${randomBytes(3).toString('hex')}` }, daemon: { reconcile_seconds: 60, tick_seconds: 0.2 } });
    const daemon = await startDaemon(config, { logger: silentLogger, http: false, work: false, database: { url, schema }, queue: { kind: 'postgres', url, schema: `${schema}_q` } });
    try {
      const id = await putSpill(db, 'still being read', { tool: 'read_file', execution_id: 'exec-spill-clock', run: 'run-spill-clock' });
      // this host's clock three hours ahead of the database's; timers keep running
      vi.useFakeTimers({ toFake: ['Date'], now: Date.now() + 3 * 3_600_000 });
      await daemon.reconcileOnce();
      vi.useRealTimers();
      expect(await getSpill(db, id, 0, 100)).not.toBeNull();
    } finally {
      vi.useRealTimers();
      await daemon.stop();
    }
  }, 60_000);
});
