import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config/load.ts';
import { runCli } from '../support/cli.ts';

// An operator editing a long config wants each problem as `file:line:col: path: message`, in file order, so an
// editor can jump to it; a value that came from an environment variable names the variable instead of a line.
const dir = mkdtempSync(join(tmpdir(), 'echo-config-locations-'));
let n = 0;
const fileWith = (text: string): string => {
  const file = join(dir, `c${n++}.yaml`);
  writeFileSync(file, text);
  return file;
};

/**
 * Where a problem must point, as a person finds it: `[line, text]` is the 1-based line and the first text on it
 * the column must land on; `$VAR` the variable the value came from; `file` the file as a whole.
 */
type Where = readonly [number, string] | `$${string}` | 'file';

/** The expected location, worked out from the file's own text, in the shape the problems carry it. */
function expected(text: string, where: Where): { line?: number; column?: number; env?: string } {
  if (where === 'file') return {};
  if (typeof where === 'string') return { env: where.slice(1) };
  const [line, at] = where;
  const column = text.split('\n')[line - 1]!.indexOf(at) + 1;
  expect(column, `"${at}" is on line ${line}`).toBeGreaterThan(0);
  return { line, column };
}

function problemsOf(file: string, env: NodeJS.ProcessEnv): ConfigError['problems'] {
  try {
    loadConfig(file, env);
  } catch (err) {
    if (err instanceof ConfigError) return err.problems;
    throw err;
  }
  return [];
}

// [behaviour, file text, environment, [path, where] of each problem, in the order they must come]
const CASES: ReadonlyArray<[string, string, NodeJS.ProcessEnv, ReadonlyArray<readonly [string, Where]>]> = [
  ['a nested key, at its value', 'daemon:\n  http:\n    host: 127.0.0.1\n    port: 70000\n', {}, [['daemon.http.port', [4, '70000']]]],
  ['problems in file order, not the schema\'s', 'daemon:\n  stop_timeout_seconds: "abc"\nsecurity:\n  profile: bogus\nqueue:\n  redis_url: 12\n', {}, [
    ['daemon.stop_timeout_seconds', [2, '"abc"']], ['security.profile', [4, 'bogus']], ['queue.redis_url', [6, '12']]]],
  ['a block list item, at the item', 'tools:\n  allow:\n    - read_file\n    - ""\n', {}, [['tools.allow[1]', [4, '""']]]],
  ['a flow list item, at the item', 'permissions:\n  elevated:\n    allow_from:\n      telegram: [u1, 7]\n', {}, [['permissions.elevated.allow_from.telegram[1]', [4, '7]']]]],
  ['two problems in one flow map, left to right', 'notify:\n  targets:\n    ops: { url: "ftp://h.example/x", headers: { X-Id: 5 } }\n', {}, [
    ['notify.targets.ops.url', [3, '"ftp']], ['notify.targets.ops.headers.X-Id', [3, '5 }']]]],
  ['unknown keys in flow maps, each at its key', 'daemon: { concurency: 2, http: { prot: 1 } }\n', {}, [
    ['daemon.concurency', [1, 'concurency']], ['daemon.http.prot', [1, 'prot']]]],
  ['an unknown top-level key, at the key', 'tools:\n  profile: full\npermisions:\n  admin_users: [a]\n', {}, [['permisions', [3, 'permisions']]]],
  ['a key repeated, at its second writing', 'tools:\n  profile: full\n  deny: []\n  profile: minimal\n', {}, [['(yaml)', [4, 'profile']]]],
  ['a YAML syntax error, where the parser stopped', 'daemon:\n  http: port: 1\n', {}, [['(yaml)', [2, 'port']]]],
  ['an unknown tag, at the tag', 'model:\n  name: !foo bar\n', {}, [['(yaml)', [2, '!foo']]]],
  ['a key with no value, at the key', 'security:\n  profile:\n', {}, [['security.profile', [2, 'profile']]]],
  ['a required key missing, at its nearest parent', 'notify:\n  targets:\n    ops:\n      headers: {}\n', {}, [['notify.targets.ops.url', [3, 'ops']]]],
  ['a file that is no mapping, at its start', '- tools\n- security\n', {}, [['(root)', [1, '- tools']]]],
  ['a value from an environment variable, at the variable', 'daemon:\n  concurrency: ${C}\n  http:\n    port: ${PORT:-9464}\n', { C: 'many', PORT: '70000' }, [
    ['daemon.concurrency', '$C'], ['daemon.http.port', '$PORT']]],
  ['a fallback, which the file gives, at its line', 'daemon:\n  http:\n    port: ${PORT:-abc}\n', {}, [['daemon.http.port', [3, '${PORT']]]],
  ['an unset variable, at the reference that needs it', 'model:\n  name: m\n  api_key: ${ECHO_TEST_UNSET_KEY}\n', {}, [['model.api_key', [3, '${ECHO']]]],
  ['variables first, then the file\'s lines', 'security:\n  profile: bogus\ndaemon:\n  concurrency: ${C}\n', { C: 'x' }, [
    ['daemon.concurrency', '$C'], ['security.profile', [2, 'bogus']]]],
];

