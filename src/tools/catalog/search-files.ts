import { constants } from 'node:fs';
import { open, stat } from 'node:fs/promises';
import { basename } from 'node:path';
import type { Config } from '../../config/schema.ts';
import { defineTool } from '../define.ts';
import { fail, ok, type ToolResult } from '../types.ts';
import { LineMatcher, PatternTooSlow } from '../regex-sandbox.ts';
import { isBinary } from './read-file.ts';
import { confine, inWorkspace, openedPath, storeFilesOf, walk, type WalkEntry } from './workspace-files.ts';

export const SEARCH_MAX_FILE_BYTES = 1024 * 1024;
const MAX_LINE_CHARS = 400;
/** How long a pattern may take on one file before it counts as runaway backtracking. */
export const PATTERN_BUDGET_MS = 5_000;

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

async function* regularFiles(entries: AsyncIterable<WalkEntry>): AsyncGenerator<{ rel: string; abs: string; real?: string }> {
  for await (const e of entries) if (e.dirent.isFile()) yield e;
}

type Match = { file: string; line?: number; text?: string };

/** The text of a file worth searching: regular, not too large, not binary. */
async function searchableText(file: string, isWhereExpected: (opened: string) => Promise<boolean>): Promise<string | null> {
  // O_NONBLOCK: opening a FIFO would otherwise wait for a writer, holding a libuv thread for good
  const handle = await open(file, constants.O_RDONLY | constants.O_NONBLOCK).catch(() => null);
  if (!handle) return null;
  try {
    // a symlink on the way swapped since the walk or the check: what was opened is not what was judged
    const opened = await openedPath(handle);
    if (opened !== null && !(await isWhereExpected(opened))) return null;
    const info = await handle.stat();
    if (!info.isFile() || info.size > SEARCH_MAX_FILE_BYTES) return null;
    const buf = await handle.readFile();
    return isBinary(buf) ? null : buf.toString('utf8');
  } finally {
    await handle.close();
  }
}

export function searchFilesTool(config: Config, opts: { patternBudgetMs?: number } = {}) {
  return defineTool('search_files', config, {
    async execute(params, _ctx, { signal }): Promise<ToolResult> {
      const path = String(params.path);
      const refused = await confine(config, { read: [path] });
      if (refused) return refused;
      const root = inWorkspace(config, path);
      const max = typeof params.max_results === 'number' ? params.max_results : 100;
      const nameRe = typeof params.glob === 'string' ? globToRegExp(params.glob) : null;
      let contentRe: LineMatcher | null = null;
      if (typeof params.pattern === 'string') {
        try {
          new RegExp(params.pattern); // compiled here only to report a syntax error at once
        } catch (err) {
          return fail('validation', `pattern: not a valid regular expression (${(err as Error).message}); escape special characters to search for them as text`);
        }
        contentRe = new LineMatcher(params.pattern, '', opts.patternBudgetMs ?? PATTERN_BUDGET_MS);
      }
      const info = await stat(root).catch(() => null);
      if (!info) return fail('business', `search_files: path: ${path} does not exist`);
      if (!info.isDirectory() && !info.isFile()) return fail('business', `search_files: path: ${path} is neither a directory nor a regular file`);
      // a single file is searched as it is; a directory is walked without following symlinks
      const exclude = await storeFilesOf(config)();
      const files = info.isDirectory() ? regularFiles(walk(root, { recursive: true, signal, exclude })) : [{ rel: basename(root), abs: root, real: undefined as string | undefined }];
      const matches: Match[] = [];
      let truncated = false;
      let skipped = 0;
      const add = (m: Match) => (matches.length < max ? void matches.push(m) : void (truncated = true));
      try {
        for await (const f of files) {
          if (signal.aborted || truncated) break;
          if (nameRe && !nameRe.test(f.rel)) continue;
          if (!contentRe) {
            add({ file: f.rel });
            continue;
          }
          const text = await searchableText(f.abs, async (opened) => (f.real !== undefined ? opened === f.real : !(await confine(config, { read: [opened] }))));
          if (text === null) {
            skipped++;
            continue;
          }
          let hits: [number, string][];
          try {
            hits = await contentRe.matchingLines(text, signal);
          } catch (err) {
            if (err instanceof PatternTooSlow) {
              return fail('validation', `pattern: ${err.message} (${f.rel}); nested quantifiers such as (a+)+ backtrack without end, simplify the pattern`);
            }
            throw err;
          }
          for (const [i, line] of hits) add({ file: f.rel, line: i + 1, text: line.slice(0, MAX_LINE_CHARS) });
          if (truncated) break;
        }
      } catch (err) {
        if (signal.aborted) return fail('timeout', `search_files: stopped: ${(signal.reason as Error | undefined)?.message ?? 'cancelled'}`);
        return fail('business', `search_files: cannot search ${path}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
      } finally {
        await contentRe?.close();
      }
      return ok({ path, matches, truncated, ...(skipped > 0 ? { skipped_files: skipped } : {}) });
    },
  });
}
