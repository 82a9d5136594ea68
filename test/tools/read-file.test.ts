import { mkdir, rm, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultConfig, type ConfigInput } from '../../src/config/schema.ts';
import { pgSpillStore } from '../../src/store/spills.ts';
import { lineRange, readFileTool } from '../../src/tools/catalog/read-file.ts';
import { readSpillTool } from '../../src/tools/catalog/read-spill.ts';
import { buildContext } from '../../src/tools/context.ts';
import { executeTool } from '../../src/tools/executor.ts';
import { MemorySpillStore, type SpillStore } from '../../src/tools/spill.ts';
import type { Tool, ToolResult } from '../../src/tools/types.ts';
import { useTestDatabase } from '../support/db.ts';
import { workspaceAndOutside } from '../support/workspace.ts';

const database = useTestDatabase();
let root: string;
let ws: string;
let outside: string;

beforeAll(async () => {
  ({ root, ws, outside } = await workspaceAndOutside('echo-read-file-'));
  await mkdir(join(ws, 'dir'));
  await writeFile(join(ws, 'five.txt'), 'one\ntwo\nthree\nfour\nfive\n');
  await writeFile(join(ws, 'no-newline.txt'), 'alpha\nbeta');
  await writeFile(join(ws, 'empty.txt'), '');
  await writeFile(join(ws, 'logo.png'), Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00]));
  await writeFile(join(ws, 'late-nul.txt'), `${'t'.repeat(9000)}\0tail`);
  await writeFile(join(outside, 'secret.txt'), 'outside secret\n');
  await symlink('../outside/secret.txt', join(ws, 'link-out.txt'));
  await symlink('five.txt', join(ws, 'link-in.txt'));
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

const config = (tools: NonNullable<ConfigInput['tools']> = {}) => defaultConfig({ tools: { workspace: ws, restrict_to_workspace: true, ...tools } });
const call = (tool: Tool, params: Record<string, unknown>) => executeTool(tool, params, buildContext({ tool: tool.name, params }));
const out = <T = Record<string, unknown>>(r: ToolResult) => {
  expect(r.error).toBeUndefined();
  return r.output as T;
};
const read = (params: Record<string, unknown>, tools: NonNullable<ConfigInput['tools']> = {}, spill: SpillStore = new MemorySpillStore()) =>
  call(readFileTool(config(tools), spill), params);

describe('read_file', () => {
  it.each([
    ['the whole file', {}, 'one\ntwo\nthree\nfour\nfive\n', 1, 5, null],
    ['from a line on', { offset: 4 }, 'four\nfive\n', 4, 5, null],
    ['a range in the middle', { offset: 2, limit: 2 }, 'two\nthree\n', 2, 3, 4],
    ['the first line', { limit: 1 }, 'one\n', 1, 1, 2],
    ['a limit past the end', { offset: 5, limit: 10 }, 'five\n', 5, 5, null],
  ])('reads %s', async (_case, range, content, start, end, next) => {
    expect(out(await read({ path: 'five.txt', ...range }))).toEqual({
      path: 'five.txt', size: 24, total_lines: 5, start_line: start, end_line: end, next_offset: next, content,
    });
  });

  it('keeps a missing final newline and reads an empty file', async () => {
    expect(out(await read({ path: 'no-newline.txt', offset: 2 }))).toMatchObject({ content: 'beta', total_lines: 2, next_offset: null });
    expect(out(await read({ path: 'no-newline.txt', limit: 1 }))).toMatchObject({ content: 'alpha\n', next_offset: 2 });
    expect(out(await read({ path: 'empty.txt' }))).toMatchObject({ content: '', total_lines: 0, size: 0 });
  });

  it('reads through a symlink that stays inside the workspace', async () => {
    expect(out(await read({ path: 'link-in.txt', limit: 1 }))).toMatchObject({ content: 'one\n' });
  });

  it('refuses an offset past the end, naming offset', async () => {
    const r = await read({ path: 'five.txt', offset: 7 });
    expect(r).toMatchObject({ success: false, errorKind: 'business' });
    expect(r.error).toBe('read_file: offset: line 7 is past the end of five.txt, which has 5 lines');
  });

  it('refuses a file larger than tools.read_max_bytes, naming the limit', async () => {
    const r = await read({ path: 'five.txt' }, { read_max_bytes: 10 });
    expect(r).toMatchObject({ success: false, errorKind: 'business' });
    expect(r.error).toContain('five.txt is 24 bytes, over the 10-byte size limit (tools.read_max_bytes)');
    expect(out(await read({ path: 'five.txt' }, { read_max_bytes: 24 }))).toMatchObject({ size: 24 });
  });

  it('refuses a binary file (NUL in the first 8 KiB) and reads one whose only NUL comes later', async () => {
    const r = await read({ path: 'logo.png' });
    expect(r).toMatchObject({ success: false, errorKind: 'business' });
    expect(r.error).toContain('logo.png is a binary file (a NUL byte in its first 8 KiB)');
    expect(out<{ content: string }>(await read({ path: 'late-nul.txt' })).content.endsWith('\0tail')).toBe(true);
  });

  it.each([
    // where it was looked for: a relative path is the workspace's, which the name alone does not say
    ['missing.txt', () => `read_file: missing.txt does not exist in the workspace ${ws}`],
    ['dir', () => 'read_file: dir is a directory; use list_dir'],
  ])('says what is wrong with %s', async (path, message) => {
    expect(await read({ path })).toEqual({ success: false, errorKind: 'business', error: message() });
  });

  it.each([
    [{}, 'path: is required'],
    [{ path: 5 }, 'path: must be string'],
    [{ path: 'five.txt', offset: 0 }, 'offset: must be >= 1'],
    [{ path: 'five.txt', limit: 1.5 }, 'limit: must be integer'],
    [{ path: 'five.txt', lines: 3 }, 'lines: is not a known parameter'],
  ])('refuses bad arguments %j naming the field', async (params, message) => {
    const r = await read(params);
    expect(r.errorKind).toBe('validation');
    expect(r.error).toContain(message);
  });

  it.each([
    ['an absolute path outside the workspace', () => join(outside, 'secret.txt')],
    ['a relative path climbing out', () => '../outside/secret.txt'],
    ['a symlink inside the workspace pointing outside', () => 'link-out.txt'],
  ])('refuses %s when restrict_to_workspace is on', async (_case, path) => {
    const r = await read({ path: path() });
    expect(r).toMatchObject({ success: false, errorKind: 'denied' });
    expect(r.error).toContain('outside the workspace');
    expect(JSON.stringify(r)).not.toContain('outside secret');
  });

  it('reads outside the workspace when restrict_to_workspace is off', async () => {
    expect(out(await read({ path: 'link-out.txt' }, { restrict_to_workspace: false }))).toMatchObject({ content: 'outside secret\n' });
  });
});

