import { dirname, join } from 'node:path';

/** The file-system reads the path policy needs, injected (util/system-ports.ts has node's). `readlink` finds dangling symlinks. */
export interface PathFs {
  readonly realpath: (p: string) => Promise<string>;
  readonly readlink: (p: string) => Promise<string>;
}

const MAX_LINKS = 40; // Linux's own limit on symlinks followed in one resolution

const code = (err: unknown): string | undefined => (err as NodeJS.ErrnoException | undefined)?.code;
const isMissing = (err: unknown): boolean => code(err) === 'ENOENT' || code(err) === 'ENOTDIR';

/**
 * Where an absolute path really leads, as the kernel would walk it: each component in turn, symlinks followed
 * (also dangling ones, which a write would create the target of), `..` applied to the real parent. The
 * part that does not exist yet is appended as written. Throws on symlink loops and unreadable directories.
 */
export async function realPathOf(abs: string, fs: PathFs): Promise<string> {
  try {
    return await fs.realpath(abs); // realpath(3) walks the same way; the slow path is only for missing tails
  } catch (err) {
    if (!isMissing(err)) throw err;
  }
  const readlink = fs.readlink;
  const queue = abs.split('/').filter((c) => c !== '');
  let current = '/';
  let missing = 0; // components at the end of `current` that do not exist
  let links = 0;
  while (queue.length > 0) {
    const comp = queue.shift()!;
    if (comp === '.') continue;
    if (comp === '..') {
      current = dirname(current);
      if (missing > 0) missing--;
      continue;
    }
    const candidate = join(current, comp);
    if (missing > 0) {
      current = candidate;
      missing++;
      continue;
    }
    try {
      current = await fs.realpath(candidate);
      continue;
    } catch (err) {
      if (!isMissing(err)) throw err;
    }
    let target: string | undefined;
    try {
      target = await readlink(candidate);
    } catch {
      target = undefined;
    }
    if (target === undefined) {
      current = candidate;
      missing = 1;
      continue;
    }
    if (++links > MAX_LINKS) throw Object.assign(new Error(`too many symbolic links: ${abs}`), { code: 'ELOOP' });
    if (target.startsWith('/')) current = '/';
    queue.unshift(...target.split('/').filter((c) => c !== ''));
  }
  return current;
}

/**
 * Whether the kernel's walk of absolute `abs` passes a place `hit` accepts: each component in turn, checked before
 * it is entered or followed, each symlink's target walked from the directory holding it. realpath(3) shows only where
 * the walk ends; a hop through a magic link (`/dev/fd/3` is /proc/self/fd/3, whose target may be a deleted file)
 * shows only on the way. Stops, false, at the first component that is missing or cannot be read, and at a loop.
 */
export async function walkVisits(abs: string, hit: (p: string) => boolean, fs: PathFs): Promise<boolean> {
  const readlink = fs.readlink;
  const queue = abs.split('/').filter((c) => c !== '');
  let current = '/';
  let links = 0;
  while (queue.length > 0) {
    const comp = queue.shift()!;
    if (comp === '.') continue;
    if (comp === '..') {
      current = dirname(current); // `current` is real: its parent is the kernel's `..`
      continue;
    }
    const candidate = join(current, comp);
    if (hit(candidate)) return true;
    let target: string;
    try {
      target = await readlink(candidate);
    } catch (err) {
      if (code(err) !== 'EINVAL') return false; // missing or unreadable: nothing further is walked
      current = candidate; // no symlink
      continue;
    }
    if (++links > MAX_LINKS) return false;
    if (target.startsWith('/')) current = '/';
    queue.unshift(...target.split('/').filter((c) => c !== ''));
  }
  return false;
}

/** Whether `p` is `root` or below it (both real, absolute). */
export function isInside(p: string, root: string): boolean {
  if (root === '/') return true;
  const r = root.endsWith('/') ? root.slice(0, -1) : root;
  return p === r || p.startsWith(`${r}/`);
}
