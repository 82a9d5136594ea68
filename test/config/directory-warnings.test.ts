import { chmodSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { directoryWarnings } from '../../src/config/path-checks.ts';
import { defaultConfig } from '../../src/config/schema.ts';
import { runCli } from '../support/cli.ts';

const dir = mkdtempSync(join(tmpdir(), 'echo-dirs-'));
// mkdtemp makes it 0700: as root, OS user postgres could not reach a data_dir under it (a problem of its own)
chmodSync(dir, 0o755);
writeFileSync(join(dir, 'a-file'), 'x');
mkdirSync(join(dir, 'ok'));

describe('config validate checks the directories the daemon must make', () => {
  it('names a workspace under a file, which would stop the daemon with exit 78', () => {
    const w = directoryWarnings(defaultConfig({ tools: { workspace: join(dir, 'a-file', 'ws') }, daemon: { data_dir: join(dir, 'ok', 'data') } }));
    expect(w).toEqual([{ path: 'tools.workspace', message: `${join(dir, 'a-file', 'ws')} cannot be made: ${join(dir, 'a-file')} is a file, not a directory (the daemon would exit 78)`, fatal: true }]);
  });

  it('says nothing of directories that exist or can be made', () => {
    expect(directoryWarnings(defaultConfig({ tools: { workspace: join(dir, 'ok') }, daemon: { data_dir: join(dir, 'ok', 'new', 'deeper') } }))).toEqual([]);
  });

  it.skipIf(userInfo().uid === 0)('warns, without failing, about a directory this account cannot write', () => {
    const locked = join(dir, 'locked');
    mkdirSync(locked);
    chmodSync(locked, 0o555);
    expect(directoryWarnings(defaultConfig({ daemon: { data_dir: join(locked, 'data') } }))[0]?.message).toContain('cannot be made by this account');
  });

  it('fails validation (exit 78) when the daemon would refuse to start whoever runs it: a deploy check must not pass it', async () => {
    const config = join(dir, 'echo-agent.yaml');
    writeFileSync(config, `tools:\n  workspace: ${join(dir, 'a-file', 'ws')}\ndaemon:\n  data_dir: ${join(dir, 'ok')}\n`);
    const r = await runCli(['config', 'validate', config]);
    expect(r.code).toBe(78);
    expect(r.stdout).not.toContain(': ok');
    expect(r.stderr).toContain(`${config}: 1 problem(s)\n${config}:2:14: tools.workspace: ${join(dir, 'a-file', 'ws')} cannot be made: ${join(dir, 'a-file')} is a file`);
  });

  it('keeps a data_dir under a file a warning when database.url is set (the embedded database is not used), exit 0', async () => {
    const config = join(dir, 'echo-agent-db.yaml');
    writeFileSync(config, `database:\n  url: postgres://postgres@127.0.0.1:5432/test\ndaemon:\n  data_dir: ${join(dir, 'a-file', 'data')}\ntools:\n  workspace: ${join(dir, 'ok')}\n`);
    const r = await runCli(['config', 'validate', config]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain(`${config}:4:13: warning: daemon.data_dir: ${join(dir, 'a-file', 'data')} cannot be made`);
  });
});
