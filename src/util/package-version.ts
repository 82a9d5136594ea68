import { readFileSync } from 'node:fs';

/**
 * package.json's version, found upward from this module: src/<dir>/ under tsx and dist/<dir>/ when
 * built both sit two levels below it. A missing file must not break every other command.
 */
export function packageVersion(from: string | URL = import.meta.url): string {
  for (let dir = new URL('.', from), i = 0; i < 4; dir = new URL('..', dir), i++) {
    try {
      const pkg = JSON.parse(readFileSync(new URL('package.json', dir), 'utf8')) as { name?: unknown; version?: unknown };
      if (pkg.name === 'echo-agent' && typeof pkg.version === 'string') return pkg.version;
    } catch {
      // none here, or not ours: look further up
    }
  }
  return 'unknown';
}
