import { readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultConfig, type ConfigInput } from '../../src/config/schema.ts';
import { readFileTool } from '../../src/tools/catalog/read-file.ts';
import { buildContext, NO_TOOLS } from '../../src/tools/context.ts';
import { executeTool } from '../../src/tools/executor.ts';
import { MemorySpillStore } from '../../src/tools/spill.ts';
import type { ToolResult } from '../../src/tools/types.ts';
import { workspaceAndOutside } from '../support/workspace.ts';

let root: string;
let ws: string;

/** 3000 lines of 18 bytes: 54 000 bytes. */
const BIG = Array.from({ length: 3000 }, (_, i) => `line ${String(i + 1).padStart(5, '0')} of big\n`).join('');

beforeAll(async () => {
  ({ root, ws } = await workspaceAndOutside('echo-read-limits-'));
  await writeFile(join(ws, 'big.txt'), BIG);
  await writeFile(join(ws, 'long-line.txt'), `${'x'.repeat(5000)}\nshort\n`);
  await writeFile(join(ws, 'big.bin'), Buffer.concat([Buffer.from('head\0'), Buffer.alloc(5000, 0x41)]));
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

type Tools = NonNullable<ConfigInput['tools']>;
const config = (tools: Tools = {}) => defaultConfig({ tools: { workspace: ws, restrict_to_workspace: true, ...tools } });
const read = (params: Record<string, unknown>, tools: Tools = {}, allowed_tools: string[] = []) =>
  executeTool(readFileTool(config(tools), new MemorySpillStore()), params, buildContext({ tool: 'read_file', params, allowed_tools }));
const out = <T = Record<string, unknown>>(r: ToolResult) => {
  expect(r.error).toBeUndefined();
  return r.output as T;
};

type Page = { content: string; start_line: number; end_line: number; next_offset: number | null; hint?: string; spilled?: unknown; line_cut?: true };

describe('read_file hints name only tools the context may call', () => {
  const small = { spill_threshold_bytes: 4096 };

  it('without read_spill, answers the lines that fit and points at its own offset, which reads the file whole', async () => {
    const allowed = ['read_file', 'list_dir'];
    const first = out<Page>(await read({ path: 'big.txt' }, small, allowed));
    expect(first.spilled).toBeUndefined();
    expect(JSON.stringify(first)).not.toContain('read_spill');
    expect(first).toMatchObject({ start_line: 1, end_line: 227, next_offset: 228 });
    expect(first.hint).toContain('call read_file with offset: 228');
    let text = first.content;
    let next = first.next_offset;
    while (next !== null) {
      const page = out<Page>(await read({ path: 'big.txt', offset: next }, small, allowed));
      expect(Buffer.byteLength(page.content)).toBeLessThanOrEqual(4096);
      text += page.content;
      next = page.next_offset;
    }
    expect(text).toBe(BIG);
  });

  it('with NO_TOOLS in allowed_tools, does not spill either', async () => {
    expect(out<Page>(await read({ path: 'big.txt' }, small, [NO_TOOLS])).spilled).toBeUndefined();
  });

  it('with the default set (allowed_tools empty) or read_spill listed, spills and says read_spill', async () => {
    expect(out<Page>(await read({ path: 'big.txt' }, small)).hint).toBe('call read_spill with spill_id');
    expect(out<Page>(await read({ path: 'big.txt' }, small, ['read_file', 'read_spill'])).hint).toBe('call read_spill with spill_id');
  });

  it('shows the start of a single line longer than the threshold and where the next line is', async () => {
    const r = out<Page>(await read({ path: 'long-line.txt' }, small, ['read_file']));
    expect(r).toMatchObject({ start_line: 1, end_line: 1, next_offset: 2, line_cut: true });
    expect(r.content.length).toBeLessThanOrEqual(4096);
    expect(r.hint).toContain('offset: 2');
  });

  it('refers a file over read_max_bytes to search_files only where search_files may be called', async () => {
    const tight = { read_max_bytes: 1000 };
    const without = await read({ path: 'big.txt' }, tight, ['read_file']);
    expect(without).toMatchObject({ success: false, errorKind: 'business' });
    expect(without.error).toMatch(/^read_file: big\.txt is 54000 bytes, over the 1000-byte size limit \(tools\.read_max_bytes\); read it in parts with offset and limit/);
    expect(without.error).not.toContain('search_files');
    expect((await read({ path: 'big.txt' }, tight)).error).toContain('search_files');
  });
});

describe('read_file of a file over read_max_bytes, in parts', () => {
  const tight = { read_max_bytes: 1000 };

  it('reads the lines asked for with offset and limit, line by line', async () => {
    expect(out(await read({ path: 'big.txt', offset: 2500, limit: 3 }, tight))).toEqual({
      path: 'big.txt', size: 54000, start_line: 2500, end_line: 2502, next_offset: 2503,
      content: 'line 02500 of big\nline 02501 of big\nline 02502 of big\n',
    });
    expect(out(await read({ path: 'big.txt', offset: 2999, limit: 10 }, tight))).toMatchObject({
      end_line: 3000, next_offset: null, total_lines: 3000, content: 'line 02999 of big\nline 03000 of big\n',
    });
  });

  it('refuses parts over the limit, an offset past the end and a binary file, each saying so', async () => {
    expect((await read({ path: 'big.txt', offset: 10 }, tight)).error).toBe('read_file: lines 10 on of big.txt are more than 1000 bytes (tools.read_max_bytes); give a smaller limit');
    expect((await read({ path: 'big.txt', offset: 3001, limit: 1 }, tight)).error).toBe('read_file: offset: line 3001 is past the end of big.txt, which has 3000 lines');
    expect((await read({ path: 'big.bin', limit: 1 }, tight)).error).toContain('big.bin is a binary file');
  });
});

describe('read_file of a file whose stat size is not its length', () => {
  it('reads /proc/self/status (stat size 0) to its end, not one byte of it', async () => {
    const r = out<{ size: number; content: string }>(await read({ path: '/proc/self/status' }, { restrict_to_workspace: false }));
    expect(r.content).toMatch(/^Name:\t/);
    expect(r.content).toMatch(/\nPid:\t\d+\n/);
    expect(r.size).toBe(Buffer.byteLength(r.content));
    // the same file read by Node as a check that nothing was cut
    expect(r.content.split('\n')[0]).toBe((await readFile('/proc/self/status', 'utf8')).split('\n')[0]);
  });
});
