import { lstat, readFile, readdir, realpath, stat } from 'node:fs/promises';
import { isAbsolute, join, relative, resolve, sep } from 'node:path';
import type { Config } from '../../config/schema.ts';
import type { Executor } from '../../store/db.ts';
import { replaceKnowledge, type KnowledgeDocument } from '../../store/knowledge.ts';
import { defineTool } from '../define.ts';
import { fail, ok, type Tool, type ToolResult } from '../types.ts';
import { isInside } from '../../guard/paths/index.ts';
import { confine, inWorkspace, protectedFilesOf } from './workspace-files.ts';

export const KNOWLEDGE_MAX_FILE_BYTES = 1024 * 1024;
export const KNOWLEDGE_CHUNK_CHARS = 2000;
const MAX_FILES = 10_000;
const MAX_TOTAL_BYTES = 64 * 1024 * 1024;
const MAX_SKIPPED_SHOWN = 200;
const IGNORED_DIRS = new Set(['node_modules', '.git']);

export const NO_MEMORY_SCOPE = 'this context has no memory scope';

/** Splits text at line ends into chunks of about `max` characters; a longer line is cut. */
export function chunkLines(text: string, max = KNOWLEDGE_CHUNK_CHARS): string[] {
  const chunks: string[] = [];
  let current = '';
  for (const line of text.split(/(?<=\n)/)) {
    if (current.length + line.length > max && current !== '') {
      chunks.push(current);
      current = '';
    }
    if (line.length > max) {
      for (let i = 0; i < line.length; i += max) chunks.push(line.slice(i, i + max));
      continue;
    }
    current += line;
  }
  if (current.trim() !== '') chunks.push(current);
  return chunks.filter((c) => c.trim() !== '');
}

interface Walk {
  readonly config: Config;
  readonly workspace: string;
  readonly signal: AbortSignal;
  readonly documents: KnowledgeDocument[];
  readonly skipped: { path: string; reason: string }[];
  bytes: number;
  truncated: boolean;
  /** The store's files (real paths), and where a walked path really is. */
  readonly exclude: readonly string[];
  readonly realOf: (p: string) => string;
}

/** Workspace-relative with forward slashes; absolute when outside (restrict_to_workspace off). */
function storedPath(workspace: string, abs: string): string {
  const rel = relative(workspace, abs);
  if (rel === '..' || rel.startsWith(`..${sep}`) || isAbsolute(rel)) return abs.split(sep).join('/');
  return rel.split(sep).join('/');
}

async function indexFile(w: Walk, abs: string, size: number): Promise<void> {
  const path = storedPath(w.workspace, abs);
  if (size > KNOWLEDGE_MAX_FILE_BYTES) return void w.skipped.push({ path, reason: 'larger than 1 MiB' });
  if (w.documents.length >= MAX_FILES || w.bytes + size > MAX_TOTAL_BYTES) {
    w.truncated = true;
    return void w.skipped.push({ path, reason: `index limit reached (${MAX_FILES} files or ${MAX_TOTAL_BYTES / 1024 / 1024} MiB a call)` });
  }
  const buf = await readFile(abs).catch((e: NodeJS.ErrnoException) => e);
  if (buf instanceof Error) return void w.skipped.push({ path, reason: `unreadable (${buf.code ?? buf.message})` });
  if (buf.length > KNOWLEDGE_MAX_FILE_BYTES) return void w.skipped.push({ path, reason: 'larger than 1 MiB' }); // grew since stat
  if (buf.includes(0)) return void w.skipped.push({ path, reason: 'binary (contains NUL bytes)' });
  w.bytes += buf.length;
  w.documents.push({ path, chunks: chunkLines(buf.toString('utf8')) });
}

