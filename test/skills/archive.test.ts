import { mkdir, mkdtemp, readdir, readFile, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { extractTarball } from '../../src/skills/archive.ts';
import { copyPackageDir } from '../../src/skills/copy-dir.ts';
import { Budget, PackageRefused } from '../../src/skills/limits.ts';
import { craftTar, manifestJson, type CraftedEntry } from './craft-tar.ts';

let tmp: string;
let dest: string;
beforeEach(async () => {
  tmp = await mkdtemp(join(tmpdir(), 'skills-archive-'));
  dest = join(tmp, 'dest');
  await mkdir(dest);
});
afterEach(async () => {
  await rm(tmp, { recursive: true, force: true });
});

const MIB = 1024 * 1024;
const ok: CraftedEntry = { path: 'skill.json', body: manifestJson() };
const listing = async (dir: string): Promise<string[]> => (await readdir(dir, { recursive: true })).map(String).sort();

describe('extractTarball unpacks plain files and directories', () => {
  it.each([['tar', false], ['tar.gz', true]])('from a %s', async (_kind, gz) => {
    const tar = craftTar([{ path: 'pkg/', type: 'Directory' }, { path: 'pkg/skill.json', body: manifestJson() }, { path: 'pkg/bin/run.sh', body: '#!/bin/sh\n', mode: 0o755 }]);
    await extractTarball(gz ? gzipSync(tar) : tar, dest, new Budget(MIB));
    expect(await listing(dest)).toEqual(['pkg', 'pkg/bin', 'pkg/bin/run.sh', 'pkg/skill.json']);
    expect(await readFile(join(dest, 'pkg/skill.json'), 'utf8')).toBe(manifestJson());
    expect((await stat(join(dest, 'pkg/bin/run.sh'))).mode & 0o777).toBe(0o755);
  });

  it('never keeps setuid or group/world write bits from the archive', async () => {
    await extractTarball(craftTar([{ path: 'x', body: 'x', mode: 0o4777 }]), dest, new Budget(MIB));
    expect((await stat(join(dest, 'x'))).mode & 0o7777).toBe(0o755);
  });
});

describe('extractTarball refuses unsafe archives', () => {
  it.each<[string, CraftedEntry[], string]>([
    ['a ".." entry', [ok, { path: '../evil', body: 'x' }], '"../evil" has a ".." component'],
    ['a ".." in the middle', [ok, { path: 'a/../../evil', body: 'x' }], 'has a ".." component'],
    ['an absolute path', [ok, { path: '/tmp/evil', body: 'x' }], '"/tmp/evil" is an absolute path'],
    ['a symlink', [ok, { path: 'link', type: 'SymbolicLink', linkpath: '/etc/passwd' }], '"link" is a symbolic link'],
    ['a hard link', [ok, { path: 'hard', type: 'Link', linkpath: 'skill.json' }], '"hard" is a hard link'],
    ['a character device', [ok, { path: 'tty', type: 'CharacterDevice' }], '"tty" is a device file'],
    ['a block device', [ok, { path: 'sda', type: 'BlockDevice' }], '"sda" is a device file'],
    ['a FIFO', [ok, { path: 'pipe', type: 'FIFO' }], '"pipe" is a FIFO'],
    ['a backslash path', [ok, { path: '..\\evil', body: 'x' }], 'contains a backslash'],
    ['the same file twice', [ok, { path: 'skill.json', body: '{}' }], '"skill.json" collides with another entry'],
    ['a file under a file', [ok, { path: 'skill.json/x', body: 'x' }], 'collides with another entry'],
  ])('%s', async (_what, entries, message) => {
    const err = await extractTarball(craftTar(entries), dest, new Budget(MIB)).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(PackageRefused);
    expect((err as Error).message).toContain(message);
    // nothing escaped the destination
    await expect(stat(join(tmp, 'evil'))).rejects.toThrow();
  });

  it('counts the bytes while extracting: a small gzip of many zeros is refused (zip bomb)', async () => {
    const bomb = gzipSync(craftTar([ok, { path: 'zeros.bin', body: Buffer.alloc(3 * MIB) }]));
    expect(bomb.length).toBeLessThan(MIB / 10);
    const err = await extractTarball(bomb, dest, new Budget(MIB)).catch((e: unknown) => e);
    expect((err as Error).message).toMatch(/content is more than skills\.max_archive_bytes \(1048576 bytes\)/);
    const written = await stat(join(dest, 'zeros.bin')).catch(() => null);
    expect(written?.size ?? 0).toBeLessThanOrEqual(MIB);
  });

  it('adds up many small files against the same budget', async () => {
    const files = Array.from({ length: 20 }, (_, i) => ({ path: `f${i}`, body: Buffer.alloc(100 * 1024) }));
    const err = await extractTarball(craftTar([ok, ...files]), dest, new Budget(MIB)).catch((e: unknown) => e);
    expect((err as Error).message).toContain('more than skills.max_archive_bytes');
  });

  it('refuses more entries than allowed', async () => {
    const files = Array.from({ length: 11 }, (_, i) => ({ path: `f${i}`, body: 'x' }));
    const err = await extractTarball(craftTar(files), dest, new Budget(MIB, 10)).catch((e: unknown) => e);
    expect((err as Error).message).toBe('the package has more than 10 entries');
  });

  it('stops a decompressed stream that goes on past the end of the archive', async () => {
    const padded = gzipSync(Buffer.concat([craftTar([ok]), Buffer.alloc(4 * MIB)]));
    const err = await extractTarball(padded, dest, new Budget(MIB)).catch((e: unknown) => e);
    expect((err as Error).message).toMatch(/expands to more than/);
  });

  it.each([
    ['not an archive', Buffer.from('this is not a tar file at all, just some text'.repeat(20)), 'not a valid tar archive'],
    ['a broken gzip stream', Buffer.concat([Buffer.from([0x1f, 0x8b]), Buffer.alloc(600, 7)]), 'not a valid gzip stream'],
  ])('refuses %s', async (_what, bytes, message) => {
    const err = await extractTarball(bytes, dest, new Budget(MIB)).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(PackageRefused);
    expect((err as Error).message).toContain(message);
  });
});

describe('copyPackageDir', () => {
  it('copies plain files and directories', async () => {
    const src = join(tmp, 'src');
    await mkdir(join(src, 'lib'), { recursive: true });
    await writeFile(join(src, 'skill.json'), manifestJson());
    await writeFile(join(src, 'lib', 'a.txt'), 'a');
    await copyPackageDir(src, dest, new Budget(MIB));
    expect(await listing(dest)).toEqual(['lib', 'lib/a.txt', 'skill.json']);
  });

  it.each([
    ['a symlink to a file outside', async (src: string) => symlink('/etc/hostname', join(src, 'host'))],
    ['a symlink to a directory', async (src: string) => symlink(tmp, join(src, 'up'))],
  ])('refuses %s', async (_what, plant) => {
    const src = join(tmp, 'src');
    await mkdir(src);
    await writeFile(join(src, 'skill.json'), manifestJson());
    await plant(src);
    const err = await copyPackageDir(src, dest, new Budget(MIB)).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(PackageRefused);
    expect((err as Error).message).toContain('is a symbolic link');
  });

  it('counts bytes while copying', async () => {
    const src = join(tmp, 'src');
    await mkdir(src);
    await writeFile(join(src, 'big'), Buffer.alloc(MIB + 1));
    const err = await copyPackageDir(src, dest, new Budget(MIB)).catch((e: unknown) => e);
    expect((err as Error).message).toContain('more than skills.max_archive_bytes');
  });
});
