import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { BIN } from '../support/cli.ts';
import { spawnDaemon } from '../support/daemon-process.ts';

// the embedded default: no database.url, no queue.redis_url
const dir = mkdtempSync(join(tmpdir(), 'echo-embedded-abnormal-'));
chmodSync(dir, 0o755);
const dataDir = join(dir, 'data');
const configFile = join(dir, 'echo-agent.yaml');
writeFileSync(configFile, [
  'daemon:', `  data_dir: ${dataDir}`, '  tick_seconds: 0.5', '  reconcile_seconds: 600', '  http:', '    port: 0',
  // below the kernel's range for outgoing connections, apart from embedded-start's ports
  'database:', `  embedded_port: ${30000 + Math.floor(Math.random() * 2000)}`, '',
].join('\n'));
afterAll(() => {
  try {
    chmodSync(join(dataDir, 'pg', 'pg_logical'), 0o700);
  } catch {
    // a daemon that did not start made none
  }
  rmSync(dir, { recursive: true, force: true });
});

describe('a daemon whose embedded PostgreSQL does not shut down cleanly', () => {
  it('exits 69, not 0, and says why: the server\'s exit status and its log file', async () => {
    const daemon = spawnDaemon(configFile, [process.execPath, BIN, 'daemon']);
    await daemon.until('daemon started', 90_000);
    // the shutdown checkpoint will PANIC, as on a full disk: it cannot write pg_logical/replorigin_checkpoint.tmp
    chmodSync(join(dataDir, 'pg', 'pg_logical'), 0o500);
    daemon.child.kill('SIGTERM');
    expect(await daemon.exited, daemon.log().slice(-3000)).toBe(69);
    const serverLog = join(dataDir, 'pg-server.log');
    expect(readFileSync(serverLog, 'utf8')).toContain('abnormal database system shutdown');
    const said = daemon.lines().find((l) => String(l.msg).includes('did not shut down cleanly'));
    expect(said).toMatchObject({ level: 'error', exit: expect.stringMatching(/^code [1-9]/), log: serverLog });
    // the one line on stderr names it too
    expect(daemon.log()).toMatch(/^echo-agent: daemon: stopped: the embedded PostgreSQL \(pid \d+\) did not shut down cleanly \(code \d+\); .*pg-server\.log$/m);
  }, 180_000);
});
