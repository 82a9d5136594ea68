import { constants } from 'node:fs';
import { open, stat } from 'node:fs/promises';
import { basename } from 'node:path';
import type { Config } from '../../config/schema.ts';
import { defineTool } from '../define.ts';
import { fail, ok, type ToolResult } from '../types.ts';
import { LineMatcher, PatternTooSlow } from '../regex-sandbox.ts';
import { isBinary } from './read-file.ts';
import { confine, doesNotExist, eachLineBlock, inWorkspace, openedPath, protectedFilesOf, type LineBlock, type WalkEntry, walk } from './workspace-files.ts';
import { canonical, isAnySecret, isLoginFile } from '../../guard/shell/paths.ts';

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
type Skipped = { path: string; reason: string };

const NOT_SEARCHED_LOGIN = 'holds a login or a key (.env, .netrc, a private key): not searched; read_file of it by name asks a person';

/** Whether the guard's tables name the file a login or a secret, wherever it lies (.env, .npmrc, id_rsa, …). */
function holdsLoginOrSecret(abs: string): boolean {
  const c = canonical(abs, null);
  return isLoginFile(c) || isAnySecret(c);
}

/** Files are searched in blocks of whole lines of at most this size, so a large file costs time, not memory. */
export const SEARCH_BLOCK_BYTES = 1024 * 1024;
/** How much of one file is searched; past it the file is listed under skipped, with where the search stopped. */
export const SEARCH_STREAM_MAX_BYTES = 64 * 1024 * 1024;
/** Skipped files named in a result; skipped_files counts them all. */
export const SKIPPED_LISTED_MAX = 20;
const mib = (bytes: number) => `${+(bytes / (1024 * 1024)).toFixed(2)} MiB`;

/** A file's text, block by block; why it was not (wholly) searched, or null when it was searched to the end. */
async function searchFile(
  file: string, streamMax: number, isWhereExpected: (opened: string) => Promise<boolean>, signal: AbortSignal,
  visit: (block: LineBlock) => Promise<boolean>,
): Promise<{ skipped: string; partly: boolean } | null> {
  // O_NONBLOCK: opening a FIFO would otherwise wait for a writer, holding a libuv thread for good
  const handle = await open(file, constants.O_RDONLY | constants.O_NONBLOCK).catch((err: NodeJS.ErrnoException) => err);
  if (handle instanceof Error) return { skipped: `cannot be opened (${handle.code ?? handle.message})`, partly: false };
  try {
    // a symlink on the way swapped since the walk or the check: what was opened is not what was judged
    const opened = await openedPath(handle);
    if (opened !== null && !(await isWhereExpected(opened))) return { skipped: 'was replaced by a link to another place during the search', partly: false };
    const info = await handle.stat();
    if (!info.isFile()) return { skipped: 'is not a regular file', partly: false };
    let binary = false;
    let searched = false;
    const end = await eachLineBlock(handle, { blockBytes: SEARCH_BLOCK_BYTES, maxBytes: streamMax, signal, sizeHint: info.size }, async (b) => {
      if (b.head && isBinary(b.head)) return !(binary = true);
      searched = true;
      return visit(b);
    });
    if (binary) return { skipped: 'is binary (a NUL byte in its first 8 KiB)', partly: false };
    if (end.end === 'max_bytes') return { skipped: `is larger than ${mib(streamMax)}; only its first ${mib(streamMax)} (lines 1-${end.nextLine - 1}) were searched`, partly: true };
    if (end.end === 'long_line') return { skipped: `line ${end.nextLine} is longer than ${mib(SEARCH_BLOCK_BYTES)}; lines ${end.nextLine} on were not searched`, partly: searched };
    return null;
  } finally {
    await handle.close();
  }
}

/** A search cancelled or timed out part way: what was found so far is not the answer. */
const stopped = (signal: AbortSignal): ToolResult => fail('timeout', `search_files: stopped: ${(signal.reason as Error | undefined)?.message ?? 'cancelled'}`);

export function searchFilesTool(config: Config, opts: { patternBudgetMs?: number; streamMaxBytes?: number } = {}) {
  const streamMax = opts.streamMaxBytes ?? SEARCH_STREAM_MAX_BYTES;
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
      if (!info) return fail('business', `search_files: path: ${doesNotExist(config, path)}`);
      if (!info.isDirectory() && !info.isFile()) return fail('business', `search_files: path: ${path} is neither a directory nor a regular file`);
      // a single file is searched as it is; a directory is walked without following symlinks
      const exclude = await protectedFilesOf(config)();
      const files = info.isDirectory() ? regularFiles(walk(root, { recursive: true, signal, exclude })) : [{ rel: basename(root), abs: root, real: undefined as string | undefined }];
      const matches: Match[] = [];
      let truncated = false;
      const skipped: Skipped[] = [];
      let skippedCount = 0;
      const add = (m: Match) => (matches.length < max ? void matches.push(m) : void (truncated = true));
      try {
        for await (const f of files) {
          if (signal.aborted || truncated) break;
          if (nameRe && !nameRe.test(f.rel)) continue;
          if (!contentRe) {
            add({ file: f.rel });
            continue;
          }
          // a login or key file met in a tree is not read out through a search: read by name, a person decides
          // (path.credential_read; a secret is refused), as for read_file
          if (info.isDirectory() && holdsLoginOrSecret(f.abs)) {
            skippedCount++;
            if (skipped.length < SKIPPED_LISTED_MAX) skipped.push({ path: f.rel, reason: NOT_SEARCHED_LOGIN });
            continue;
          }
          const matcher = contentRe;
          const isWhereExpected = async (opened: string) => (f.real !== undefined ? opened === f.real : !(await confine(config, { read: [opened] })));
          const notSearched = await searchFile(f.abs, streamMax, isWhereExpected, signal, async (b) => {
            // the block's last line end would read as one more, empty line
            const hits = await matcher.matchingLines(b.text.endsWith('\n') ? b.text.slice(0, -1) : b.text, signal);
            for (const [i, line] of hits) add({ file: f.rel, line: b.firstLine + i, text: line.slice(0, MAX_LINE_CHARS) });
            return !truncated;
          }).catch((err: unknown) => {
            if (err instanceof PatternTooSlow) return err;
            throw err;
          });
          if (notSearched instanceof PatternTooSlow) {
            return fail('validation', `pattern: ${notSearched.message} (${f.rel}); nested quantifiers such as (a+)+ backtrack without end, simplify the pattern`);
          }
          if (notSearched === null) continue;
          // a file given by name and not searched at all is no answer, and an empty one would read as "no match"
          if (!info.isDirectory() && !notSearched.partly) return fail('business', `search_files: path: ${path} was not searched: it ${notSearched.skipped}`);
          skippedCount++;
          if (skipped.length < SKIPPED_LISTED_MAX) skipped.push({ path: f.rel, reason: notSearched.skipped });
        }
      } catch (err) {
        if (signal.aborted) return stopped(signal);
        return fail('business', `search_files: cannot search ${path}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
      } finally {
        await contentRe?.close();
      }
      // cancelled part way: what was found so far is not the answer
      if (signal.aborted) return stopped(signal);
      return ok({ path, matches, truncated, ...(skippedCount > 0 ? { skipped_files: skippedCount, skipped } : {}) });
    },
  });
}
