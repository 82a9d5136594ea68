import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BIN, ROOT, runCli } from '../support/cli.ts';

// A command whose database fails it says which way, all with exit 69: "cannot reach" only when no connection could
// be made, since that sends an operator to the network. A server that answered and refused, or a local file of the
// embedded database, is named as such.
const dir = mkdtempSync(join(tmpdir(), 'echo-db-failure-words-'));
const configWith = (name: string, text: string): NodeJS.ProcessEnv => {
  const file = join(dir, name);
  writeFileSync(file, text);
  return { ECHO_AGENT_CONFIG: file };
};
const noStack = (stderr: string) => expect(stderr).not.toMatch(/internal error|\n\s+at .*\.(ts|js):\d+/);

describe('what a command says when its database fails it', () => {
  it('a server that is not there: cannot reach the database, naming database.url', async () => {
    const r = await runCli(['jobs', 'list'], { env: configWith('closed.yaml', 'database:\n  url: postgres://postgres@127.0.0.1:1/test\n') });
    expect(r.code, r.stderr).toBe(69);
    expect(r.stderr).toBe('echo-agent: cannot reach the database (database.url): connect ECONNREFUSED 127.0.0.1:1\n');
  });

  it('a server that answers and refuses the connection (no such database): the database refused, with its SQLSTATE, not cannot reach', async () => {
    const name = `echo_none_${randomBytes(4).toString('hex')}`;
    const r = await runCli(['audit', 'verify'], { env: configWith('no-db.yaml', `database:\n  url: postgres://postgres@127.0.0.1:5432/${name}\n`) });
    expect(r.code, r.stderr).toBe(69);
    expect(r.stderr).toBe(`echo-agent: the database refused: database "${name}" does not exist (SQLSTATE 3D000; check database.url)\n`);
  });

  // a full disk is acted out in a mount namespace of the command's own, on a tmpfs filled before it starts
  it.skipIf(process.getuid?.() !== 0)('an embedded data directory on a full disk: a local file error naming the directory and the cause', async () => {
    const state = join(dir, 'state');
    mkdirSync(state);
    const env = configWith('embedded.yaml', `daemon:\n  data_dir: ${state}\n`);
    const script = `mount -t tmpfs -o size=16k tmpfs "${state}" && mkdir "${state}/pg" && echo 16 > "${state}/pg/PG_VERSION" && { cat /dev/zero > "${state}/fill" 2>/dev/null; true; } && exec "${process.execPath}" "${BIN}" jobs list`;
    const r = spawnSync('unshare', ['-m', '--propagation', 'private', 'sh', '-c', script], { cwd: ROOT, env: { ...process.env, ...env }, encoding: 'utf8', timeout: 30_000 });
    expect(r.status, r.stderr).toBe(69);
    expect(r.stderr).toBe(`echo-agent: local file error in the embedded database's data directory ${state}: ENOSPC: no space left on device, write (the file system holding it is full)\n`);
    noStack(r.stderr);
  });
});