describe('read_file spilling', () => {
  const big = Array.from({ length: 3000 }, (_, i) => `line ${String(i + 1).padStart(4, '0')} é😀`).join('\n').concat('\n');

  it.each([
    ['in-memory', () => new MemorySpillStore()],
    ['PostgreSQL', () => pgSpillStore(database().db)],
  ])('spills content over the threshold and read_spill gives it back whole (%s store)', async (_name, makeStore) => {
    await writeFile(join(ws, 'big.txt'), big);
    const store = makeStore();
    const tools = { spill_threshold_bytes: 16 * 1024 };
    type Spilled = { preview: string; spilled: { spill_id: string; total_chars: number }; hint: string; content?: string; total_lines: number };
    const r = out<Spilled>(await read({ path: 'big.txt' }, tools, store));
    expect(r.content).toBeUndefined();
    expect(r.hint).toBe('call read_spill with spill_id');
    expect(r.total_lines).toBe(3000);
    expect(r.preview.length).toBeLessThanOrEqual(4096);
    expect(r.preview.length).toBeGreaterThan(2048);
    expect(big.startsWith(r.preview)).toBe(true);
    expect(r.preview.endsWith('\n')).toBe(true);
    expect(r.spilled.total_chars).toBe([...big].length);

    const spillTool = readSpillTool(config(tools), store);
    let text = '';
    let offset: number | null = 0;
    let pages = 0;
    while (offset !== null) {
      const page: { content: string; next_offset: number | null } = out(await call(spillTool, { spill_id: r.spilled.spill_id, offset }));
      text += page.content;
      offset = page.next_offset;
      pages++;
    }
    expect(text).toBe(big);
    expect(pages).toBe(Math.ceil(r.spilled.total_chars / (16 * 1024)));
  });

  it('spills only the selected lines, and not at all when they fit', async () => {
    await writeFile(join(ws, 'big.txt'), big);
    const store = new MemorySpillStore();
    const tools = { spill_threshold_bytes: 16 * 1024 };
    const small = out(await read({ path: 'big.txt', offset: 10, limit: 2 }, tools, store));
    expect(small).toMatchObject({ content: 'line 0010 é😀\nline 0011 é😀\n', next_offset: 12 });
    const part = out<{ spilled: { spill_id: string }; start_line: number; end_line: number }>(await read({ path: 'big.txt', offset: 2001 }, tools, store));
    expect(part).toMatchObject({ start_line: 2001, end_line: 3000 });
    const page = await store.get(part.spilled.spill_id, 0, 100_000);
    expect(page?.content).toBe(big.split('\n').slice(2000).join('\n'));
  });
});

describe('lineRange', () => {
  it.each([
    ['', 1, undefined, { content: '', total_lines: 0, end_line: 0 }],
    ['\n', 1, undefined, { content: '\n', total_lines: 1, end_line: 1 }],
    ['a\n\nb', 2, 1, { content: '\n', total_lines: 3, next_offset: 3 }],
    ['a\r\nb\r\n', 2, undefined, { content: 'b\r\n', total_lines: 2 }],
  ])('%j from line %i, limit %s', (text, offset, limit, expected) => {
    expect(lineRange(text, offset, limit)).toMatchObject(expected);
  });
});
