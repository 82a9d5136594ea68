import { readdir } from 'node:fs/promises';
import { join, relative } from 'node:path';
import type { Config } from '../../config/schema.ts';
import { defineTool } from '../define.ts';
import { fail, ok } from '../types.ts';
import { confine, inWorkspace } from './workspace-files.ts';

const MAX_ENTRIES = 5000;

export function listDirTool(config: Config) {
  return defineTool('list_dir', config, {
    async execute(params) {
      const path = String(params.path);
      const refused = await confine(config, { read: [path] });
      if (refused) return refused;
      const root = inWorkspace(config, path);
      const entries = await readdir(root, { withFileTypes: true, recursive: params.recursive === true }).catch((e: NodeJS.ErrnoException) => e);
      if (entries instanceof Error) return fail('business', `list_dir: cannot list ${path}: ${entries.code ?? entries.message}`);
      const listed = entries.slice(0, MAX_ENTRIES).map((e) => ({
        name: relative(root, join(e.parentPath, e.name)),
        type: e.isDirectory() ? 'dir' : e.isSymbolicLink() ? 'symlink' : e.isFile() ? 'file' : 'other',
      }));
      return ok({ path, entries: listed.sort((a, b) => a.name.localeCompare(b.name)), truncated: entries.length > MAX_ENTRIES });
    },
  });
}
