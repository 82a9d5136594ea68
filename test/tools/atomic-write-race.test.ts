import { mkdirSync, mkdtempSync, readdirSync, renameSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';

/** Runs once, right after the temp file is written: the moment a racing process would swap a symlink. */
let afterTempWrite: (() => void) | null = null;
vi.mock('node:fs/promises', async (importOriginal) => {
  const real = await importOriginal<typeof import('node:fs/promises')>();
  return {
    ...real,
    // the temp file is written through a handle; it is complete once the handle is closed
    open: async (...args: Parameters<typeof real.open>) => {
      const handle = await real.open(...args);
      const close = handle.close.bind(handle);
      handle.close = async () => {
        await close();
        const hook = afterTempWrite;
        afterTempWrite = null;
        hook?.();
      };
      return handle;
    },
  };
});

const { atomicWrite, PathChangedError } = await import('../../src/tools/catalog/write-file.ts');

describe('atomicWrite against a racing symlink swap', () => {
  it('abandons the write when a directory on the path became a symlink elsewhere after it was resolved', async () => {
    const root = mkdtempSync(join(tmpdir(), 'echo-race-'));
    const ws = join(root, 'ws');
    const outside = join(root, 'outside');
    mkdirSync(join(ws, 'reports'), { recursive: true });
    mkdirSync(outside);
    afterTempWrite = () => {
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
