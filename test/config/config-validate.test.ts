import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, parseConfigText } from '../../src/config/load.ts';
import { runCli } from '../support/cli.ts';

// [label, file content, a path (or fragment) the error must name, a fragment of the message]
const MALFORMED: ReadonlyArray<[string, string, string, string]> = [
  ['misspelt mode', 'permissions:\n  approval:\n    mode: smrt\n', 'permissions.approval.mode', 'expected one of off, smart, strict, got "smrt"'],
  ['unknown profile', 'tools:\n  profile: everything\n', 'tools.profile', 'expected one of minimal, messaging, coding, full'],
  ['unknown security profile', 'security:\n  profile: paranoid\n', 'security.profile', 'got "paranoid"'],
  ['unknown network policy', 'execution:\n  network_policy: maybe\n', 'execution.network_policy', 'deny, restricted, allow'],
  ['unattended policy typo', 'permissions:\n  approval:\n    unattended_policy: allow-safe\n', 'permissions.approval.unattended_policy', 'got "allow-safe"'],
  ['allow is not a list', 'tools:\n  allow: exec\n', 'tools.allow', 'expected array, got "exec"'],
  ['timeout is a string', 'permissions:\n  approval:\n    wait_timeout_seconds: soon\n', 'permissions.approval.wait_timeout_seconds', 'expected number'],
  ['negative timeout', 'permissions:\n  approval:\n    wait_timeout_seconds: -5\n', 'permissions.approval.wait_timeout_seconds', '-5'],
  ['unknown top-level key', 'permisions:\n  admin_users: [a]\n', 'permisions', 'unknown key'],
  ['allow_from under approval (seed: it belongs to elevated)', 'permissions:\n  approval:\n    allow_from:\n      telegram: [u]\n', 'permissions.approval.allow_from', 'unknown key'],
  ['allow_from value not a list', 'permissions:\n  elevated:\n    allow_from:\n      telegram: user_123\n', 'permissions.elevated.allow_from.telegram', 'expected array'],
  ['cli_auto_approve not boolean', 'permissions:\n  approval:\n    cli_auto_approve: "yes"\n', 'permissions.approval.cli_auto_approve', 'expected boolean'],
  ['bad database url', 'database:\n  url: mysql://x/y\n', 'database.url', 'postgres://'],
  ['bad redis url', 'queue:\n  redis_url: localhost:6379\n', 'queue.redis_url', 'redis://'],
  ['queue prefix with colon', 'queue:\n  prefix: "a:b"\n', 'queue.prefix', 'must not contain ":"'],
  ['max denials zero', 'permissions:\n  approval:\n    max_denials_per_run: 0\n', 'permissions.approval.max_denials_per_run', '0'],
  ['http port out of range', 'daemon:\n  http:\n    port: 70000\n', 'daemon.http.port', '70000'],
  ['unset env reference', 'model:\n  api_key: ${ECHO_TEST_SURELY_UNSET_VAR}\n', 'model.api_key', 'ECHO_TEST_SURELY_UNSET_VAR is not set'],
  ['yaml syntax error', 'tools:\n  profile: [full\n', '(yaml)', ''],
  ['duplicate key', 'tools:\n  profile: full\n  profile: minimal\n', '(yaml)', 'unique'],
  ['root is a list', '- tools\n- security\n', '(root)', 'expected a mapping'],
  ['section is a scalar', 'tools: full\n', 'tools', 'expected object, got "full"'],
  ['lease shorter than its renewal', 'daemon:\n  lease_seconds: 0.5\n', 'daemon.lease_seconds', '2'],
  ['tick that would spin', 'daemon:\n  tick_seconds: 0.001\n', 'daemon.tick_seconds', '0.05'],
  ['stop timeout past the timer limit', 'daemon:\n  stop_timeout_seconds: 3000000\n', 'daemon.stop_timeout_seconds', '2147483'],
  ['notify target without url', 'notify:\n  targets:\n    ops:\n      headers: {}\n', 'notify.targets.ops.url', 'expected'],
  ['empty http host (Node would listen on every interface)', 'daemon:\n  http:\n    host: ""\n', 'daemon.http.host', 'every interface'],
  ['an unknown YAML tag', 'model:\n  name: !foo bar\n', '(yaml)', 'tag'],
  ['an infinite timeout', 'model:\n  timeout_seconds: .inf\n', 'model.timeout_seconds', 'got Infinity'],
  ['a NaN timeout', 'model:\n  timeout_seconds: .nan\n', 'model.timeout_seconds', 'got NaN'],
];

