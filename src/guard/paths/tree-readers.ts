/**
 * File tools that read every file below their directory argument, and when. The catalog's `readPaths` do not
 * say so (read_file reads one file, exec's `cwd` reads nothing), and a tree that holds a secret is refused
 * (path.secret_tree) where a single path beside it is not.
 */
export interface TreeRead {
  readonly arg: string;
  /** Only when this argument has this value (`list_dir` with `recursive: true`). */
  readonly when?: { readonly arg: string; readonly is: unknown };
}

export const TREE_READERS: Readonly<Record<string, TreeRead>> = {
  search_files: { arg: 'path' },
  knowledge_index: { arg: 'path' },
  list_dir: { arg: 'path', when: { arg: 'recursive', is: true } },
};

/** The paths a call reads with everything below them. */
export function treePaths(tool: string, args: Readonly<Record<string, unknown>>): string[] {
  const t = TREE_READERS[tool];
  if (!t || (t.when && args[t.when.arg] !== t.when.is)) return [];
  const v = args[t.arg];
  return typeof v === 'string' && v !== '' ? [v] : [];
}
