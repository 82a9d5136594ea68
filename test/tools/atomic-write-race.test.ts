import { mkdirSync, mkdtempSync, readdirSync, renameSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';

vi.mock('node:fs/promises', async (importOriginal) => {
  const { withRaceHooks } = await import('../support/fs-race.ts');
  return withRaceHooks(await importOriginal());
});
const { race } = await import('../support/fs-race.ts');

const { atomicWrite, PathChangedError } = await import('../../src/tools/catalog/write-file.ts');

describe('atomicWrite against a racing symlink swap', () => {
  it('abandons the write when a directory on the path became a symlink elsewhere after it was resolved', async () => {
    const root = mkdtempSync(join(tmpdir(), 'echo-race-'));
    const ws = join(root, 'ws');
    const outside = join(root, 'outside');
    mkdirSync(join(ws, 'reports'), { recursive: true });
    mkdirSync(outside);
    race.afterClose = () => {
      renameSync(join(ws, 'reports'), join(ws, 'reports-old'));
      symlinkSync(outside, join(ws, 'reports'));
    };
    await expect(atomicWrite(join(ws, 'reports', 'out.txt'), 'data')).rejects.toBeInstanceOf(PathChangedError);
    expect(readdirSync(outside)).toEqual([]);
    // the moved directory keeps only the temp file (its new name is unknown to us), never out.txt
    expect(readdirSync(join(ws, 'reports-old')).filter((f) => !f.endsWith('.echo-agent.tmp'))).toEqual([]);
  });

  it('writes normally when nothing moved', async () => {
    const ws = mkdtempSync(join(tmpdir(), 'echo-race-ok-'));
    await atomicWrite(join(ws, 'a.txt'), 'data');
    expect(readdirSync(ws)).toEqual(['a.txt']);
  });
});
