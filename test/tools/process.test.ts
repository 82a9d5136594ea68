import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { defaultConfig } from '../../src/config/schema.ts';
import { processTool } from '../../src/tools/catalog/process.ts';
import { buildContext } from '../../src/tools/context.ts';
import { MemoryEffectLedger } from '../../src/tools/effects.ts';
import { executeTool } from '../../src/tools/executor.ts';
import { OutputRing, ProcessTable } from '../../src/tools/process-table.ts';
import type { ToolResult } from '../../src/tools/types.ts';
import { until as waitUntil } from '../support/until.ts';

const root = mkdtempSync(join(tmpdir(), 'echo-process-'));
const workspace = join(root, 'ws');
mkdirSync(join(workspace, 'sub'), { recursive: true });
afterAll(() => rmSync(root, { recursive: true, force: true }));

const cfg = () => defaultConfig({ tools: { workspace, restrict_to_workspace: true } });
const ctx = (params: unknown) => buildContext({ user_id: 'alice', tool: 'process', params });
const tables: ProcessTable[] = [];
afterEach(async () => {
  await Promise.all(tables.splice(0).map((t) => t.closeAll()));
});

function harness(maxLive = 16, bufferBytes = 1024 * 1024) {
  const table = new ProcessTable(maxLive, bufferBytes);
  tables.push(table);
  const tool = processTool(cfg(), table);
  const call = (params: Record<string, unknown>) => executeTool(tool, params, ctx(params));
  const start = async (command: string, extra: Record<string, unknown> = {}) => {
    const r = await call({ action: 'start', command, ...extra });
    expect(r.error).toBeUndefined();
    return r.output as { id: string; pid: number };
  };
  return { table, tool, call, start };
}

