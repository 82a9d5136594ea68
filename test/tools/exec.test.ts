import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { defaultConfig, type ConfigInput } from '../../src/config/schema.ts';
import { execTool } from '../../src/tools/catalog/exec.ts';
import { buildContext, type ContextInput } from '../../src/tools/context.ts';
import { MemoryEffectLedger } from '../../src/tools/effects.ts';
import { executeTool } from '../../src/tools/executor.ts';
import type { ToolResult } from '../../src/tools/types.ts';

// Every command here is harmless and works only inside its own temp dirs.
const root = mkdtempSync(join(tmpdir(), 'echo-exec-'));
const workspace = join(root, 'ws');
mkdirSync(join(workspace, 'sub'), { recursive: true });
writeFileSync(join(workspace, 'file.txt'), 'x');
symlinkSync(root, join(workspace, 'escape'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const cfg = (tools: NonNullable<ConfigInput['tools']> = {}) => defaultConfig({ tools: { workspace, restrict_to_workspace: true, ...tools } });
const ctx = (params: unknown, extra: ContextInput = {}) => buildContext({ user_id: 'alice', tool: 'exec', params, ...extra });
const exec = (params: Record<string, unknown>, tools: NonNullable<ConfigInput['tools']> = {}, signal?: AbortSignal) =>
  executeTool(execTool(cfg(tools)), params, ctx(params), signal ? { signal } : {});
const out = (r: ToolResult) => r.output as { exit_code: number | null; signal: string | null; stdout: string; stderr: string; truncated: { stdout: boolean; stderr: boolean }; duration_ms: number };

/** Running, not a zombie left for an init that does not reap. */
const alive = (pid: number) => {
  try {
    return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
};
const pidsIn = (file: string) => readFileSync(file, 'utf8').trim().split(/\s+/).map(Number);

describe('exec', () => {
  it('runs one plain command without a shell, in the workspace by default', async () => {
    const r = await exec({ command: 'pwd' });
    expect(r).toMatchObject({ success: true, output: { exit_code: 0, signal: null, stdout: `${workspace}\n`, stderr: '', truncated: { stdout: false, stderr: false } } });
    expect(out(r).duration_ms).toBeGreaterThanOrEqual(0);
    // quotes are resolved by the parser; nothing is expanded, so `$HOME` in single quotes stays literal
    const quoted = await exec({ command: `printf '%s|' 'a b' c\\ d "e \\"f\\"" '$HOME'`, cwd: 'sub' });
    expect(out(quoted).stdout).toBe('a b|c d|e "f"|$HOME|');
    expect(out(await exec({ command: 'pwd', cwd: 'sub' })).stdout).toBe(`${join(workspace, 'sub')}\n`);
  });

  it.each([
    ['echo hi | tr a-z A-Z', /pipe/],
    ['true && echo yes', /&&/],
    ['echo a; echo b', /list/],
    ['X=1 env', /assignment/],
    ['echo $HOME', /variable/],
    ['echo "$HOME"', /variable/],
    ['echo $(id)', /substitution/],
    ['cat < file.txt', /redirection/],
    ['echo hi > out.txt', /redirection/],
    ['sleep 1 &', /background/],
    ['ls *.txt', /glob/],
    ['ls ~', /~/],
    ['echo {a,b}', /brace/],
    ['if true; then echo y; fi', /construct/],
  ])('refuses shell syntax without shell: true: %s', async (command, what) => {
    const r = await exec({ command });
    expect(r).toMatchObject({ success: false, errorKind: 'validation' });
    expect(r.error).toMatch(/^command: uses shell syntax/);
    expect(r.error).toMatch(what);
    expect(r.error).toContain('shell: true');
  });

  it('runs shell syntax with bash, the dialect the guard reads, when the call asks for it', async () => {
    expect(out(await exec({ command: 'echo hi | tr a-z A-Z', shell: true })).stdout).toBe('HI\n');
    expect(out(await exec({ command: 'echo *.txt', shell: true })).stdout).toBe('file.txt\n');
    // $'…' is ANSI-C quoting to bash (and to the guard); dash would print $\ and run the next line
    expect(out(await exec({ command: "echo $'\\'\necho NEXT\necho \\''", shell: true })).stdout).toBe("'\necho NEXT\necho '\n");
  });

  it.each([
    [{}, /command: is required/],
    [{ command: '' }, /command/],
    [{ command: 'ls', timeout_seconds: 0 }, /timeout_seconds/],
    [{ command: 'ls', shell: 'yes' }, /shell/],
    [{ command: 'ls', bogus: true }, /bogus: is not a known parameter/],
  ])('names the bad argument in %j', async (params, field) => {
    const r = await exec(params as Record<string, unknown>);
    expect(r).toMatchObject({ success: false, errorKind: 'validation' });
    expect(r.error).toMatch(field);
  });

  it('refuses a line that does not parse', async () => {
    const r = await exec({ command: 'echo "unclosed' });
    expect(r).toMatchObject({ success: false, errorKind: 'validation' });
    expect(r.error).toMatch(/^command: does not parse/);
  });

  it.each(['   ', '# only a comment', '\n\t\n'])('refuses a line with nothing to run (%j) as validation, naming the field', async (command) => {
    const r = await exec({ command });
    expect(r).toMatchObject({ success: false, errorKind: 'validation', error: 'command: names no program' });
  });

  it.each(['/', '..', 'escape', root])('refuses a working directory outside the workspace: %s', async (cwd) => {
    const r = await exec({ command: 'pwd', cwd });
    expect(r).toMatchObject({ success: false, errorKind: 'denied' });
    expect(r.error).toMatch(/^cwd:/);
  });

  it('refuses a working directory that is not a directory', async () => {
    expect(await exec({ command: 'pwd', cwd: 'file.txt' })).toMatchObject({ success: false, errorKind: 'business', error: expect.stringMatching(/^cwd: file.txt is not a directory/) });
    expect(await exec({ command: 'pwd', cwd: 'missing' })).toMatchObject({ success: false, errorKind: 'business', error: expect.stringMatching(/^cwd:/) });
  });

  it('fails a non-zero exit as business, with the exit code and stderr in the error and the output kept', async () => {
    const r = await exec({ command: 'echo partial; echo oops >&2; exit 3', shell: true });
    expect(r).toMatchObject({ success: false, errorKind: 'business', output: { exit_code: 3, stdout: 'partial\n', stderr: 'oops\n' } });
    expect(r.error).toMatch(/^exec: exited with code 3\nstderr:\noops\n\nstdout:\npartial/);
  });

  it('names a program that is not on PATH', async () => {
    const r = await exec({ command: 'no-such-program-echo-agent --x' });
    expect(r).toMatchObject({ success: false, errorKind: 'business' });
    expect(r.error).toMatch(/^command: program no-such-program-echo-agent was not found/);
  });

  // Each test below would outlast its vitest timeout if the command were waited for (sleep 10..30).
  it('kills the whole process group at the timeout', async () => {
    const file = join(root, 'timeout-pids');
    // $! is the background sleep; after `exec`, $$ is the foreground one
    const r = await exec({ command: `sleep 30 & echo $! $$ > ${file}; exec sleep 30`, shell: true, timeout_seconds: 1 });
    expect(r).toMatchObject({ success: false, errorKind: 'timeout' });
    expect(r.error).toMatch(/^exec: timed out after 1s; its process group was killed/);
    const pids = pidsIn(file);
    expect(pids).toHaveLength(2);
    for (const pid of pids) expect(alive(pid), `pid ${pid}`).toBe(false);
  }, 10_000);

  it('caps the timeout at tools.exec.timeout_seconds', async () => {
    const r = await exec({ command: 'sleep 10', timeout_seconds: 100 }, { exec: { timeout_seconds: 1 } });
    expect(r).toMatchObject({ success: false, errorKind: 'timeout' });
    expect(r.error).toMatch(/^exec: timed out after 1s;/);
  }, 8_000);

  it('kills what the command left running in the background when it exits', async () => {
    const file = join(root, 'stray-pid');
    // the stray sleep holds stdout open: waiting for EOF instead of the exit would run into the test timeout
    const r = await exec({ command: `sleep 30 & echo $! > ${file}`, shell: true });
    expect(r).toMatchObject({ success: true, output: { exit_code: 0 } });
    const [stray] = pidsIn(file);
    await expect.poll(() => alive(stray!), { timeout: 5_000 }).toBe(false);
  }, 15_000);

  it.each([
    ['stdout', 'head -c 5000 /dev/zero | tr "\\0" x'],
    ['stderr', 'head -c 5000 /dev/zero | tr "\\0" x >&2'],
  ] as const)('cuts %s at tools.exec.max_output_bytes', async (stream, command) => {
    const r = await exec({ command, shell: true }, { exec: { max_output_bytes: 100 } });
    expect(r.success).toBe(true);
    expect(out(r)[stream]).toBe('x'.repeat(100));
    expect(out(r).truncated).toEqual({ stdout: stream === 'stdout', stderr: stream === 'stderr' });
  });

  it('stops and kills the command when the caller cancels', async () => {
    const file = join(root, 'abort-pid');
    const controller = new AbortController();
    setTimeout(() => controller.abort(new Error('shutdown')), 400);
    const r = await exec({ command: `echo $$ > ${file}; exec sleep 20`, shell: true }, {}, controller.signal);
    expect(r).toMatchObject({ success: false, errorKind: 'timeout', error: expect.stringMatching(/^exec: cancelled; its process group was killed/) });
    expect(alive(pidsIn(file)[0]!)).toBe(false);
  }, 10_000);

  it("passes neither the daemon's environment nor the call's credentials to the command", async () => {
    process.env.ECHO_AGENT_TEST_SECRET = 'hunter2-env-do-not-leak';
    try {
      const params = { command: 'env' };
      const r = await executeTool(execTool(cfg()), params, ctx(params, { credentials: { GITHUB_TOKEN: 'cred-do-not-leak' } }));
      const env = out(r).stdout;
      expect(env).toMatch(/^PATH=/m);
      expect(env).not.toContain('hunter2-env-do-not-leak');
      expect(env).not.toContain('ECHO_AGENT_TEST_SECRET');
      expect(env).not.toContain('cred-do-not-leak');
      const names = env.trim().split('\n').map((l) => l.split('=')[0]);
      for (const name of names) expect(['PATH', 'HOME', 'LANG', 'TZ', 'TMPDIR', 'PWD', 'SHLVL', '_']).toContain(name);
    } finally {
      delete process.env.ECHO_AGENT_TEST_SECRET;
    }
  });

  it('redacts credentials the command prints, in output and in errors', async () => {
    const ok = await exec({ command: 'echo api_key=abcdef1234567890' });
    expect(out(ok).stdout).toBe('api_key=[REDACTED]\n');
    const bad = await exec({ command: 'echo password=hunter2hunter2 >&2; exit 1', shell: true });
    expect(bad.error).not.toContain('hunter2hunter2');
    expect(out(bad).stderr).toBe('password=[REDACTED]\n');
  });

  it('runs a side effect once across a first call and its replay', async () => {
    const log = join(workspace, 'runs.log');
    const params = { command: `echo run >> ${log}`, shell: true };
    const ledger = new MemoryEffectLedger();
    const first = ctx(params);
    const r1 = await executeTool(execTool(cfg()), params, first, { ledger });
    const r2 = await executeTool(execTool(cfg()), params, buildContext({ trace_id: first.trace_id, tool: 'exec', params, is_replay: true }), { ledger });
    expect(r1.success).toBe(true);
    expect(r2).toEqual(r1);
    expect(readFileSync(log, 'utf8')).toBe('run\n');
  });

  it('records a command that ran and failed, so its replay does not run it again', async () => {
    const log = join(workspace, 'failed-runs.log');
    const params = { command: `echo run >> ${log}; exit 4`, shell: true };
    const ledger = new MemoryEffectLedger();
    const first = ctx(params);
    const r1 = await executeTool(execTool(cfg()), params, first, { ledger });
    const r2 = await executeTool(execTool(cfg()), params, buildContext({ trace_id: first.trace_id, tool: 'exec', params, is_replay: true }), { ledger });
    expect(r1).toMatchObject({ success: false, errorKind: 'business', effectful: true });
    expect(r2).toEqual(r1);
    expect(readFileSync(log, 'utf8')).toBe('run\n');
  });

  it('does not record a call refused before anything ran, so its replay tries again', async () => {
    const params = { command: 'pwd', cwd: 'made-later' };
    const ledger = new MemoryEffectLedger();
    const first = ctx(params);
    const r1 = await executeTool(execTool(cfg()), params, first, { ledger });
    expect(r1).toMatchObject({ success: false, errorKind: 'business' });
    expect(r1.effectful).toBeUndefined();
    mkdirSync(join(workspace, 'made-later'));
    const r2 = await executeTool(execTool(cfg()), params, buildContext({ trace_id: first.trace_id, tool: 'exec', params, is_replay: true }), { ledger });
    expect(out(r2).stdout).toBe(`${join(workspace, 'made-later')}\n`);
  });
});
