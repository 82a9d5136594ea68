import type { Dirent } from 'node:fs';
import { open, readdir, readlink, realpath, type FileHandle } from 'node:fs/promises';
import { isAbsolute, join, resolve } from 'node:path';
import type { Config } from '../../config/schema.ts';
import { checkPaths, daemonStateRoots, isInside, resolveRoots, type StateRoots } from '../../guard/paths/index.ts';
import { protectedFiles } from '../../config/store-files.ts';
import { monotonicMs, systemPathFs } from '../../util/system-ports.ts';
import { fail, type ToolResult } from '../types.ts';

/**
 * The file tools' own check of the workspace policy. The gate already ran it
 * at step 1; tools repeat it because they may be called by code, not the model.
 */
export async function confine(config: Config, paths: { read?: string[]; write?: string[] }): Promise<ToolResult | null> {
  const findings = await checkPaths({ read: paths.read ?? [], write: paths.write ?? [] }, {
    workspace: config.tools.workspace,
    restrictToWorkspace: config.tools.restrict_to_workspace,
    safeWriteRoot: config.tools.safe_write_root,
    forbiddenRoots: protectedFilesOf(config),
    stateRoots: stateRootsFor(config),
  }, systemPathFs);
  const bad = findings.find((f) => f.severity === 'deny');
  return bad ? fail('denied', `${bad.reason} (${bad.matched})`) : null;
}

/** The real path of an open file, where the system says (Linux /proc); null elsewhere. */
export async function openedPath(handle: FileHandle): Promise<string | null> {
  const opened = await readlink(`/proc/self/fd/${handle.fd}`).catch(() => null);
  return opened?.startsWith('/') ? opened : null;
}

/**
 * Opens a checked path for reading and judges what was opened: a symlink on the way
 * swapped after the check would otherwise hand over a file outside the workspace or
 * the database's own. Where /proc is missing, only the check by name stands.
 */
export async function openConfined(config: Config, file: string): Promise<{ handle: FileHandle } | { refused: ToolResult }> {
  const handle = await open(file, 'r');
  const opened = await openedPath(handle);
  const refused = opened ? await confine(config, { read: [opened] }) : null;
  if (!refused) return { handle };
  await handle.close();
  return { refused };
}

/** `make`, called once per configuration: the roots it resolves are kept, and looked at again every 10 s. */
function perConfig<T>(make: (config: Config) => T): (config: Config) => T {
  const made = new WeakMap<Config, T>();
  return (config) => {
    if (!made.has(config)) made.set(config, make(config));
    return made.get(config)!;
  };
}

/** The embedded database's files and the configuration file as real paths. */
export const protectedFilesOf = perConfig((config): (() => Promise<readonly string[]>) => resolveRoots(protectedFiles(config), systemPathFs, monotonicMs));

/** The guard's daemonStateRoots (path.daemon_dir). */
export const stateRootsFor = perConfig((config): (() => Promise<StateRoots>) => daemonStateRoots(config, systemPathFs, monotonicMs));

/** Relative paths are relative to the workspace, as the guard resolves them. */
export function inWorkspace(config: Config, path: string): string {
  return resolve(config.tools.workspace, path);
}

/**
 * `PATH does not exist`, saying where it was looked for: a relative path is the workspace's, which a person
 * reading a run's error (or a model) cannot tell from the name alone.
 */
export function doesNotExist(config: Config, path: string): string {
  if (isAbsolute(path)) return `${path} does not exist`;
  const ws = resolve(config.tools.workspace);
  const file = inWorkspace(config, path);
  return isInside(file, ws) ? `${path} does not exist in the workspace ${ws}` : `${path} does not exist (${file}; relative paths start in the workspace ${ws})`;
}

/** Directories listed but never descended into by the recursive file tools. */
export const SKIPPED_DIRS: ReadonlySet<string> = new Set(['node_modules', '.git']);

export interface WalkEntry {
  /** Relative to the walk's root, with forward slashes. */
  readonly rel: string;
  readonly abs: string;
  /** Where the entry really is, as the walk found it: an opened file that is elsewhere was swapped in since. */
  readonly real: string;
  readonly dirent: Dirent;
}

/**
 * The entries under `root`: a directory's entries in name order, then its subdirectories' in turn. Symlinks are yielded, never followed,
 * so a link inside the workspace cannot lead the walk outside it. Unreadable subdirectories are skipped.
 * It ends early, without an error, when `signal` fires: the caller tells a cancelled walk from a finished one.
 */
