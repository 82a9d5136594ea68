import { readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { defaultConfig } from '../../src/config/schema.ts';
import { editFileTool } from '../../src/tools/catalog/edit-file.ts';
import { patchTool } from '../../src/tools/catalog/patch.ts';
import { buildContext } from '../../src/tools/context.ts';
import { executeTool } from '../../src/tools/executor.ts';
import type { Tool } from '../../src/tools/types.ts';
import { workspaceAndOutside } from '../support/workspace.ts';

let root: string;
let ws: string;

/** NUL and bytes that are no UTF-8: decoding them as text would turn each into U+FFFD. */
const BINARY = Buffer.from([...Buffer.from('MARK'), 0x00, 0xff, 0xfe, 0x80, ...Buffer.from('end\n')]);
/** Latin-1 text: no NUL, but "é" is the lone byte 0xe9. */
const LATIN1 = Buffer.from('caf\xe9 MARK\nline two\n', 'latin1');
const BOM_UTF8 = Buffer.from('\ufeffMARK one\n', 'utf8');

beforeEach(async () => {
  ({ root, ws } = await workspaceAndOutside('echo-text-bytes-'));
  await writeFile(join(ws, 'blob.bin'), BINARY);
  await writeFile(join(ws, 'latin1.txt'), LATIN1);
  await writeFile(join(ws, 'bom.txt'), BOM_UTF8);
  await writeFile(join(ws, 'plain.txt'), 'p1\np2\np3\n');
});
afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

const config = () => defaultConfig({ tools: { workspace: ws, restrict_to_workspace: true } });
const call = (tool: Tool, params: Record<string, unknown>) => executeTool(tool, params, buildContext({ tool: tool.name, params }));
const bytes = (rel: string) => readFile(join(ws, rel));

describe('edit_file on a file that is not UTF-8 text', () => {
  it.each([
    ['blob.bin', BINARY, /edit_file: blob\.bin is a binary file \(a NUL byte in its first 8 KiB\).*nothing was changed/],
    ['latin1.txt', LATIN1, /edit_file: latin1\.txt is not valid UTF-8 text.*nothing was changed; convert it to UTF-8 first/],
  ])('refuses %s and leaves it byte for byte as it was', async (path, original, message) => {
    const r = await call(editFileTool(config()), { path, old_text: 'MARK', new_text: 'MORK' });
    expect(r).toMatchObject({ success: false, errorKind: 'business' });
    expect(r.error).toMatch(message);
    expect((await bytes(path)).equals(original)).toBe(true);
  });

  it('keeps the byte order mark of a UTF-8 file it edits', async () => {
    const r = await call(editFileTool(config()), { path: 'bom.txt', old_text: 'one', new_text: 'two' });
    expect(r.success).toBe(true);
    expect((await bytes('bom.txt')).equals(Buffer.from('\ufeffMARK two\n', 'utf8'))).toBe(true);
  });
});

describe('patch on a file that is not UTF-8 text', () => {
  const latinHunk = ['--- a/latin1.txt', '+++ b/latin1.txt', '@@ -2,1 +2,1 @@', '-line two', '+line 2'].join('\n');
  const plainHunk = ['--- a/plain.txt', '+++ b/plain.txt', '@@ -1,3 +1,3 @@', ' p1', '-p2', '+P2', ' p3'].join('\n');

  it('refuses the whole diff when one of its files is not UTF-8, writing none of them', async () => {
    const r = await call(patchTool(config()), { diff: `${plainHunk}\n${latinHunk}\n` });
    expect(r).toMatchObject({ success: false, errorKind: 'business' });
    expect(r.error).toMatch(/^patch: latin1\.txt is not valid UTF-8 text.*nothing was written/);
    expect((await bytes('latin1.txt')).equals(LATIN1)).toBe(true);
    expect((await bytes('plain.txt')).toString()).toBe('p1\np2\np3\n');
  });

  it('refuses a binary file it would change, leaving it as it was', async () => {
    const hunk = ['--- a/blob.bin', '+++ b/blob.bin', '@@ -1,1 +1,1 @@', '-end', '+END'].join('\n');
    const r = await call(patchTool(config()), { diff: `${hunk}\n` });
    expect(r).toMatchObject({ success: false, errorKind: 'business' });
    expect(r.error).toMatch(/^patch: blob\.bin is a binary file/);
    expect((await bytes('blob.bin')).equals(BINARY)).toBe(true);
  });
});
