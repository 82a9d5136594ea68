import { mkdtempSync, readFileSync, rmSync, symlinkSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { defaultConfig, type ConfigInput } from '../../src/config/schema.ts';
import { splitCommandLine } from '../../src/tools/command-line.ts';
import { execTool } from '../../src/tools/catalog/exec.ts';
import { executeCodeTool } from '../../src/tools/catalog/execute-code.ts';
import { processTool } from '../../src/tools/catalog/process.ts';
import { buildContext } from '../../src/tools/context.ts';
import { MemoryEffectLedger } from '../../src/tools/effects.ts';
import { executeTool } from '../../src/tools/executor.ts';
import { ProcessTable } from '../../src/tools/process-table.ts';

// Every command here is harmless and works only inside its own temp workspace.
const root = mkdtempSync(join(tmpdir(), 'echo-exec-'));
const workspace = join(root, 'ws');
mkdirSync(join(workspace, 'sub'), { recursive: true });
symlinkSync(root, join(workspace, 'escape'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const cfg = (extra: ConfigInput = {}) => defaultConfig({ ...extra, tools: { workspace, restrict_to_workspace: true, ...extra.tools } });
const ctx = (params: unknown = {}) => buildContext({ user_id: 'alice', tool: 'exec', params });
/** Running, not a zombie waiting for init to reap it. */
const alive = (pid: number) => {
  try {
    return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
};
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('exec', () => {
  const exec = (params: Record<string, unknown>, extra: ConfigInput = {}) => executeTool(execTool(cfg(extra)), params, ctx(params));

  it('runs a plain command without a shell, in the workspace', async () => {
    const out = await exec({ command: 'pwd' });
    expect(out).toMatchObject({ success: true, output: { exit_code: 0, stdout: `${workspace}\n` } });
    const sub = await exec({ command: "printf '%s|' 'a b' c\\ d", cwd: 'sub' });
    expect(sub.output).toMatchObject({ stdout: 'a b|c d|' });
  });

  it('refuses shell syntax unless the call asks for a shell', async () => {
    const out = await exec({ command: 'echo hi | tr a-z A-Z' });
    expect(out).toMatchObject({ success: false, errorKind: 'validation' });
    expect(out.error).toMatch(/^command: needs a shell because .*shell: true/);
    const shelled = await exec({ command: 'echo hi | tr a-z A-Z', shell: true });
    expect(shelled.output).toMatchObject({ stdout: 'HI\n' });
  });

  it.each([
    [{}, /command/],
    [{ command: '' }, /command/],
    [{ command: 'ls', timeout_seconds: 0 }, /timeout_seconds/],
    [{ command: 'ls', bogus: true }, /bogus/],
  ])('names the bad argument in %j', async (params, field) => {
    const out = await exec(params as Record<string, unknown>);
    expect(out).toMatchObject({ success: false, errorKind: 'validation' });
    expect(out.error).toMatch(field);
  });

  it.each(['/', '..', 'escape'])('refuses a working directory outside the workspace: %s', async (cwd) => {
    const out = await exec({ command: 'pwd', cwd });
    expect(out).toMatchObject({ success: false, errorKind: 'denied' });
  });

  it('fails with the exit code and stderr when the command fails', async () => {
    const out = await exec({ command: 'echo oops >&2; exit 3', shell: true });
    expect(out).toMatchObject({ success: false, errorKind: 'business' });
    expect(out.error).toMatch(/exited with 3; stderr: oops/);
  });

  it('reports a missing program as unavailable', async () => {
    expect(await exec({ command: 'no-such-program-echo-agent' })).toMatchObject({ success: false, errorKind: 'unavailable' });
  });

  it('kills the whole process group at the timeout', async () => {
    const pids = join(root, 'pids.txt');
    const started = Date.now();
    const out = await exec({ command: `sleep 30 & echo $! > ${pids}; sleep 30`, shell: true, timeout_seconds: 1 });
    expect(out).toMatchObject({ success: false, errorKind: 'timeout' });
    expect(Date.now() - started).toBeLessThan(10_000);
    const background = Number(readFileSync(pids, 'utf8').trim());
    await sleep(2_500);
    expect(alive(background)).toBe(false);
  });

  it('caps stdout at tools.exec.max_output_bytes', async () => {
    const out = await exec({ command: 'yes x | head -c 5000', shell: true }, { tools: { exec: { max_output_bytes: 100 } } });
    expect(out.output).toMatchObject({ truncated: { stdout: true } });
    expect((out.output as { stdout: string }).stdout).toHaveLength(100);
  });

  it('stops when the caller cancels', async () => {
    const controller = new AbortController();
    setTimeout(() => controller.abort(new Error('shutdown')), 300);
    const out = await executeTool(execTool(cfg()), { command: 'sleep 20' }, ctx(), { signal: controller.signal });
    expect(out).toMatchObject({ success: false, errorKind: 'timeout' });
  });

  it('does not pass the daemon environment (secrets) to the command', async () => {
    process.env.ECHO_AGENT_TEST_SECRET = 'hunter2-do-not-leak';
    try {
      const out = await exec({ command: 'env' });
      expect((out.output as { stdout: string }).stdout).not.toContain('hunter2-do-not-leak');
      expect((out.output as { stdout: string }).stdout).toMatch(/^PATH=/m);
    } finally {
      delete process.env.ECHO_AGENT_TEST_SECRET;
    }
  });

  it('a replayed call does not run the command again', async () => {
    const log = join(workspace, 'runs.log');
    const params = { command: `echo run >> ${log}`, shell: true };
    const ledger = new MemoryEffectLedger();
    const c = ctx(params);
    const first = await executeTool(execTool(cfg()), params, c, { ledger });
    const replay = await executeTool(execTool(cfg()), params, { ...c, is_replay: true }, { ledger });
    expect(replay).toEqual(first);
    expect(readFileSync(log, 'utf8')).toBe('run\n');
  });
});

describe('splitting a command line', () => {
  it.each([
    ['ls -la /tmp', ['ls', '-la', '/tmp']],
    [`git commit -m "fix \\"x\\""`, ['git', 'commit', '-m', 'fix "x"']],
    ["echo 'a b' c\\ d", ['echo', 'a b', 'c d']],
  ])('%s is plain argv', (line, argv) => {
    expect(splitCommandLine(line)).toEqual({ kind: 'argv', argv });
  });

  it.each(['ls *.ts', 'a | b', 'a && b', 'x=1 cmd', 'echo $HOME', 'echo $(id)', 'cat < f', 'sleep 1 &', 'ls ~', 'if true; then :; fi'])('%s needs a shell', (line) => {
    expect(splitCommandLine(line).kind).toBe('shell');
  });

  it.each(['', 'echo "unclosed'])('%j is not a command line', (line) => {
    expect(splitCommandLine(line).kind).toBe('invalid');
  });
});

describe('execute_code', () => {
  const run = (params: Record<string, unknown>) => executeTool(executeCodeTool(cfg()), params, ctx(params));

  it.each([
    ['node', 'console.log(6 * 7)'],
    ['sh', 'echo $((6 * 7))'],
    ['bash', 'echo $((6 * 7))'],
    ['python', 'print(6 * 7)'],
  ])('runs %s', async (language, code) => {
    expect(await run({ language, code })).toMatchObject({ success: true, output: { stdout: '42\n' } });
  });

  it('runs in the workspace', async () => {
    expect(await run({ language: 'node', code: 'console.log(process.cwd())' })).toMatchObject({ output: { stdout: `${workspace}\n` } });
  });

  it('names a bad language', async () => {
    const out = await run({ language: 'cobol', code: 'x' });
    expect(out).toMatchObject({ success: false, errorKind: 'validation' });
    expect(out.error).toMatch(/language/);
  });

  it('times out a snippet that never ends', async () => {
    expect(await run({ language: 'node', code: 'setInterval(() => {}, 1000)', timeout_seconds: 1 })).toMatchObject({ success: false, errorKind: 'timeout' });
  });

  it('a replayed call does not run the snippet again', async () => {
    const log = join(workspace, 'code.log');
    const params = { language: 'node', code: `import { appendFileSync } from 'node:fs';\nappendFileSync(${JSON.stringify(log)}, 'ran\\n');` };
    const ledger = new MemoryEffectLedger();
    const c = ctx(params);
    await executeTool(executeCodeTool(cfg()), params, c, { ledger });
    await executeTool(executeCodeTool(cfg()), params, { ...c, is_replay: true }, { ledger });
    expect(readFileSync(log, 'utf8')).toBe('ran\n');
  });
});

describe('process', () => {
  it('starts a background process, writes to it, reads its output, signals it', async () => {
    const table = new ProcessTable();
    const tool = processTool(cfg(), table);
    const call = (params: Record<string, unknown>) => executeTool(tool, params, ctx(params));
    const started = await call({ action: 'start', command: 'cat' });
    expect(started.success, started.error).toBe(true);
    const { id } = started.output as { id: string };
    expect(id).toMatch(/^prc_/);
    expect(await call({ action: 'write', id, input: 'hello\n' })).toMatchObject({ success: true });
    let read;
    for (let i = 0; i < 50; i++) {
      read = await call({ action: 'read', id });
      if ((read.output as { output: string }).output.includes('hello')) break;
      await sleep(50);
    }
    expect(read!.output).toMatchObject({ running: true, output: 'hello\n', next_offset: 6 });
    expect(((await call({ action: 'list' })).output as { processes: { id: string }[] }).processes.map((p) => p.id)).toEqual([id]);
    expect(await call({ action: 'signal', id, signal: 'TERM' })).toMatchObject({ success: true });
    for (let i = 0; i < 50 && table.get(id)!.running; i++) await sleep(50);
    expect(table.get(id)!.running).toBe(false);
    await table.closeAll();
  });

  it('refuses unknown ids, bad signals and shell syntax without shell', async () => {
    const table = new ProcessTable();
    const tool = processTool(cfg(), table);
    const call = (params: Record<string, unknown>) => executeTool(tool, params, ctx(params));
    expect(await call({ action: 'signal', id: 'prc_nope', signal: 'KILL' })).toMatchObject({ success: false, errorKind: 'business' });
    const { id } = (await call({ action: 'start', command: 'sleep 30' })).output as { id: string };
    const bad = await call({ action: 'signal', id, signal: 'SEGV' });
    expect(bad).toMatchObject({ success: false, errorKind: 'validation' });
    expect(bad.error).toMatch(/^signal:/);
    expect(await call({ action: 'start', command: 'sleep 1; ls' })).toMatchObject({ success: false, errorKind: 'validation' });
    expect(await call({ action: 'start' })).toMatchObject({ success: false, errorKind: 'validation', error: expect.stringMatching(/^command:/) });
    await table.closeAll();
  });

  it('limits the number of live processes', async () => {
    const table = new ProcessTable(2);
    const tool = processTool(cfg(), table);
    const start = () => executeTool(tool, { action: 'start', command: 'sleep 30' }, ctx());
    await start();
    await start();
    expect(await start()).toMatchObject({ success: false, errorKind: 'business' });
    await table.closeAll();
  });

  it('closeAll kills every process group it started', async () => {
    const table = new ProcessTable();
    const tool = processTool(cfg(), table);
    const pids = join(root, 'bg-pids.txt');
    await executeTool(tool, { action: 'start', command: `sleep 30 & echo $! > ${pids}; wait`, shell: true }, ctx());
    const { pid } = table.list()[0]!;
    for (let i = 0; i < 50; i++) {
      try {
        if (readFileSync(pids, 'utf8').trim()) break;
      } catch { /* not written yet */ }
      await sleep(50);
    }
    const child = Number(readFileSync(pids, 'utf8').trim());
    await table.closeAll();
    await sleep(300);
    expect(table.get(table.list()[0]!.id)!.running).toBe(false);
    expect(alive(child), `pid ${pid} child ${child}`).toBe(false);
  });

  it('refuses a working directory outside the workspace', async () => {
    const out = await executeTool(processTool(cfg(), new ProcessTable()), { action: 'start', command: 'pwd', cwd: '/' }, ctx());
    expect(out).toMatchObject({ success: false, errorKind: 'denied' });
  });
});