describe('config validation', () => {
  it.each(MALFORMED)('%s: names the path', (_label, text, path, fragment) => {
    let error: unknown;
    try {
      parseConfigText(text, 'x.yaml', {});
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const problems = (error as ConfigError).problems;
    const hit = problems.find((p) => p.path.startsWith(path) && `${p.path}: ${p.message}`.toLowerCase().includes(fragment.toLowerCase()));
    expect(hit, JSON.stringify(problems)).toBeDefined();
  });

  it('lists every problem of a file, not just the first', () => {
    try {
      parseConfigText('tools:\n  profile: x\nsecurity:\n  profile: y\n', 'x.yaml', {});
      expect.unreachable();
    } catch (err) {
      expect((err as ConfigError).problems.map((p) => p.path).sort()).toEqual(['security.profile', 'tools.profile']);
    }
  });

  it.each([
    ['a misspelt scheme', 'model:\n  base_url: htp://user:hunter2pw@x\n', 'model.base_url'],
    ['a URL without its colon', 'queue:\n  redis_url: redis//:hunter2pw@127.0.0.1:6379\n', 'queue.redis_url'],
    ['a key YAML reads as a number', 'model:\n  api_key: 0x68756e74657232\n', 'model.api_key'],
    ['a header typed as a list', 'notify:\n  targets:\n    ops:\n      url: https://h.example/x\n      headers:\n        Authorization: [Bearer, hunter2pw]\n', 'notify.targets.ops.headers.Authorization'],
  ])('never prints the value of a key that may hold a credential (%s, I11)', (_what, text, path) => {
    try {
      parseConfigText(text, 'x.yaml', {});
      expect.unreachable();
    } catch (err) {
      const problems = (err as ConfigError).problems;
      expect(problems.map((p) => p.path)).toContain(path);
      // 0x68756e74657232 is "hunter2" in hex; YAML reads it as the number 29402514837566000
      expect(JSON.stringify(problems)).not.toMatch(/hunter2|2940251483756|68756e74657232/);
      expect((err as ConfigError).message).not.toMatch(/hunter2|2940251483756|68756e74657232/);
    }
  });

  it('says a variable that is set but empty is empty, once', () => {
    try {
      parseConfigText('daemon:\n  http:\n    port: ${PORT}\n', 'x.yaml', { PORT: '' });
      expect.unreachable();
    } catch (err) {
      // at the reference: the file asks for a variable the environment does not give
      expect((err as ConfigError).problems).toEqual([{ path: 'daemon.http.port', message: 'environment variable PORT is empty (referenced as ${PORT})', line: 3, column: 11 }]);
    }
  });

  it('substitutes ${ENV} references and fallbacks', () => {
    const { config } = parseConfigText('model:\n  api_key: ${K}\n  name: ${M:-gpt}\n', 'x.yaml', { K: 'secret' });
    expect(config.model.api_key).toBe('secret');
    expect(config.model.name).toBe('gpt');
  });

  it('reads a value that is only an env reference as the number or boolean its key needs', () => {
    const text = 'daemon:\n  http:\n    port: ${PORT:-9464}\n  concurrency: ${C}\ntools:\n  restrict_to_workspace: ${R}\nmodel:\n  name: ${N}\n';
    const { config } = parseConfigText(text, 'x.yaml', { C: '8', R: 'true', N: '1234' });
    expect(config.daemon.http.port).toBe(9464);
    expect(config.daemon.concurrency).toBe(8);
    expect(config.tools.restrict_to_workspace).toBe(true);
    // a text key stays text, even when its value looks like a number
    expect(config.model.name).toBe('1234');
  });

  it('a referenced value that is not a number still names its path', () => {
    expect(() => parseConfigText('daemon:\n  concurrency: ${C}\n', 'x.yaml', { C: 'many' })).toThrow(/daemon\.concurrency: expected number, got "many"/);
    // only a whole reference is retyped: text around it is a mistake to report
    expect(() => parseConfigText('daemon:\n  concurrency: x${C}\n', 'x.yaml', { C: '8' })).toThrow(/daemon\.concurrency: expected number/);
  });

  it('applies inner defaults when a section is absent or partial', () => {
    const { config } = parseConfigText('permissions:\n  approval:\n    mode: strict\n', 'x.yaml', {});
    expect(config.permissions.approval).toMatchObject({ mode: 'strict', unattended_policy: 'deny', wait_timeout_seconds: 120, max_denials_per_run: 3 });
    expect(config.tools.exec).toEqual({ host: 'sandbox', security: 'allowlist', timeout_seconds: 60, max_output_bytes: 1024 * 1024 });
    expect(config.skills).toEqual({ dir: '', max_archive_bytes: 20 * 1024 * 1024 });
  });

  it('warns about allow/also_allow/deny names that match no tool', () => {
    const { warnings } = parseConfigText('tools:\n  allow: [read_file, reed_file]\n  also_allow: [exce]\n  deny: [cronjob, skil_install]\n', 'x.yaml', {});
    expect(warnings.map((w) => w.path)).toEqual(['tools.allow[1]', 'tools.also_allow[0]', 'tools.deny[1]']);
  });

  it('accepts the documented example file', async () => {
    const r = await runCli(['config', 'validate', 'config/echo-agent.example.yaml']);
    expect(r.code).toBe(0);
  });
});

describe('echo-agent config validate', () => {
  const dir = mkdtempSync(join(tmpdir(), 'echo-config-'));
  const files = MALFORMED.map(([label, text, path], i) => {
    const file = join(dir, `bad-${i}.yaml`);
    writeFileSync(file, text);
    return [label, file, path] as const;
  });

  it('exits 78 on every malformed file, names the path, and prints no stack trace', async () => {
    const results = [];
    for (let i = 0; i < files.length; i += 6) {
      results.push(...await Promise.all(files.slice(i, i + 6).map(async ([label, file, path]) => ({ label, path, r: await runCli(['config', 'validate', file]) }))));
    }
    expect(results.length).toBeGreaterThanOrEqual(15);
    for (const { label, path, r } of results) {
      expect(r.code, label).toBe(78);
      expect(r.stderr, label).toContain(path);
      expect(r.stderr, label).not.toMatch(/\n\s+at .+:\d+:\d+/);
    }
  });

  it('prints warnings for unknown tool names and still exits 0', async () => {
    const file = join(dir, 'warn.yaml');
    writeFileSync(file, 'tools:\n  deny: [exce]\n');
    const r = await runCli(['config', 'validate', file]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('tools.deny[0]: "exce" matches no known tool');
  });

  it('gives the problems as JSON with --json', async () => {
    const r = await runCli(['config', 'validate', files[0]![1], '--json']);
    expect(r.code).toBe(78);
    expect(JSON.parse(r.stdout)).toMatchObject({ ok: false, problems: [{ path: 'permissions.approval.mode' }] });
    // and the error still reaches stderr, where a person or a log looks for it
    expect(r.stderr).toMatch(/permissions\.approval\.mode/);
  });

  it('refuses a file that does not exist with exit 78', async () => {
    const r = await runCli(['config', 'validate', join(dir, 'missing.yaml')]);
    expect(r.code).toBe(78);
    expect(r.stderr).toContain('cannot read: no such file');
  });

  it('stops any command on a bad config with exit 78', async () => {
    const r = await runCli(['--config', files[0]![1], 'tools', 'list']);
    expect(r.code).toBe(78);
    expect(r.stderr).toContain('permissions.approval.mode');
  });
});
