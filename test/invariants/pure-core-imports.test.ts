import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

// The pure core (policy, guard, approval) does no I/O of its own: the clock, ids, DNS, the file system and the
// home directory are injected by the shell (util/system-ports.ts), and sockets live in adapters (tools/net).
const SRC = fileURLToPath(new URL('../../src', import.meta.url));
const CORE = ['policy', 'guard', 'approval'];

/** Modules that do I/O (or start processes and sockets), with and without the `node:` prefix. */
const IO_BUILTINS = ['fs', 'fs/promises', 'dns', 'dns/promises', 'os', 'child_process', 'net', 'crypto', 'readline', 'readline/promises', 'timers', 'timers/promises'];
const IO_PACKAGES = ['undici', 'pg', 'ioredis'];
/** src folders that hold the store, the daemon and the queue: the shell, never imported by the core. */
const SHELL_DIRS = ['store', 'daemon', 'queue'];

function tsFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = join(dir, e.name);
    return e.isDirectory() ? tsFiles(p) : e.name.endsWith('.ts') ? [p] : [];
  });
}

/** Every module a file names: static imports and re-exports (type-only ones too), dynamic import() and require(). */
export function specifiers(text: string): string[] {
  const found: string[] = [];
  for (const re of [/\b(?:import|export)\b[^'"`;]*?\bfrom\s*['"]([^'"]+)['"]/g, /\bimport\s*['"]([^'"]+)['"]/g, /\b(?:import|require)\s*\(\s*['"]([^'"]+)['"]\s*\)/g]) {
    for (const m of text.matchAll(re)) found.push(m[1]!);
  }
  return found;
}

/** Why a specifier written in `file` is not allowed in the core, or null. */
function forbidden(file: string, spec: string): string | null {
  const bare = spec.replace(/^node:/, '');
  if (IO_BUILTINS.includes(bare)) return `the I/O module ${spec}`;
  if (IO_PACKAGES.some((p) => spec === p || spec.startsWith(`${p}/`))) return `the package ${spec}`;
  if (spec.startsWith('.')) {
    const top = relative(SRC, resolve(dirname(file), spec)).split('/')[0]!;
    if (SHELL_DIRS.includes(top)) return `src/${top} (${spec})`;
  }
  return null;
}

describe('the pure core imports no I/O (policy, guard, approval)', () => {
  it('no file under src/policy, src/guard or src/approval imports node:fs, dns, os, child_process, net, undici, pg, ioredis or src/store, daemon, queue', () => {
    const files = CORE.flatMap((d) => tsFiles(join(SRC, d)));
    expect(files.length).toBeGreaterThan(50);
    const offences = files.flatMap((f) => specifiers(readFileSync(f, 'utf8')).flatMap((s) => {
      const why = forbidden(f, s);
      return why ? [`${relative(SRC, f)}: ${why}`] : [];
    }));
    expect(offences).toEqual([]);
  });

  it('the scan sees each form an import takes', () => {
    const text = [
      "import { homedir } from 'node:os';",
      "import type { X } from '../store/db.ts';",
      "export { y } from '../daemon/daemon.ts';",
      "const q = await import('../queue/run-queue.ts');",
      "import {\n  Client,\n} from 'undici';",
      "import 'pg';",
    ].join('\n');
    const file = join(SRC, 'guard', 'example.ts');
    expect(specifiers(text).map((s) => forbidden(file, s) !== null)).toEqual([true, true, true, true, true, true]);
    expect(forbidden(file, 'node:path')).toBeNull();
    expect(forbidden(file, '../util/printable.ts')).toBeNull();
  });
});