async function walkDir(w: Walk, dir: string): Promise<void> {
  // the store's files are not indexed, whatever directory above them was named
  if (w.exclude.some((ex) => isInside(w.realOf(dir), ex))) return void w.skipped.push({ path: storedPath(w.workspace, dir), reason: "the embedded database's files (path.daemon_state)" });
  const entries = await readdir(dir, { withFileTypes: true }).catch((e: NodeJS.ErrnoException) => e);
  if (entries instanceof Error) return void w.skipped.push({ path: storedPath(w.workspace, dir), reason: `unreadable directory (${entries.code ?? entries.message})` });
  entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  for (const e of entries) {
    if (w.signal.aborted) return;
    const abs = join(dir, e.name);
    if (e.isDirectory()) {
      if (!IGNORED_DIRS.has(e.name)) await walkDir(w, abs);
    } else if (e.isFile()) {
      if (w.exclude.some((ex) => isInside(w.realOf(abs), ex))) {
        w.skipped.push({ path: storedPath(w.workspace, abs), reason: "the embedded database's files (path.daemon_state)" });
        continue;
      }
      const info = await lstat(abs).catch(() => null);
      if (info) await indexFile(w, abs, info.size);
    } else if (e.isSymbolicLink()) {
      await followLink(w, abs);
    }
  }
}

/** A symlink inside the tree is judged like a path the caller named: it may lead out of the workspace. */
async function followLink(w: Walk, abs: string): Promise<void> {
  const path = storedPath(w.workspace, abs);
  if (await confine(w.config, { read: [abs] })) return void w.skipped.push({ path, reason: 'symlink leads outside the workspace' });
  const info = await stat(abs).catch(() => null);
  if (!info) return void w.skipped.push({ path, reason: 'dangling symlink' });
  if (info.isDirectory()) return void w.skipped.push({ path, reason: 'symlinked directory (not followed)' });
  if (info.isFile()) await indexFile(w, abs, info.size);
}

async function indexPath(config: Config, db: Executor, scope: string, path: string, signal: AbortSignal): Promise<ToolResult> {
  const refused = await confine(config, { read: [path] });
  if (refused) return refused;
  const abs = inWorkspace(config, path);
  const info = await stat(abs).catch(() => null);
  if (!info) return fail('business', `path: ${path} does not exist`);
  if (!info.isFile() && !info.isDirectory()) return fail('business', `path: ${path} is not a regular file or a directory`);
  const workspace = resolve(config.tools.workspace);
  // the walk follows no directory links, so a path's real form is the real start plus what follows it
  const realStart = await realpath(abs).catch(() => abs);
  const realOf = (p: string) => join(realStart, relative(abs, p));
  const w: Walk = { config, workspace, signal, documents: [], skipped: [], bytes: 0, truncated: false, exclude: await protectedFilesOf(config)(), realOf };
  if (info.isFile()) await indexFile(w, abs, info.size);
  else await walkDir(w, abs);
  if (signal.aborted) return fail('timeout', 'knowledge_index: stopped before finishing; the index was not changed');
  const { chunks, removed } = await replaceKnowledge(db, { memory_scope: scope, under: storedPath(workspace, abs), documents: w.documents });
  return ok({
    path: storedPath(workspace, abs) || '.',
    files: w.documents.length,
    chunks,
    removed_chunks: removed,
    skipped: w.skipped.slice(0, MAX_SKIPPED_SHOWN),
    ...(w.skipped.length > MAX_SKIPPED_SHOWN ? { skipped_not_shown: w.skipped.length - MAX_SKIPPED_SHOWN } : {}),
    ...(w.truncated ? { truncated: true } : {}),
  });
}

/** The tool as offered when the process has no database: never ready, and says why if called. */
export function withoutDatabase(tool: Tool): Tool {
  return {
    ...tool,
    isReady: () => false,
    readinessDetail: () => [false, 'needs the database'] as const,
    execute: async () => fail('unavailable', `${tool.name}: needs the database`),
  };
}

/** knowledge_index: (re)indexes a workspace file or directory into ctx.memory_scope's knowledge base. */
export function knowledgeIndexTool(config: Config, db: Executor | null): Tool {
  const tool = defineTool('knowledge_index', config, {
    timeoutSeconds: 120,
    async execute(params, ctx, { signal }) {
      const scope = ctx?.memory_scope ?? '';
      if (scope === '') return fail('business', `knowledge_index: ${NO_MEMORY_SCOPE}`);
      const path = String(params.path);
      if (path.trim() === '') return fail('validation', 'path: must not be empty');
      return indexPath(config, db!, scope, path, signal);
    },
  });
  return db ? tool : withoutDatabase(tool);
}