export async function* walk(root: string, opts: { recursive: boolean; signal?: AbortSignal; exclude?: readonly string[] }): AsyncGenerator<WalkEntry> {
  // entries are never followed through links, so an entry's real path is the root's real path and its rel
  const realRootDir = await realpath(root).catch(() => resolve(root));
  const excluded = (rel: string) => opts.exclude?.some((ex) => isInside(join(realRootDir, rel), ex)) ?? false;
  const pending: { dir: string; rel: string }[] = [{ dir: root, rel: '' }];
  while (pending.length > 0) {
    const { dir, rel } = pending.pop()!;
    if (opts.signal?.aborted) return;
    // a directory swapped for a symlink after it was listed is not followed: it would lead the walk elsewhere
    if (rel && await realpath(dir).catch(() => null) !== join(realRootDir, rel)) continue;
    const entries = await readdir(dir, { withFileTypes: true }).catch((err: NodeJS.ErrnoException) => {
      if (dir === root) throw err;
      return [];
    });
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    const subdirs: { dir: string; rel: string }[] = [];
    for (const dirent of entries) {
      // one directory can hold a million entries: a cancelled walk stops within it, not after it
      if (opts.signal?.aborted) return;
      const entryRel = rel ? `${rel}/${dirent.name}` : dirent.name;
      const entry = { rel: entryRel, abs: join(dir, dirent.name), real: join(realRootDir, entryRel), dirent };
      // the store's files are not listed, searched or descended into, whatever directory above them was named
      if (excluded(entry.rel)) continue;
      yield entry;
      if (opts.recursive && dirent.isDirectory() && !SKIPPED_DIRS.has(dirent.name)) subdirs.push({ dir: entry.abs, rel: entry.rel });
    }
    pending.push(...subdirs.reverse());
  }
}

/** A run of whole lines of a file: `text` holds `lines` lines (line ends kept), the first numbered `firstLine` (1-based). */
export interface LineBlock {
  readonly firstLine: number;
  readonly text: string;
  readonly lines: number;
  /** The file's first bytes are in this block (for a binary sniff). */
  readonly head: Buffer | null;
}

export interface LineBlocksEnd {
  /** eof: read to the end; max_bytes: stopped at maxBytes; long_line: a line longer than blockBytes; stopped: the visitor or the signal ended it. */
  readonly end: 'eof' | 'max_bytes' | 'long_line' | 'stopped';
  /** The first line not visited. */
  readonly nextLine: number;
}

function countNewlines(text: string): number {
  let n = 0;
  for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) n++;
  return n;
}

/**
 * Visits a file's whole lines in blocks of at most `blockBytes`, reading at most `maxBytes`:
 * memory stays bounded whatever the file's size (or its stat size, 0 for /proc files).
 * Blocks are cut at a newline byte, which never occurs inside a UTF-8 sequence.
 */
export async function eachLineBlock(
  handle: FileHandle,
  opts: { blockBytes: number; maxBytes: number; signal?: AbortSignal; sizeHint?: number },
  visit: (block: LineBlock) => boolean | Promise<boolean>,
): Promise<LineBlocksEnd> {
  // a small file gets a small buffer; stat's size is only a hint (0 for /proc files), so never below 64 KiB
  const chunk = Buffer.allocUnsafe(Math.min(opts.blockBytes, Math.max((opts.sizeHint ?? Infinity) + 1, 64 * 1024)));
  let carry: Buffer = Buffer.alloc(0);
  let pos = 0;
  let line = 1;
  let head: Buffer | null = null;
  let headGiven = false;
  const block = (text: string, lines: number): LineBlock => {
    const b = { firstLine: line, text, lines, head: headGiven ? null : head };
    headGiven = true;
    return b;
  };
  for (;;) {
    if (opts.signal?.aborted) return { end: 'stopped', nextLine: line };
    let bytesRead = 0;
    if (pos >= opts.maxBytes) {
      // one byte more tells a file that ends at maxBytes from one that goes on
      if ((await handle.read(Buffer.alloc(1), 0, 1, pos)).bytesRead > 0) return { end: 'max_bytes', nextLine: line };
    } else if (carry.length >= opts.blockBytes) {
      return { end: 'long_line', nextLine: line };
    } else {
      ({ bytesRead } = await handle.read(chunk, 0, Math.min(chunk.length, opts.blockBytes - carry.length, opts.maxBytes - pos), pos));
    }
    if (bytesRead === 0) {
      if (carry.length > 0 && !(await visit(block(carry.toString('utf8'), 1)))) return { end: 'stopped', nextLine: line };
      return { end: 'eof', nextLine: carry.length > 0 ? line + 1 : line };
    }
    // concat copies: the chunk is reused, the carry is not
    const data = Buffer.concat([carry, chunk.subarray(0, bytesRead)]);
    pos += bytesRead;
    head ??= data;
    const cut = data.lastIndexOf(0x0a);
    if (cut === -1) {
      carry = data;
      continue;
    }
    const text = data.toString('utf8', 0, cut + 1);
    carry = data.subarray(cut + 1);
    const lines = countNewlines(text);
    if (!(await visit(block(text, lines)))) return { end: 'stopped', nextLine: line + lines };
    line += lines;
  }
}
