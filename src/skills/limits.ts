/** Most entries (files and directories) a skill package may hold. */
export const MAX_PACKAGE_ENTRIES = 2000;
const MAX_PATH_LENGTH = 1024;
const MAX_DEPTH = 32;

/** A package refused for its content (unsafe entry, too large, bad manifest); the message says why. */
export class PackageRefused extends Error {
  override readonly name = 'PackageRefused';
}

const shown = (p: string): string => JSON.stringify(p.length > 200 ? `${p.slice(0, 200)}…` : p);

/**
 * Why a path may not be a file of a package, or null when it is a plain relative path that stays inside:
 * no absolute path, drive letter, backslash, NUL or `..` component.
 */
export function packagePathProblem(path: string): string | null {
  if (path.includes('\0')) return 'contains a NUL byte';
  if (path.includes('\\')) return 'contains a backslash';
  if (path.startsWith('/') || /^[a-zA-Z]:/.test(path)) return 'is an absolute path';
  if (path.length > MAX_PATH_LENGTH) return `is longer than ${MAX_PATH_LENGTH} characters`;
  const parts = path.split('/');
  if (parts.includes('..')) return 'has a ".." component';
  if (parts.filter((p) => p !== '' && p !== '.').length > MAX_DEPTH) return `is nested deeper than ${MAX_DEPTH} directories`;
  return null;
}

/** `./a//b/` → `a/b`; '' for the package root itself. Call after packagePathProblem passed. */
export function normalisePackagePath(path: string): string {
  return path.split('/').filter((p) => p !== '' && p !== '.').join('/');
}

/** Counts entries and content bytes while a package is unpacked, so the limits hold whatever the headers claim. */
export class Budget {
  private entries = 0;
  private total = 0;

  constructor(
    readonly maxBytes: number,
    readonly maxEntries: number = MAX_PACKAGE_ENTRIES,
  ) {}

  get bytes(): number {
    return this.total;
  }

  /** Checks an entry's path and counts it; throws PackageRefused. */
  entry(path: string): string {
    const problem = packagePathProblem(path);
    if (problem) throw new PackageRefused(`entry ${shown(path)} ${problem}`);
    if (++this.entries > this.maxEntries) throw new PackageRefused(`the package has more than ${this.maxEntries} entries`);
    return normalisePackagePath(path);
  }

  /** Counts content bytes as they are written; throws PackageRefused past the limit. */
  add(n: number): void {
    this.total += n;
    if (this.total > this.maxBytes) {
      throw new PackageRefused(`the package content is more than skills.max_archive_bytes (${this.maxBytes} bytes)`);
    }
  }

  static describe(path: string): string {
    return shown(path);
  }
}
