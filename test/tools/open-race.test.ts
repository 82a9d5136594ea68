import { mkdirSync, mkdtempSync, readdirSync, symlinkSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';

/** Runs once, right before a file is opened: the moment a racing process would flip a symlink. */
let beforeOpen: (() => void) | null = null;
vi.mock('node:fs/promises', async (importOriginal) => {
  const real = await importOriginal<typeof import('node:fs/promises')>();
  return {
    ...real,
    open: async (...args: Parameters<typeof real.open>) => {
      const hook = beforeOpen;
      beforeOpen = null;
      hook?.();
      return real.open(...args);
    },
  };
});

const { defaultConfig } = await import('../../src/config/schema.ts');
const { readFileTool } = await import('../../src/tools/catalog/read-file.ts');
const { editFileTool } = await import('../../src/tools/catalog/edit-file.ts');
const { searchFilesTool } = await import('../../src/tools/catalog/search-files.ts');
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
  return { ws, outside, flip, config };
}

describe('a file tool judges the file it opened, not only the path it checked', () => {
  it('read_file refuses a file that a symlink flipped after the check leads outside the workspace', async () => {
    const { flip, config } = flippingWorkspace();
    beforeOpen = flip;
    const r = await readFileTool(config, new MemorySpillStore()).execute({ path: 'd/notes.txt' }, undefined as never, { signal: new AbortController().signal } as never);
    expect(r).toMatchObject({ success: false, errorKind: 'denied' });
    expect(JSON.stringify(r)).not.toContain('OUTSIDE SECRET');
  });

  it('edit_file refuses to read, and so to rewrite, a file the flipped symlink leads to', async () => {
    const { flip, config, outside } = flippingWorkspace();
    beforeOpen = flip;
    const r = await editFileTool(config).execute({ path: 'd/notes.txt', old_text: 'SECRET', new_text: 'x' }, undefined as never, { signal: new AbortController().signal } as never);
    expect(r).toMatchObject({ success: false, errorKind: 'denied' });
    expect(readdirSync(outside)).toEqual(['notes.txt']);
  });

  it('search_files of a single file does not return lines of the file the flip leads to', async () => {
    const { flip, config } = flippingWorkspace();
    beforeOpen = flip;
    const r = await searchFilesTool(config).execute({ path: 'd/notes.txt', pattern: '.' }, undefined as never, { signal: new AbortController().signal } as never);
    expect(JSON.stringify(r)).not.toContain('OUTSIDE SECRET');
  });

  it('reads normally when nothing moved', async () => {
    const { config } = flippingWorkspace();
    const r = await readFileTool(config, new MemorySpillStore()).execute({ path: 'd/notes.txt' }, undefined as never, { signal: new AbortController().signal } as never);
    expect(r).toMatchObject({ success: true, output: { content: 'inside text\n' } });
  });
});
