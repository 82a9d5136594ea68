import { mkdtemp, rm, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { silentLogger } from '../../src/log/logger.ts';
import { withStartLock } from '../../src/store/embedded-files.ts';

describe('the start lock of a data directory', () => {
  it('an empty lock file is a starter between making it and writing its pid: wait, do not take it over', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'echo-lock-'));
    await writeFile(join(dir, 'pg.start.lock'), '');
    let ran = false;
    const waiting = withStartLock(dir, silentLogger, async () => { ran = true; });
    await new Promise((r) => setTimeout(r, 400));
    expect(ran).toBe(false);
    // the other starter finishes and lets go
    await rm(join(dir, 'pg.start.lock'));
    await waiting;
    expect(ran).toBe(true);
  });

  it('an empty lock file left behind long ago is taken over', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'echo-lock-'));
    const lock = join(dir, 'pg.start.lock');
    await writeFile(lock, '');
    const old = new Date(Date.now() - 60_000);
    await utimes(lock, old, old);
    let ran = false;
    await withStartLock(dir, silentLogger, async () => { ran = true; });
    expect(ran).toBe(true);
  });
});
