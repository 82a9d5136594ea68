import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { withPrivateTmp } from '../../src/store/embedded-files.ts';

describe('the temp directory initdb\'s password file goes to', () => {
  it('is private (0700) while initdb runs, and gone with TMPDIR restored afterwards', async () => {
    const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'echo-private-tmp-'));
    const before = process.env.TMPDIR;
    let seen = '';
    let mode = 0;
    await withPrivateTmp(dataDir, null, async () => {
      seen = os.tmpdir();
      mode = (await fs.stat(seen)).mode & 0o777;
    });
    expect(seen).toBe(path.join(dataDir, 'initdb-tmp'));
    expect(mode).toBe(0o700);
    expect(process.env.TMPDIR).toBe(before);
    expect(await fs.stat(seen).catch(() => null)).toBeNull();
    await fs.rm(dataDir, { recursive: true, force: true });
  });
});
