import { lstat } from 'node:fs/promises';
import type { Config } from '../../config/schema.ts';
import { defineTool } from '../define.ts';
import { fail, ok } from '../types.ts';
import { stoppedByAbort } from './abort.ts';
import { confine, doesNotExist, inWorkspace, protectedFilesOf, SKIPPED_DIRS, walk } from './workspace-files.ts';

export const LIST_DIR_MAX_ENTRIES = 5000;

type Entry = { name: string; type: 'dir' | 'file' | 'symlink' | 'other'; size?: number };

export function listDirTool(config: Config) {
  return defineTool('list_dir', config, {
    async execute(params, _ctx, { signal }) {
      const path = String(params.path);
      const refused = await confine(config, { read: [path] });
      if (refused) return refused;
      const root = inWorkspace(config, path);
      const recursive = params.recursive === true;
      const entries: Entry[] = [];
      const notDescended: string[] = [];
      let truncated = false;
      // the embedded database's files are not listed, as search_files does not search them
      const exclude = await protectedFilesOf(config)();
      try {
        for await (const { rel, abs, dirent } of walk(root, { recursive, signal, exclude })) {
          if (entries.length >= LIST_DIR_MAX_ENTRIES) {
            truncated = true;
            break;
          }
          const type = dirent.isDirectory() ? 'dir' : dirent.isSymbolicLink() ? 'symlink' : dirent.isFile() ? 'file' : 'other';
          const size = type === 'file' ? (await lstat(abs).catch(() => null))?.size : undefined;
          entries.push(size === undefined ? { name: rel, type } : { name: rel, type, size });
          if (recursive && type === 'dir' && SKIPPED_DIRS.has(dirent.name)) notDescended.push(rel);
        }
      } catch (err) {
        if (signal.aborted) return stoppedByAbort('list_dir', signal, 'the listing is incomplete');
        const code = (err as NodeJS.ErrnoException).code;
        if (code === 'ENOENT') return fail('business', `list_dir: path: ${doesNotExist(config, path)}`);
        if (code === 'ENOTDIR') return fail('business', `list_dir: path: ${path} is not a directory; use read_file`);
        return fail('business', `list_dir: cannot list ${path}: ${code ?? (err as Error).message}`);
      }
      // the walk ends quietly when cancelled: what it listed so far is not the directory's listing
      if (signal.aborted) return stoppedByAbort('list_dir', signal, 'the listing is incomplete');
      entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
      return ok({ path, entries, truncated, ...(notDescended.length > 0 ? { not_descended: notDescended.sort() } : {}) });
    },
  });
}