type Read = { output: string; next_offset: number; offset: number; running: boolean; exit_code: number | null; dropped_bytes?: number };
const read = (r: ToolResult) => r.output as Read;
const until = (check: () => boolean | Promise<boolean>, ms = 3_000) => waitUntil('the process condition', check, ms, 25);
const alive = (pid: number) => {
  try {
    return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
};

describe('process', () => {
  it('starts, lists, writes to, reads from and ends a background process', async () => {
    const { call, start } = harness();
    const { id, pid } = await start('cat');
    expect(id).toMatch(/^prc_[a-z2-7]+$/);
    expect(alive(pid)).toBe(true);
    const listed = (await call({ action: 'list' })).output as { processes: { id: string; command: string; pid: number; running: boolean; exit_code: number | null; started_at: string }[] };
    expect(listed.processes).toEqual([{ id, command: 'cat', pid, running: true, group_running: false, exit_code: null, signal: null, started_at: expect.any(String) }]);
    expect(Date.parse(listed.processes[0]!.started_at)).not.toBeNaN();

    expect(await call({ action: 'write', id, input: 'hello\n' })).toMatchObject({ success: true, output: { bytes: 6 } });
    await until(async () => read(await call({ action: 'read', id })).output === 'hello\n');
    expect(read(await call({ action: 'read', id }))).toMatchObject({ running: true, offset: 0, next_offset: 6 });

    await call({ action: 'write', id, input: 'world\n', eof: true });
    await until(async () => !read(await call({ action: 'read', id })).running);
    // reading on from next_offset gives only what came after
    expect(read(await call({ action: 'read', id, offset: 6 }))).toMatchObject({ output: 'world\n', offset: 6, next_offset: 12, running: false, exit_code: 0 });
    expect(read(await call({ action: 'read', id, offset: 12 }))).toMatchObject({ output: '', next_offset: 12 });
    const write = await call({ action: 'write', id, input: 'late' });
    expect(write).toMatchObject({ success: false, errorKind: 'business' });
    expect(write.error).toMatch(/has exited/);
  });

  it('signals the process group with an allowed signal, and only while it runs', async () => {
    const { call, start, table } = harness();
    const { id } = await start('sleep 30');
    expect(await call({ action: 'signal', id, signal: 'STOP' })).toMatchObject({ success: true, output: { signal: 'STOP' } });
    expect(await call({ action: 'signal', id, signal: 'CONT' })).toMatchObject({ success: true });
    expect(await call({ action: 'signal', id, signal: 'SIGTERM' })).toMatchObject({ success: true, output: { id, signal: 'TERM' } });
    await until(() => table.get(id)?.running === false);
    expect(table.get(id)).toMatchObject({ running: false, exit_code: null, signal: 'SIGTERM' });
    expect(await call({ action: 'signal', id, signal: 'KILL' })).toMatchObject({ success: false, errorKind: 'business', error: expect.stringMatching(/has exited/) });
  });

  it.each([
    [{ action: 'start' }, 'validation', /^command: is required for action start/],
    [{ action: 'start', command: 'sleep 1; ls' }, 'validation', /^command: uses shell syntax.*shell: true/],
    [{ action: 'start', command: 'pwd', cwd: '/' }, 'denied', /^cwd:/],
    [{ action: 'start', command: 'no-such-program-echo-agent' }, 'business', /not found on PATH/],
    [{ action: 'signal', signal: 'TERM' }, 'validation', /^id: is required/],
    [{ action: 'signal', id: 'prc_nope', signal: 'TERM' }, 'business', /no process prc_nope was started/],
    [{ action: 'write', id: 'prc_nope', input: 'x' }, 'business', /no process prc_nope/],
    [{ action: 'read', id: 'prc_nope' }, 'business', /no process prc_nope/],
    [{ action: 'explode' }, 'validation', /action: expected one of/],
    [{ action: 'read', id: 'prc_x', offset: -1 }, 'validation', /offset/],
    [{ action: 'list', pid: 1 }, 'validation', /pid: is not a known parameter/],
  ])('refuses %j', async (params, kind, message) => {
    const r = await harness().call(params);
    expect(r).toMatchObject({ success: false, errorKind: kind });
    expect(r.error).toMatch(message);
  });

  it('refuses signals off the allow-list and a missing input, naming the field', async () => {
    const { call, start } = harness();
    const { id } = await start('sleep 30');
    expect(await call({ action: 'signal', id, signal: 'SEGV' })).toMatchObject({ success: false, errorKind: 'validation', error: expect.stringMatching(/^signal: expected one of TERM, KILL/) });
    expect(await call({ action: 'signal', id })).toMatchObject({ success: false, errorKind: 'validation', error: expect.stringMatching(/^signal: is required/) });
    expect(await call({ action: 'write', id })).toMatchObject({ success: false, errorKind: 'validation', error: expect.stringMatching(/^input: is required/) });
  });

  it('runs with a shell when asked, in a cwd inside the workspace', async () => {
    const { call, start } = harness();
    const { id } = await start('pwd && echo "$0"', { shell: true, cwd: 'sub' });
    await until(async () => !read(await call({ action: 'read', id })).running);
    expect(read(await call({ action: 'read', id })).output).toBe(`${join(workspace, 'sub')}\nbash\n`);
  });

  it('limits the number of live processes', async () => {
    const { call, start, table } = harness(2);
    const first = await start('sleep 30');
    await start('sleep 30');
    const third = await call({ action: 'start', command: 'sleep 30' });
    expect(third).toMatchObject({ success: false, errorKind: 'business' });
    expect(third.error).toMatch(/2 processes are running already/);
    await call({ action: 'signal', id: first.id, signal: 'KILL' });
    await until(() => table.live() < 2);
    await start('sleep 30');
  });

  it('work a shell backgrounded and left behind still counts against the limit, and can be signalled', async () => {
    const { call, start, table } = harness(1);
    const { id } = await start('sleep 30 & echo started', { shell: true });
    await until(async () => !read(await call({ action: 'read', id })).running);
    const listed = (await call({ action: 'list' })).output as { processes: { id: string; running: boolean; group_running: boolean }[] };
    expect(listed.processes.find((p) => p.id === id)).toMatchObject({ running: false, group_running: true });
    const second = await call({ action: 'start', command: 'sleep 30' });
    expect(second.error).toMatch(/1 processes are running already/);
    expect(await call({ action: 'signal', id, signal: 'KILL' })).toMatchObject({ success: true });
    await until(() => table.live() === 0);
    await start('true');
  });

  it('an exited shell whose backgrounded work still runs is never evicted, so it stays on the limit and in reach', async () => {
    // maxLive 2 keeps 4 entries: exited ones are evicted oldest first to make room
    const { call, start, table } = harness(2);
    const { id } = await start('sleep 30 & echo started', { shell: true });
    await until(async () => !read(await call({ action: 'read', id })).running);
    for (let i = 0; i < 6; i++) {
      const { id: quick } = await start('true');
      await until(async () => !read(await call({ action: 'read', id: quick })).running);
    }
    expect(table.get(id)).toMatchObject({ running: false, group_running: true });
    expect(table.live()).toBe(1);
    await start('sleep 30');
    expect((await call({ action: 'start', command: 'sleep 30' })).error).toMatch(/2 processes are running already/);
  });

  it('forgets a left-behind group soon after it empties, without anyone asking', async () => {
    const { call, start, table } = harness(2);
    // the member outlives the shell by far, whatever the load, until the test ends it
    const { id } = await start('sleep 30 & echo "member $!"', { shell: true });
    await until(() => table.get(id)?.running === false, 30_000);
    const member = Number(/member (\d+)/.exec(read(await call({ action: 'read', id })).output)?.[1]);
    expect(member).toBeGreaterThan(0);
    // the group is remembered while its member runs, then dropped by the sweep
    const groups = (table as unknown as { groups: Set<number> }).groups;
    expect(groups.size).toBe(1);
    process.kill(member, 'SIGKILL');
    await until(() => groups.size === 0, 30_000);
  });

  it('lists and reads processes with their commands redacted (I11)', async () => {
    const { call, start } = harness();
    const { id } = await start("sleep 5 --header 'Authorization: Bearer abcdefgh12345678'");
    const listed = JSON.stringify((await call({ action: 'list' })).output);
    const shown = JSON.stringify((await call({ action: 'read', id })).output);
    for (const text of [listed, shown]) {
      expect(text).toContain(id);
      expect(text).not.toContain('abcdefgh12345678');
    }
  });

  it('keeps the newest output in a ring of tools.exec.max_output_bytes and says what was dropped', async () => {
    const { call, start } = harness(16, 10);
    const { id } = await start('printf abcdefghijklmnopqrstuvwxyz');
    await until(async () => read(await call({ action: 'read', id })).next_offset === 26);
    expect(read(await call({ action: 'read', id }))).toMatchObject({ output: 'qrstuvwxyz', offset: 16, next_offset: 26, dropped_bytes: 16 });
    expect(read(await call({ action: 'read', id, offset: 20 }))).toMatchObject({ output: 'uvwxyz', offset: 20 });
  });

  it('a ring drops whole and partial chunks from the front', () => {
    const ring = new OutputRing(5);
    for (const c of ['ab', 'cd', 'efg']) ring.push(Buffer.from(c));
    expect(ring.read(0)).toMatchObject({ from: 2, next_offset: 7, dropped: 2 });
    expect(ring.read(0).data.toString()).toBe('cdefg');
    ring.push(Buffer.from('0123456789'));
    expect(ring.read(3).data.toString()).toBe('56789');
    expect(ring.read(99)).toMatchObject({ from: 17, next_offset: 17, dropped: 0 });
  });

  it('closeAll kills every process group it started, including what a leader left behind', async () => {
    const { start, table } = harness();
    const file = join(root, 'bg-pid');
    const a = await start('sleep 30');
    const b = await start(`sleep 30 & echo $! > ${file}; wait`, { shell: true });
    // a leader that exited while its background child runs on
    const c = await start(`sleep 30 & echo $! > ${file}-2`, { shell: true });
    await until(() => {
      try {
        return readFileSync(file, 'utf8').trim() !== '' && readFileSync(`${file}-2`, 'utf8').trim() !== '';
      } catch {
        return false;
      }
    });
    await until(() => table.get(c.id)?.running === false);
    const strays = [file, `${file}-2`].map((f) => Number(readFileSync(f, 'utf8').trim()));
    for (const pid of [a.pid, b.pid, ...strays]) expect(alive(pid)).toBe(true);
    await table.closeAll();
    expect(table.list().every((p) => !p.running)).toBe(true);
    for (const pid of [a.pid, b.pid, ...strays]) expect(alive(pid), `pid ${pid}`).toBe(false);
  });

  it("runs shell code alone: the daemon user's ~/.bashrc, which nobody judged, is not sourced first", async () => {
    // bash -c with a socket for stdin and no SHLVL takes itself for an ssh session and reads ~/.bashrc
    const home = mkdtempSync(join(root, 'home-'));
    writeFileSync(join(home, '.bashrc'), `echo sourced > ${join(home, 'marker')}\n`);
    const before = process.env.HOME;
    process.env.HOME = home;
    try {
      const { call, start } = harness();
      const { id } = await start('echo ran', { shell: true });
      await until(async () => !read(await call({ action: 'read', id })).running);
      expect(read(await call({ action: 'read', id })).output).toBe('ran\n');
      expect(existsSync(join(home, 'marker'))).toBe(false);
    } finally {
      process.env.HOME = before;
    }
  });

  it("does not pass the daemon's environment to the process, and redacts what it prints", async () => {
    process.env.ECHO_AGENT_PROC_SECRET = 'hunter2-proc-do-not-leak';
    try {
      const { call, start } = harness();
      const { id } = await start('env');
      await until(async () => !read(await call({ action: 'read', id })).running);
      const env = read(await call({ action: 'read', id })).output;
      expect(env).toMatch(/^PATH=/m);
      expect(env).not.toContain('hunter2-proc-do-not-leak');
      const { id: loud } = await start('echo token=abcdef123456');
      await until(async () => !read(await call({ action: 'read', id: loud })).running);
      expect(read(await call({ action: 'read', id: loud })).output).toBe('token=[REDACTED]\n');
    } finally {
      delete process.env.ECHO_AGENT_PROC_SECRET;
    }
  });

  it('starts a process once across a first call and its replay', async () => {
    const { tool, table } = harness();
    const params = { action: 'start', command: 'sleep 30' };
    const ledger = new MemoryEffectLedger();
    const first = ctx(params);
    const r1 = await executeTool(tool, params, first, { ledger });
    const r2 = await executeTool(tool, params, buildContext({ trace_id: first.trace_id, tool: 'process', params, is_replay: true }), { ledger });
    expect(r1.success).toBe(true);
    expect(r2).toEqual(r1);
    expect(table.list()).toHaveLength(1);
  });
});
