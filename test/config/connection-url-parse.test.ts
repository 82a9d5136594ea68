import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig, parseConfigText } from '../../src/config/load.ts';
import { runCli } from '../support/cli.ts';

// A database.url or queue.redis_url the driver cannot parse passed `config validate` (only its scheme was checked);
// the daemon then exited 69 ("Invalid URL", no key named) and systemd restarted it every 5 s for ever, and the CLI
// called it an internal error (70). It is the config's problem: exit 78, the key, what is wrong, never the password.
const PASSWORD = 'hunter2-s3cr3t-pw';

function problemsOf(text: string, env: NodeJS.ProcessEnv = {}): ConfigError['problems'] {
  try {
    parseConfigText(text, 'x.yaml', env);
  } catch (err) {
    if (err instanceof ConfigError) {
      expect(err.message).not.toContain(PASSWORD);
      return err.problems;
    }
    throw err;
  }
  return [];
}

const db = (url: string) => `database:\n  url: "${url}"\n`;
const redis = (url: string) => `queue:\n  redis_url: "${url}"\n`;

describe('database.url and queue.redis_url are parsed as the drivers parse them', () => {
  it.each([
    [db(`postgres://u:${PASSWORD}@db.internal:notaport/test`), 'database.url', 'the port "notaport" is not a number'],
    [db(`postgres://u:${PASSWORD}@db.internal:70000/test`), 'database.url', 'the port 70000 is out of range (at most 65535)'],
    [db(`postgres://u:${PASSWORD}@db<internal/test`), 'database.url', 'the host "db<internal" is not a valid host name or address'],
    [db(`postgres://u:${PASSWORD}@db.internal/test?port=fivefour`), 'database.url', 'the port "fivefour" in its query (?port=) is not a number'],
    [redis(`redis://:${PASSWORD}@127.0.0.1:notaport`), 'queue.redis_url', 'the port "notaport" is not a number'],
    [redis(`redis://:${PASSWORD}@cache.internal:6379/zero`), 'queue.redis_url', 'the database number "zero" after the host is not a number'],
    [redis(`redis://:${PASSWORD}@/0`), 'queue.redis_url', 'has a user name or password but no host'],
  ])('%s', (text, path, message) => {
    expect(problemsOf(text)).toEqual([expect.objectContaining({ path, message: expect.stringContaining(message), line: 2 })]);
  });

  it('a numeric password written where a port would be (no "@") is not shown, even out of range', () => {
    for (const text of [redis('redis://:12345678'), redis('redis://:87654321/0')]) {
      const [p] = problemsOf(text);
      expect(p?.message).toMatch(/out of range \(not shown/);
      expect(p?.message).not.toMatch(/12345678|87654321/);
    }
  });

  it('a password that cuts the URL short, or is no valid percent-encoding, is named but never shown', () => {
    const cut = 'pa/ss-s3cr3t';
    for (const text of [db(`postgres://u:${cut}@db.internal/test`), redis(`redis://u:${cut}@cache.internal`), redis(`redis://u${cut}@cache.internal`)]) {
      const [p] = problemsOf(text);
      expect(p?.message).toMatch(/^a "\/", "\?" or "#" in the user name or password ends the host part early/);
      expect(JSON.stringify(p)).not.toMatch(/ss-s3cr3t|pa\b/);
    }
    const [bad] = problemsOf(db(`postgres://u:${PASSWORD}%C3@db.internal/test`));
    expect(bad?.message).toBe('the password is not valid percent-encoding (not shown; write a "%" in it as %25)');
    // no `@`: what reads as the port may be a password written without its host
    const [noAt] = problemsOf(redis(`redis://:${PASSWORD}`));
    expect(noAt?.message).toMatch(/^the port is not a number \(not shown/);
  });

  it('URLs the drivers accept still pass: a socket directory, IPv6, options, an empty port, a raw % in a password', () => {
    for (const text of [
      db('postgres://u:p@/test?host=/var/run/postgresql'),
      db('postgresql://u:p@[::1]:5432/test?options=-c%20search_path%3Dop_main'),
      db('postgres:///test'),
      db('postgres://u:p%zz@db.internal:/test'),
      redis('rediss://default:p@cache.internal:6380/2'),
      redis('redis:///0'),
    ]) expect(problemsOf(text), text).toEqual([]);
  });

  it('a value from an environment variable names the variable', () => {
    const env = { OP_DB_URL: `postgres://u:${PASSWORD}@127.0.0.1:notaport/test`, OP_REDIS: `redis://:${PASSWORD}@127.0.0.1:6379/x` };
    const problems = problemsOf('database:\n  url: ${OP_DB_URL}\nqueue:\n  redis_url: ${OP_REDIS}\n', env);
    expect(problems).toEqual([
      { path: 'database.url', message: 'the port "notaport" is not a number', env: 'OP_DB_URL' },
      { path: 'queue.redis_url', message: 'the database number "x" after the host is not a number (redis://host:port/0)', env: 'OP_REDIS' },
    ]);
  });

  it('config validate, the daemon and a command exit 78 naming the key at file:line:col or its variable, never the password', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'echo-conn-url-'));
    const file = join(dir, 'echo-agent.yaml');
    writeFileSync(file, `daemon:\n  data_dir: ${dir}\ndatabase:\n  url: postgres://u:${PASSWORD}@127.0.0.1:notaport/test\nqueue:\n  redis_url: \${OP_REDIS}\n`);
    expect(() => loadConfig(file, {})).toThrow(ConfigError);
    const env = { ECHO_AGENT_CONFIG: file, OP_REDIS: `redis://:${PASSWORD}@127.0.0.1:notaport` };
    for (const args of [['config', 'validate'], ['daemon'], ['jobs', 'list']]) {
      const r = await runCli(args, { env });
      expect(r.code, `${args.join(' ')}: ${r.stderr}`).toBe(78);
      expect(r.stderr).toContain(`${file}:4:8: database.url: the port "notaport" is not a number`);
      expect(r.stderr).toContain(`${file}: queue.redis_url: the port "notaport" is not a number (value from environment variable OP_REDIS)`);
      expect(r.stderr + r.stdout).not.toContain(PASSWORD);
      expect(r.stderr).not.toMatch(/internal error|Invalid URL/);
    }
  });
});
