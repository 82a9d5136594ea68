import { mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, symlinkSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';

vi.mock('node:fs/promises', async (importOriginal) => {
  const { withRaceHooks } = await import('../support/fs-race.ts');
  return withRaceHooks(await importOriginal());
});
const { race, onTempFile } = await import('../support/fs-race.ts');

const { defaultConfig } = await import('../../src/config/schema.ts');
const { readFileTool } = await import('../../src/tools/catalog/read-file.ts');
const { editFileTool } = await import('../../src/tools/catalog/edit-file.ts');
const { searchFilesTool } = await import('../../src/tools/catalog/search-files.ts');
const { patchTool } = await import('../../src/tools/catalog/patch.ts');
const { writeFileTool } = await import('../../src/tools/catalog/write-file.ts');
const { MemorySpillStore } = await import('../../src/tools/spill.ts');

/** A workspace whose `d` points inside while the tool checks it, and outside once it opens. */
function flippingWorkspace() {
  const root = mkdtempSync(join(tmpdir(), 'echo-open-race-'));
  const ws = join(root, 'ws');
  const outside = join(root, 'outside');
  mkdirSync(join(ws, 'inside'), { recursive: true });
  mkdirSync(outside);
  writeFileSync(join(ws, 'inside', 'notes.txt'), 'inside text\n');
  writeFileSync(join(outside, 'notes.txt'), 'OUTSIDE SECRET\n');
  symlinkSync(join(ws, 'inside'), join(ws, 'd'));
  const flip = () => {
    unlinkSync(join(ws, 'd'));
    symlinkSync(outside, join(ws, 'd'));
  };
  const config = defaultConfig({ tools: { workspace: ws, restrict_to_workspace: true } });
  // the directory itself, not a link to it, becomes a link outside: the write's resolved path moves
  const swapInside = () => {
    renameSync(join(ws, 'inside'), join(ws, 'inside-old'));
    symlinkSync(outside, join(ws, 'inside'));
  };
  return { ws, outside, flip, swapInside, config };
}

const signal = { signal: new AbortController().signal } as never;
const secretDiff = ['--- a/d/notes.txt', '+++ b/d/notes.txt', '@@ -1,1 +1,1 @@', '-OUTSIDE SECRET', '+overwritten', ''].join('\n');
const insideDiff = ['--- a/inside/notes.txt', '+++ b/inside/notes.txt', '@@ -1,1 +1,1 @@', '-inside text', '+patched', ''].join('\n');

describe('a file tool judges the file it opened, not only the path it checked', () => {
  it('read_file refuses a file that a symlink flipped after the check leads outside the workspace', async () => {
    const { flip, config } = flippingWorkspace();
    race.beforeOpen = flip;
    const r = await readFileTool(config, new MemorySpillStore()).execute({ path: 'd/notes.txt' }, undefined as never, { signal: new AbortController().signal } as never);
    expect(r).toMatchObject({ success: false, errorKind: 'denied' });
    expect(JSON.stringify(r)).not.toContain('OUTSIDE SECRET');
  });

  it('edit_file refuses to read, and so to rewrite, a file the flipped symlink leads to', async () => {
    const { flip, config, outside } = flippingWorkspace();
    race.beforeOpen = flip;
    const r = await editFileTool(config).execute({ path: 'd/notes.txt', old_text: 'SECRET', new_text: 'x' }, undefined as never, { signal: new AbortController().signal } as never);
    expect(r).toMatchObject({ success: false, errorKind: 'denied' });
    expect(readdirSync(outside)).toEqual(['notes.txt']);
  });

  it('search_files of a single file does not return lines of the file the flip leads to', async () => {
    const { flip, config } = flippingWorkspace();
    race.beforeOpen = flip;
    const r = await searchFilesTool(config).execute({ path: 'd/notes.txt', pattern: '.' }, undefined as never, { signal: new AbortController().signal } as never);
    expect(JSON.stringify(r)).not.toContain('OUTSIDE SECRET');
  });

  it('reads normally when nothing moved', async () => {
    const { config } = flippingWorkspace();
    const r = await readFileTool(config, new MemorySpillStore()).execute({ path: 'd/notes.txt' }, undefined as never, { signal: new AbortController().signal } as never);
    expect(r).toMatchObject({ success: true, output: { content: 'inside text\n' } });
  });
});

describe('a file tool refuses a patch read through a flipped symlink', () => {
  it('patch neither reads nor rewrites the file outside the workspace that the flip leads to', async () => {
    const { flip, config, outside } = flippingWorkspace();
    race.beforeOpen = flip;
    const r = await patchTool(config).execute({ diff: secretDiff }, undefined as never, signal);
    expect(r).toMatchObject({ success: false, errorKind: 'denied' });
    expect(readFileSync(join(outside, 'notes.txt'), 'utf8')).toBe('OUTSIDE SECRET\n');
  });

  it('patch applies normally when nothing moved', async () => {
    const { config, ws } = flippingWorkspace();
    const r = await patchTool(config).execute({ diff: insideDiff }, undefined as never, signal);
    expect(r).toMatchObject({ success: true });
    expect(readFileSync(join(ws, 'inside', 'notes.txt'), 'utf8')).toBe('patched\n');
  });
});

describe('a write whose directory became a link outside the workspace is refused, not retried', () => {
  const cases = [
    ['write_file', (c: never) => writeFileTool(c).execute({ path: 'inside/notes.txt', content: 'x' }, undefined as never, signal)],
    ['edit_file', (c: never) => editFileTool(c).execute({ path: 'inside/notes.txt', old_text: 'inside', new_text: 'x' }, undefined as never, signal)],
    ['patch', (c: never) => patchTool(c).execute({ diff: insideDiff }, undefined as never, signal)],
  ] as const;
  it.each(cases)('%s answers denied and leaves nothing outside', async (_name, call) => {
    const { swapInside, config, outside } = flippingWorkspace();
    race.beforeOpen = onTempFile(swapInside);
    const r = await call(config as never);
    race.beforeOpen = null;
    expect(r).toMatchObject({ success: false, errorKind: 'denied' });
    expect(readdirSync(outside)).toEqual(['notes.txt']);
    expect(readFileSync(join(outside, 'notes.txt'), 'utf8')).toBe('OUTSIDE SECRET\n');
  });
});
