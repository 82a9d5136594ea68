import { chmodSync, existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../support/cli.ts';

const noStack = (stderr: string) => expect(stderr).not.toMatch(/internal error|\n\s+at .*\.(ts|js):\d+/);

describe('a command with no database to answer from', () => {
  it('with no config file, says so and creates nothing, rather than answering from a new empty database', async () => {
    const cwd = mkdtempSync(join(tmpdir(), 'echo-nodb-'));
    for (const args of [['jobs', 'list'], ['approvals', 'list'], ['grants', 'list']]) {
      const r = await runCli(args, { cwd });
      expect(r.code, r.stderr).toBe(69);
      expect(r.stderr).toContain('no config file (none given with --config or ECHO_AGENT_CONFIG, and no config/echo-agent.yaml here), so the built-in defaults: no database.url, and no embedded database in');
      expect(r.stderr).toContain('Give the daemon\'s config (--config FILE or ECHO_AGENT_CONFIG)');
      expect(r.stdout).toBe('');
      noStack(r.stderr);
    }
    expect(existsSync(join(cwd, 'data'))).toBe(false);
  });

  it('with a config file, names it', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'echo-nodb-'));
    const config = join(dir, 'echo-agent.yaml');
    writeFileSync(config, `daemon:\n  data_dir: ${join(dir, 'state')}\n`);
    const r = await runCli(['audit', 'verify'], { env: { ECHO_AGENT_CONFIG: config } });
    expect(r.code).toBe(69);
    expect(r.stderr).toContain(`config ${config}: no database.url, and no embedded database in ${join(dir, 'state', 'pg')} yet`);
    expect(existsSync(join(dir, 'state'))).toBe(false);
  });

  it('with a config whose data_dir is relative, says it was read from the current directory', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'echo-nodb-'));
    const elsewhere = mkdtempSync(join(tmpdir(), 'echo-nodb-cwd-'));
    const config = join(dir, 'echo-agent.yaml');
    writeFileSync(config, 'daemon:\n  data_dir: ./reldata\n');
    const r = await runCli(['jobs', 'list'], { env: { ECHO_AGENT_CONFIG: config }, cwd: elsewhere });
    expect(r.code).toBe(69);
    expect(r.stderr).toContain(`daemon.data_dir (./reldata) is relative, so it was read from the current directory ${elsewhere}: run this where the daemon runs, or make data_dir absolute.`);
    expect(existsSync(join(elsewhere, 'reldata'))).toBe(false);
  });

  it('echo-agent migrate sets the embedded database up, after which other commands answer from it', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'echo-nodb-'));
    chmodSync(dir, 0o755); // as root the server runs as OS user postgres, which must reach the data directory
    const config = join(dir, 'echo-agent.yaml');
    writeFileSync(config, `daemon:\n  data_dir: ${join(dir, 'state')}\ndatabase:\n  embedded_port: 54391\n`);
    const env = { ECHO_AGENT_CONFIG: config };
    const migrated = await runCli(['migrate'], { env, timeoutMs: 120_000 });
    expect(migrated.code, migrated.stderr).toBe(0);
    expect(migrated.stdout).toMatch(/applied \d+ of \d+ migrations/);
    expect(existsSync(join(dir, 'state', 'pg', 'PG_VERSION'))).toBe(true);
    const listed = await runCli(['jobs', 'list', '--json'], { env, timeoutMs: 60_000 });
    expect(listed.code, listed.stderr).toBe(0);
    expect(JSON.parse(listed.stdout)).toEqual([]);
  }, 180_000);

  it('a mistyped ECHO_AGENT_LOG_LEVEL is a configuration error naming the variable (exit 78), not an internal error', async () => {
    const r = await runCli(['jobs', 'list'], { env: { ECHO_AGENT_LOG_LEVEL: 'verbose' } });
    expect(r.code).toBe(78);
    expect(r.stderr).toContain('ECHO_AGENT_LOG_LEVEL: "verbose" is not a log level; use one of fatal, error, warn, info, debug, trace, silent');
    noStack(r.stderr);
  });
});