describe('each config problem names its place in the file', () => {
  it.each(CASES)('%s', (_what, text, env, want) => {
    const problems = problemsOf(fileWith(text), env);
    expect(problems.map((p) => ({ path: p.path, line: p.line, column: p.column, env: p.env })), JSON.stringify(problems))
      .toEqual(want.map(([path, where]) => ({ path, line: undefined, column: undefined, env: undefined, ...expected(text, where) })));
  });

  it('warnings per key carry the line of the key\'s value too', () => {
    const text = 'tools:\n  deny: [exec, exce]\n  allow:\n    - reed_file\n';
    const { warnings } = loadConfig(fileWith(text), {});
    expect(warnings.map((w) => ({ path: w.path, line: w.line, column: w.column }))).toEqual([
      { path: 'tools.deny[1]', ...expected(text, [2, 'exce]']) },
      { path: 'tools.allow[0]', ...expected(text, [4, 'reed_file']) },
    ]);
  });
});

describe('commands print the located problems', () => {
  const text = 'daemon:\n  stop_timeout_seconds: "abc"\nsecurity:\n  profile: bogus\nqueue:\n  redis_url: 12\n';

  it('config validate prints file:line:col: path: message, in file order, exit 78', async () => {
    const file = fileWith(text);
    const r = await runCli(['config', 'validate', '--config', file]);
    expect(r.code).toBe(78);
    const lines = r.stderr.trimEnd().split('\n');
    expect(lines[0]).toBe(`${file}: 3 problem(s)`);
    expect(lines.slice(1).map((l) => l.split(': ')[0])).toEqual([`${file}:2:25`, `${file}:4:12`, `${file}:6:14`]);
    expect(r.stderr).toContain(`${file}:4:12: security.profile: expected one of `);
  });

  it('config validate --json carries line and column as fields', async () => {
    const r = await runCli(['config', 'validate', fileWith(text), '--json']);
    expect(r.code).toBe(78);
    const { problems } = JSON.parse(r.stdout) as { problems: Array<{ path: string; line?: number; column?: number }> };
    expect(problems.map(({ path, line, column }) => ({ path, line, column }))).toEqual([
      { path: 'daemon.stop_timeout_seconds', line: 2, column: 25 },
      { path: 'security.profile', line: 4, column: 12 },
      { path: 'queue.redis_url', line: 6, column: 14 },
    ]);
  });

  it('the daemon refuses the same file with the same located lines, exit 78', async () => {
    const file = fileWith(text);
    const r = await runCli(['daemon', '--config', file]);
    expect(r.code).toBe(78);
    expect(r.stderr).toContain(`${file}:2:25: daemon.stop_timeout_seconds: expected number, got "abc"\n${file}:4:12: security.profile:`);
  });

  it('a problem from a variable names the variable, not a line, and shows no credential', async () => {
    const file = fileWith('queue:\n  redis_url: ${ECHO_TEST_REDIS}\n');
    const r = await runCli(['config', 'validate', file], { env: { ECHO_TEST_REDIS: 'localhost:hunter2pw@6379' } });
    expect(r.code).toBe(78);
    expect(r.stderr).toMatch(new RegExp(`\\n${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: queue\\.redis_url: .*\\(value from environment variable ECHO_TEST_REDIS\\)\\n`));
    expect(r.stderr).not.toContain('hunter2pw');
  });

  it('a credential written in the file is not shown on its located line', async () => {
    const file = fileWith('model:\n  name: m\n  api_key: 6873656372657431\n');
    const r = await runCli(['config', 'validate', file]);
    expect(r.stderr).toContain(`${file}:3:12: model.api_key: expected string, got a number (not shown: it may hold a credential)`);
    expect(r.stderr).not.toMatch(/687365|6\.87365/);
  });

  it('a check on a key the file does not write points at the file; warnings carry their lines', async () => {
    // data_dir under a file: it and the workspace derived from it cannot be made; `tools` is not in the file
    writeFileSync(join(dir, 'a-file'), '');
    const file = fileWith(`daemon:\n  data_dir: ${join(dir, 'a-file', 'data')}\npermissions:\n  approval:\n    auto_approve: [nosuchtool]\n`);
    const r = await runCli(['config', 'validate', file]);
    expect(r.code).toBe(78);
    expect(r.stderr).toContain(`${file}: tools.workspace: ${join(dir, 'a-file', 'data', 'workspace')} cannot be made`);
    expect(r.stderr).toContain(`${file}:2:13: daemon.data_dir: ${join(dir, 'a-file', 'data')} cannot be made`);
    expect(r.stderr).toContain(`${file}:5:20: warning: permissions.approval.auto_approve[0]: "nosuchtool" matches no known tool`);
  });

  it('other commands that load the config print its warnings at their lines too', async () => {
    const file = fileWith('permissions:\n  approval:\n    auto_approve: [read_file, nosuchtool]\n');
    const r = await runCli(['check', 'command', 'ls', '--config', file]);
    expect(r.stderr).toContain(`${file}:3:31: warning: permissions.approval.auto_approve[1]: "nosuchtool" matches no known tool`);
  });
});
