import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { defaultConfig, type ConfigInput } from '../../src/config/schema.ts';
import { executeCodeTool, type Interpreters } from '../../src/tools/catalog/execute-code.ts';
import { buildContext } from '../../src/tools/context.ts';
import { MemoryEffectLedger } from '../../src/tools/effects.ts';
import { executeTool } from '../../src/tools/executor.ts';
import type { ToolResult } from '../../src/tools/types.ts';

const root = mkdtempSync(join(tmpdir(), 'echo-code-test-'));
const workspace = join(root, 'ws');
mkdirSync(join(workspace, 'sub'), { recursive: true });
afterAll(() => rmSync(root, { recursive: true, force: true }));

const cfg = (tools: NonNullable<ConfigInput['tools']> = {}) => defaultConfig({ tools: { workspace, restrict_to_workspace: true, ...tools } });
const ctx = (params: unknown) => buildContext({ user_id: 'alice', tool: 'execute_code', params });
const run = (params: Record<string, unknown>, deps: { interpreters?: Partial<Interpreters> } = {}, tools: NonNullable<ConfigInput['tools']> = {}) =>
  executeTool(executeCodeTool(cfg(tools), deps), params, ctx(params));
const stdout = (r: ToolResult) => (r.output as { stdout: string }).stdout;

describe('execute_code', () => {
  it.each([
    ['node', 'console.log(6 * 7)'],
    ['node', "const { join } = require('node:path');\nconsole.log(join('4', '2').replace('/', ''))"],
    ['node', "import { join } from 'node:path';\nconsole.log(await Promise.resolve(join('4', '2').replace('/', '')))"],
    ['python', 'print(6 * 7)'],
    ['bash', 'a=(4 2); echo "${a[0]}${a[1]}"'],
    ['sh', 'echo $((6 * 7))'],
  ])('runs %s: %s', async (language, code) => {
    const r = await run({ language, code });
    expect(r.error).toBeUndefined();
    expect(r).toMatchObject({ success: true, output: { exit_code: 0, stdout: '42\n' } });
  });

  it('runs in the workspace, or in a cwd inside it', async () => {
    expect(stdout(await run({ language: 'python', code: 'import os; print(os.getcwd())' }))).toBe(`${workspace}\n`);
    expect(stdout(await run({ language: 'sh', code: 'pwd', cwd: 'sub' }))).toBe(`${join(workspace, 'sub')}\n`);
  });

  it.each([
    [{ language: 'cobol', code: 'x' }, /language: expected one of node, python, bash, sh/],
    [{ language: 'node' }, /code: is required/],
    [{ language: 'node', code: '' }, /code/],
    [{ code: 'x' }, /language: is required/],
    [{ language: 'node', code: 'x', timeout_seconds: -1 }, /timeout_seconds/],
    [{ language: 'node', code: 'x', stdin: 'y' }, /stdin: is not a known parameter/],
  ])('names the bad argument in %j', async (params, field) => {
    const r = await run(params);
    expect(r).toMatchObject({ success: false, errorKind: 'validation' });
    expect(r.error).toMatch(field);
  });

  it('refuses a cwd outside the workspace', async () => {
    const r = await run({ language: 'sh', code: 'pwd', cwd: '/' });
    expect(r).toMatchObject({ success: false, errorKind: 'denied' });
    expect(r.error).toMatch(/^cwd:/);
  });

  it('reports a missing interpreter as unavailable, naming it', async () => {
    const r = await run({ language: 'python', code: 'print(1)' }, { interpreters: { python: 'python3-not-installed-echo' } });
    expect(r).toMatchObject({ success: false, errorKind: 'unavailable' });
    expect(r.error).toMatch(/python3-not-installed-echo is not installed/);
  });

  it('fails a snippet that raises, with its stderr in the error', async () => {
    const r = await run({ language: 'python', code: 'import sys\nprint("half")\nraise SystemExit("bad input")' });
    expect(r).toMatchObject({ success: false, errorKind: 'business', output: { exit_code: 1, stdout: 'half\n' } });
    expect(r.error).toMatch(/exited with code 1\nstderr:\nbad input/);
  });

  it('removes the temp source file after the run', async () => {
    const path = stdout(await run({ language: 'node', code: 'console.log(process.argv[1])' })).trim();
    expect(path).toMatch(/echo-code-.*snippet\.js$/);
    expect(existsSync(path)).toBe(false);
    const failed = (await run({ language: 'sh', code: 'echo "$0"; exit 4' })).output as { stdout: string };
    expect(existsSync(failed.stdout.trim())).toBe(false);
  });

  it('times out a snippet that never ends, at the capped deadline', async () => {
    const r = await run({ language: 'node', code: 'setInterval(() => {}, 1000)', timeout_seconds: 30 }, {}, { exec: { timeout_seconds: 1 } });
    // the capped deadline (1 s), not the asked 30 s, which would also run past this test's timeout
    expect(r).toMatchObject({ success: false, errorKind: 'timeout', error: expect.stringMatching(/timed out after 1s/) });
  }, 10_000);

  it('cuts output at tools.exec.max_output_bytes', async () => {
    const r = await run({ language: 'python', code: 'print("y" * 5000)' }, {}, { exec: { max_output_bytes: 64 } });
    expect(r.output).toMatchObject({ stdout: 'y'.repeat(64), truncated: { stdout: true, stderr: false } });
  });

  it("does not see the daemon's environment", async () => {
    process.env.ECHO_AGENT_CODE_SECRET = 'hunter2-code-do-not-leak';
    try {
      const r = await run({ language: 'python', code: 'import os, json; print(json.dumps(dict(os.environ)))' });
      expect(stdout(r)).not.toContain('hunter2-code-do-not-leak');
      expect(Object.keys(JSON.parse(stdout(r)) as object)).toContain('PATH');
    } finally {
      delete process.env.ECHO_AGENT_CODE_SECRET;
    }
  });

  it('runs a side effect once across a first call and its replay', async () => {
    const log = join(workspace, 'code.log');
    const params = { language: 'node', code: `require('node:fs').appendFileSync(${JSON.stringify(log)}, 'ran\\n');` };
    const ledger = new MemoryEffectLedger();
    const first = ctx(params);
    const r1 = await executeTool(executeCodeTool(cfg()), params, first, { ledger });
    const r2 = await executeTool(executeCodeTool(cfg()), params, buildContext({ trace_id: first.trace_id, tool: 'execute_code', params, is_replay: true }), { ledger });
    expect(r1.success).toBe(true);
    expect(r2).toEqual(r1);
    expect(readFileSync(log, 'utf8')).toBe('ran\n');
  });
});
