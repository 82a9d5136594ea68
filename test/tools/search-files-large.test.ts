import { mkdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultConfig } from '../../src/config/schema.ts';
import { SKIPPED_LISTED_MAX, searchFilesTool } from '../../src/tools/catalog/search-files.ts';
import { buildContext } from '../../src/tools/context.ts';
import { executeTool } from '../../src/tools/executor.ts';
import type { ToolResult } from '../../src/tools/types.ts';
import { workspaceAndOutside } from '../support/workspace.ts';

let root: string;
let ws: string;

const MIB = 1024 * 1024;
/** Line n (1-based) of huge.log; 24 bytes each, so 3 MiB is about 131 000 lines and several search blocks. */
const logLine = (n: number) => `entry ${String(n).padStart(10, '0')} ${n === 120_000 ? 'XX' : 'ok'}\n`;
const LOG_LINES = Math.ceil((3 * MIB) / logLine(1).length);

beforeAll(async () => {
  ({ root, ws } = await workspaceAndOutside('echo-search-large-'));
  await writeFile(join(ws, 'huge.log'), Array.from({ length: LOG_LINES }, (_, i) => logLine(i + 1)).join(''));
  await mkdir(join(ws, 'mixed'));
  await writeFile(join(ws, 'mixed', 'blob.bin'), Buffer.from('needle\0binary'));
  await writeFile(join(ws, 'mixed', 'notes.txt'), 'no match here\n');
  await writeFile(join(ws, 'one-line.txt'), 'a\n');
  await writeFile(join(ws, 'long-line.txt'), `first needle\n${'x'.repeat(MIB + 10)}\nlast needle\n`);
  await mkdir(join(ws, 'blobs'));
  for (let i = 0; i < SKIPPED_LISTED_MAX + 5; i++) await writeFile(join(ws, 'blobs', `b${String(i).padStart(2, '0')}.bin`), Buffer.from('needle\0'));
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

const config = () => defaultConfig({ tools: { workspace: ws, restrict_to_workspace: true } });
const search = (params: Record<string, unknown>, opts: { streamMaxBytes?: number } = {}) =>
  executeTool(searchFilesTool(config(), opts), params, buildContext({ tool: 'search_files', params }));
type Found = { matches: { file: string; line?: number; text?: string }[]; truncated: boolean; skipped_files?: number; skipped?: { path: string; reason: string }[] };
const out = (r: ToolResult) => {
  expect(r.error).toBeUndefined();
  return r.output as Found;
};

describe('search_files on large files', () => {
  it('searches a file over 1 MiB to its end, numbering lines across its blocks', async () => {
    const r = out(await search({ path: 'huge.log', pattern: 'XX$' }));
    expect(r.matches).toEqual([{ file: 'huge.log', line: 120_000, text: logLine(120_000).trimEnd() }]);
    expect(r.skipped).toBeUndefined();
    const last = out(await search({ path: '.', glob: '*.log', pattern: `${String(LOG_LINES).padStart(10, '0')} ok` }));
    expect(last.matches.map((m) => m.line)).toEqual([LOG_LINES]);
  });

  it('says how far it searched a file larger than it searches', async () => {
    const r = out(await search({ path: 'huge.log', pattern: '0000000001 ok|XX' }, { streamMaxBytes: MIB }));
    expect(r.matches.map((m) => m.line)).toEqual([1]);
    const searched = Math.floor(MIB / logLine(1).length);
    expect(r.skipped).toEqual([{ path: 'huge.log', reason: `is larger than 1 MiB; only its first 1 MiB (lines 1-${searched}) were searched` }]);
  });

  it('says where a line too long to search stopped it', async () => {
    const r = out(await search({ path: 'long-line.txt', pattern: 'needle' }));
    expect(r.matches).toEqual([{ file: 'long-line.txt', line: 1, text: 'first needle' }]);
    expect(r.skipped).toEqual([{ path: 'long-line.txt', reason: 'line 2 is longer than 1 MiB; lines 2 on were not searched' }]);
  });

  it('does not report the empty line after a file\'s last newline', async () => {
    expect(out(await search({ path: 'one-line.txt', pattern: '^$' })).matches).toEqual([]);
  });
});

describe('search_files says what it did not search', () => {
  it('names each skipped file and why', async () => {
    const r = out(await search({ path: 'mixed', pattern: 'needle' }));
    expect(r.matches).toEqual([]);
    expect(r.skipped_files).toBe(1);
    expect(r.skipped).toEqual([{ path: 'blob.bin', reason: 'is binary (a NUL byte in its first 8 KiB)' }]);
  });

  it('refuses a single file it cannot search instead of answering no match', async () => {
    expect(await search({ path: 'mixed/blob.bin', pattern: 'needle' })).toEqual({
      success: false, errorKind: 'business', error: 'search_files: path: mixed/blob.bin was not searched: it is binary (a NUL byte in its first 8 KiB)',
    });
  });

  it('lists at most SKIPPED_LISTED_MAX skipped files and counts them all', async () => {
    const r = out(await search({ path: 'blobs', pattern: 'needle' }));
    expect(r.skipped_files).toBe(SKIPPED_LISTED_MAX + 5);
    expect(r.skipped).toHaveLength(SKIPPED_LISTED_MAX);
    expect(r.skipped![0]).toEqual({ path: 'b00.bin', reason: 'is binary (a NUL byte in its first 8 KiB)' });
  });
});
