import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startEmbedded } from '../../src/store/embedded.ts';
import { lastStopOf } from '../../src/store/embedded-handle.ts';
import { capturedLog } from '../support/captured-log.ts';
import { freeServerPort } from '../support/ports.ts';

const SLOW = 120_000;
const dirs: string[] = [];
afterAll(async () => {
  for (const d of dirs) await fs.rm(d, { recursive: true, force: true });
});

async function tempDataDir(): Promise<string> {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'echo-embedded-stop-'));
  dirs.push(dir);
  return dir;
}

describe('stopping the embedded PostgreSQL', () => {
  it('a shutdown that ends in a PANIC is logged at error with the exit status and the server log, not as a clean stop', async () => {
    const dataDir = await tempDataDir();
    const { lines, logger } = capturedLog();
    const server = await startEmbedded({ dataDir, port: await freeServerPort(), logger });
    // the shutdown checkpoint cannot write pg_logical/replorigin_checkpoint.tmp: a PANIC, as on a full disk
    const logical = path.join(dataDir, 'pg', 'pg_logical');
    await fs.chmod(logical, 0o500);
    try {
      await server.stop();
    } finally {
      await fs.chmod(logical, 0o700);
    }
    const serverLog = path.join(dataDir, 'pg-server.log');
    expect(await fs.readFile(serverLog, 'utf8')).toContain('abnormal database system shutdown');
    const abnormal = lastStopOf(dataDir)?.abnormal;
    expect(abnormal).toMatch(/did not shut down cleanly \(code [1-9]\d*\); crash recovery runs at its next start; see /);
    expect(abnormal).toContain(serverLog);
    expect(lines.find((l) => String(l.msg).includes('did not shut down cleanly'))).toMatchObject({ level: 'error', exit: expect.stringMatching(/^code [1-9]/), log: serverLog });
    expect(lines.map((l) => l.msg)).not.toContain('embedded PostgreSQL stopped');
  }, SLOW);

  it('a clean shutdown says so, and leaves nothing to report', async () => {
    const dataDir = await tempDataDir();
    const { lines, logger } = capturedLog();
    const server = await startEmbedded({ dataDir, port: await freeServerPort(), logger });
    await server.stop();
    expect(lastStopOf(dataDir)).toEqual({ abnormal: null });
    expect(lines.map((l) => l.msg)).toContain('embedded PostgreSQL stopped');
    expect(lines.filter((l) => l.level === 'error')).toEqual([]);
  }, SLOW);
});
