import { resolve } from 'node:path';
import { CATALOG_BY_NAME } from '../tools/catalog-table.ts';
import { isInside } from '../guard/paths/real-path.ts';

/** A file path a step's arguments name, resolved as the file tools resolve it: relative to the workspace. */
export interface StepPath {
  /** The argument that holds it (`path`, `root`). */
  readonly arg: string;
  readonly access: 'reads' | 'writes';
  /** Absolute, `..` resolved (by name: a symlink on the way is the guard's to judge at run time). */
  readonly resolved: string;
  readonly inside: boolean;
}

/**
 * The files a step of a file tool reads or writes, from its catalog row (the arguments the guard judges as
 * paths), each resolved against `workspace`: what an approver needs to see where a step writes.
 */
export function stepPaths(tool: string, args: Readonly<Record<string, unknown>>, workspace: string): StepPath[] {
  const g = CATALOG_BY_NAME.get(tool)?.guarded;
  if (!g) return [];
  const root = resolve(workspace);
  // a patch writes the files its diff names, below its root
  const writes = new Set([...g.writePaths ?? [], ...g.diffPaths?.root ? [g.diffPaths.root] : []]);
  const named = [...new Set([...g.readPaths ?? [], ...writes])];
  return named.flatMap((arg) => {
    const v = args[arg];
    if (typeof v !== 'string' || v === '') return [];
    const resolved = resolve(root, v);
    return [{ arg, access: writes.has(arg) ? 'writes' as const : 'reads' as const, resolved, inside: isInside(resolved, root) }];
  });
}
