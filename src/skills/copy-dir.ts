import { constants } from 'node:fs';
import { mkdir, open, opendir } from 'node:fs/promises';
import { join } from 'node:path';
import { Budget, PackageRefused } from './limits.ts';

const CHUNK = 64 * 1024;

/**
 * Copies a package directory into `dest` under the same rules as an archive: only plain files and
 * directories (a symlink would carry files from outside into the package), entries and bytes counted
 * while copying. Throws PackageRefused for anything the source is to blame for.
 */
export async function copyPackageDir(source: string, dest: string, budget: Budget, signal?: AbortSignal): Promise<void> {
  await copyInto(source, dest, '', budget, signal);
}

async function copyInto(srcDir: string, destDir: string, rel: string, budget: Budget, signal?: AbortSignal): Promise<void> {
  const dir = await opendir(srcDir);
  for await (const d of dir) {
    if (signal?.aborted) throw signal.reason instanceof Error ? signal.reason : new Error('aborted');
    const relPath = rel ? `${rel}/${d.name}` : d.name;
    budget.entry(relPath);
    const from = join(srcDir, d.name);
    const to = join(destDir, d.name);
    if (d.isDirectory()) {
      await mkdir(to, { mode: 0o755 });
      await copyInto(from, to, relPath, budget, signal);
    } else if (d.isFile()) {
      await copyFile(from, to, relPath, budget);
    } else {
      throw new PackageRefused(`entry ${Budget.describe(relPath)} ${d.isSymbolicLink() ? 'is a symbolic link' : 'is not a regular file or directory'}`);
    }
  }
}

async function copyFile(from: string, to: string, relPath: string, budget: Budget): Promise<void> {
  // O_NOFOLLOW: the entry may have been swapped for a symlink since it was listed
  const src = await open(from, constants.O_RDONLY | constants.O_NOFOLLOW).catch((err: NodeJS.ErrnoException) => {
    if (err.code === 'ELOOP') throw new PackageRefused(`entry ${Budget.describe(relPath)} is a symbolic link`);
    throw err;
  });
  try {
    const info = await src.stat();
    if (!info.isFile()) throw new PackageRefused(`entry ${Budget.describe(relPath)} is not a regular file`);
    const dst = await open(to, 'wx', info.mode & 0o111 ? 0o755 : 0o644);
    try {
      const buf = Buffer.alloc(CHUNK);
      for (;;) {
        const { bytesRead } = await src.read(buf, 0, CHUNK, null);
        if (bytesRead === 0) break;
        budget.add(bytesRead);
        await dst.write(buf, 0, bytesRead);
      }
    } finally {
      await dst.close();
    }
  } finally {
    await src.close();
  }
}
