import { readFile, readdir, stat } from 'node:fs/promises';
import { join, relative } from 'node:path';
import type { Config } from '../../config/schema.ts';
import { defineTool } from '../define.ts';
import { fail, ok } from '../types.ts';
import { confine, inWorkspace } from './workspace-files.ts';

const MAX_FILE_BYTES = 1024 * 1024;

/** `*.ts`, `src/**\/*.md`: glob to RegExp over forward-slash relative paths. */
export function globToRegExp(glob: string): RegExp {
  let re = '';
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i]!;
    if (c === '*') {
      if (glob[i + 1] === '*') {
        re += '.*';
        i++;
        if (glob[i + 1] === '/') i++;
      } else re += '[^/]*';
    } else if (c === '?') re += '[^/]';
    else re += c.replace(/[.+^${}()|[\]\\]/g, '\\$&');
  }
  return new RegExp(glob.includes('/') ? `^${re}$` : `(^|/)${re}$`);
}

export function searchFilesTool(config: Config) {
  return defineTool('search_files', config, {
    async execute(params, _ctx, { signal }) {
      const path = String(params.path);
      const refused = await confine(config, { read: [path] });
      if (refused) return refused;
      const root = inWorkspace(config, path);
      const max = typeof params.max_results === 'number' ? params.max_results : 100;
      const nameRe = typeof params.glob === 'string' ? globToRegExp(params.glob) : null;
      let contentRe: RegExp | null = null;
      if (typeof params.pattern === 'string') {
        try {
          contentRe = new RegExp(params.pattern);
        } catch (err) {
          return fail('validation', `pattern: not a valid regular expression (${(err as Error).message})`);
        }
      }
      const files = await readdir(root, { recursive: true, withFileTypes: true }).catch((e: NodeJS.ErrnoException) => e);
      if (files instanceof Error) return fail('business', `search_files: cannot search ${path}: ${files.code ?? files.message}`);
      const matches: { file: string; line?: number; text?: string }[] = [];
      for (const f of files) {
        if (signal.aborted || matches.length >= max) break;
        if (!f.isFile()) continue;
        const rel = relative(root, join(f.parentPath, f.name)).split('\\').join('/');
        if (rel.split('/').some((part) => part === 'node_modules' || part === '.git')) continue;
        if (nameRe && !nameRe.test(rel)) continue;
        if (!contentRe) {
          matches.push({ file: rel });
          continue;
        }
        const full = join(f.parentPath, f.name);
        if ((await stat(full)).size > MAX_FILE_BYTES) continue;
        const lines = (await readFile(full, 'utf8')).split('\n');
        for (let i = 0; i < lines.length && matches.length < max; i++) {
          if (contentRe.test(lines[i]!)) matches.push({ file: rel, line: i + 1, text: lines[i]!.slice(0, 400) });
        }
      }
      return ok({ path, matches, truncated: matches.length >= max });
    },
  });
}
