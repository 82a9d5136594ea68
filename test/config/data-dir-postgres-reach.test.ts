import { chmodSync, chownSync, mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { directoryWarnings } from '../../src/config/path-checks.ts';
import { defaultConfig } from '../../src/config/schema.ts';
import { ensureDirectory } from '../../src/daemon/daemon-directories.ts';
import { silentLogger } from '../../src/log/logger.ts';
import { runCli } from '../support/cli.ts';

const asRoot = process.getuid?.() === 0;
const base = mkdtempSync(join(tmpdir(), 'echo-reach-'));
chmodSync(base, 0o755);
afterAll(() => rmSync(base, { recursive: true, force: true }));
const postgres = () => ({ uid: 101, gid: 101 });

// rule config.data_dir_postgres_reach: as root, the daemon's start check for OS user postgres, run by config validate
describe.skipIf(!asRoot)('config validate, as root: a data_dir OS user postgres cannot reach', () => {
  it('under a directory only root can pass is a problem, exit 78 (the daemon would exit 69 whoever runs it)', async () => {
    const closed = join(base, 'closed');
    mkdirSync(closed, { mode: 0o700 });
    expect(directoryWarnings(defaultConfig({ tools: { workspace: base }, daemon: { data_dir: join(closed, 'data') } }), undefined, postgres)).toEqual([{
      path: 'daemon.data_dir', fatal: true,
      message: `${join(closed, 'data')}: OS user postgres cannot reach it: ${closed} is not traversable (mode 700); a daemon run as root exits 69 there (its embedded PostgreSQL runs as postgres), and no other account can reach it; choose a daemon.data_dir outside ${closed} or allow o+x on it`,
    }]);
    const config = join(base, 'closed.yaml');
    writeFileSync(config, `daemon:\n  data_dir: ${join(closed, 'data')}\ntools:\n  workspace: ${base}\n`);
    const r = await runCli(['config', 'validate', config]);
    expect(r.code, r.stderr).toBe(78);
    expect(r.stderr).toContain('OS user postgres cannot reach it');
  });

  it('under another account\'s private directory is a warning: the daemon may run as that account', () => {
    const home = join(base, 'service-home');
    mkdirSync(home, { mode: 0o700 });
    chownSync(home, 65534, 65534);
    const [w] = directoryWarnings(defaultConfig({ tools: { workspace: base }, daemon: { data_dir: join(home, 'data') } }), undefined, postgres);
    expect(w).toMatchObject({ path: 'daemon.data_dir', message: expect.stringContaining(`fine if the daemon runs as the account that owns ${home}`) });
    expect(w?.fatal).toBeUndefined();
  });

  it('says nothing with database.url set, or where postgres can pass', () => {
    expect(directoryWarnings(defaultConfig({ tools: { workspace: base }, daemon: { data_dir: join(base, 'open', 'data') } }), undefined, postgres)).toEqual([]);
    expect(directoryWarnings(defaultConfig({ tools: { workspace: base }, database: { url: 'postgres://x@127.0.0.1/x' }, daemon: { data_dir: join(base, 'closed', 'data') } }), undefined, postgres)).toEqual([]);
  });

  it('the daemon makes a data_dir\'s missing parents traversable (0755), so that a new path passes the check it runs at start', async () => {
    const dataDir = join(base, 'new', 'deeper', 'data');
    await ensureDirectory('daemon.data_dir', dataDir, silentLogger);
    expect(statSync(join(base, 'new')).mode & 0o777).toBe(0o755);
    expect(statSync(join(base, 'new', 'deeper')).mode & 0o777).toBe(0o755);
    expect(statSync(dataDir).mode & 0o777).toBe(0o750);
  });
});
