import { describe, expect, it } from 'vitest';
import { defaultConfig } from '../../src/config/schema.ts';
import { executeRun } from '../../src/daemon/run-executor.ts';
import { createGuard } from '../../src/guard/index.ts';
import { systemGuardDeps } from '../../src/util/system-ports.ts';
import { ToolRegistry } from '../../src/tools/registry.ts';
import { capturedLog } from '../support/captured-log.ts';
import { useTestDatabase } from '../support/db.ts';

// A run delivered by the queue but missing from the database was blamed on "another deployment shares this queue …
// give each deployment its own queue.prefix", though the queue's name carries the database and schema: after a
// restore from backup the operator went looking for a second deployment that did not exist.
const database = useTestDatabase();

describe('a delivered run the database does not hold', () => {
  it('is dropped with a warning naming the likely causes, a restored database first, and what to do', async () => {
    const { db } = database();
    const { lines, logger } = capturedLog();
    const config = defaultConfig();
    const result = await executeRun({ db, config, tools: new ToolRegistry([]), guard: createGuard(config, systemGuardDeps({ dns: false })), logger, workerId: 'test:1' }, 'run_restored_away');
    expect(result).toEqual({ kind: 'unknown' });
    expect(lines).toHaveLength(1);
    const [line] = lines;
    expect(line).toMatchObject({ level: 'warn', run_id: 'run_restored_away' });
    const msg = String(line!.msg);
    expect(msg).toContain('dropped it (nothing ran)');
    const restored = msg.indexOf('restored from a backup');
    const pruned = msg.indexOf('deleted by retention');
    const shared = msg.indexOf('another deployment with the same database and schema names');
    expect(restored).toBeGreaterThan(-1);
    expect(pruned).toBeGreaterThan(restored);
    expect(shared).toBeGreaterThan(pruned);
    expect(msg).toContain('After a restore nothing needs doing');
    expect(msg).not.toContain('another deployment shares this queue');
  });
});
