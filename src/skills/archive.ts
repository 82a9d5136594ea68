import { mkdir, open, type FileHandle } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { PassThrough, type Transform } from 'node:stream';
import { createGunzip } from 'node:zlib';
import { Parser, type ReadEntry } from 'tar';
import { Budget, PackageRefused } from './limits.ts';

const FILE_TYPES = new Set(['File', 'OldFile', 'ContiguousFile']);
const REFUSED_TYPES: Readonly<Record<string, string>> = {
  SymbolicLink: 'is a symbolic link',
  Link: 'is a hard link',
  CharacterDevice: 'is a device file',
  BlockDevice: 'is a device file',
  FIFO: 'is a FIFO',
};
// PAX and GNU long-name headers; a real path never needs more
const MAX_META_BYTES = 64 * 1024;

export const isGzip = (b: Buffer): boolean => b.length >= 2 && b[0] === 0x1f && b[1] === 0x8b;

const asError = (e: unknown): Error => (e instanceof Error ? e : new Error(String(e)));

/** fs errors that mean two entries of the archive claim the same place. */
function collision(err: unknown, path: string): Error {
  const code = (err as NodeJS.ErrnoException).code;
  return code === 'EEXIST' || code === 'ENOTDIR' || code === 'EISDIR'
    ? new PackageRefused(`entry ${Budget.describe(path)} collides with another entry`)
    : asError(err);
}

/**
 * Unpacks a tar or gzipped tar held in memory into `dest` (an empty directory), writing only plain files
 * and directories: absolute paths, `..`, links, devices and FIFOs are refused, and the entries and content
 * bytes are counted as they are written (the decompressed stream too), so a header cannot lie its way past
 * the budget. Throws PackageRefused for anything the archive is to blame for.
 */
export async function extractTarball(archive: Buffer, dest: string, budget: Budget, signal?: AbortSignal): Promise<void> {
  const parser = new Parser({ strict: true, brotli: false, zstd: false, maxMetaEntrySize: MAX_META_BYTES });
  const handles = new Set<FileHandle>();
  let refusal: Error | undefined;
  let chain: Promise<void> = Promise.resolve();

  const stop = (err: unknown): void => {
    refusal ??= asError(err);
    parser.abort(refusal);
  };
  // fs work runs in archive order, one step at a time; the parser never waits for it, the budget bounds the backlog
  const later = (path: string, step: () => Promise<void>): void => {
    chain = chain.then(() => (refusal ? undefined : step().catch((e: unknown) => stop(collision(e, path)))));
  };

  const finished = new Promise<void>((resolve) => {
    parser.on('end', resolve);
    parser.on('error', (e: unknown) => {
      const err = asError(e);
      refusal ??= 'tarCode' in err ? new PackageRefused(`the archive is not a valid tar archive (${err.message})`) : err;
      resolve();
    });
  });
  parser.on('ignoredEntry', (entry: ReadEntry) => stop(new PackageRefused(`entry ${Budget.describe(entry.path)} has a metadata header over ${MAX_META_BYTES} bytes`)));
  parser.on('entry', (entry: ReadEntry) => {
    try {
      takeEntry(entry);
    } catch (err) {
      entry.resume();
      stop(err);
    }
  });

  function takeEntry(entry: ReadEntry): void {
    const rel = budget.entry(entry.path);
    if (entry.type === 'Directory') {
      entry.resume();
      if (rel !== '') later(entry.path, async () => { await mkdir(join(dest, rel), { recursive: true, mode: 0o755 }); });
      return;
    }
    if (!FILE_TYPES.has(entry.type)) throw new PackageRefused(`entry ${Budget.describe(entry.path)} ${REFUSED_TYPES[entry.type] ?? `has unsupported type ${entry.type}`}`);
    if (rel === '') throw new PackageRefused(`entry ${Budget.describe(entry.path)} is a file without a name`);
    // the declared size is only a first check; the bytes are counted below as they arrive
    if (budget.bytes + entry.size > budget.maxBytes) budget.add(entry.size);
    const target = join(dest, rel);
    const mode = (entry.mode ?? 0) & 0o111 ? 0o755 : 0o644;
    let handle: FileHandle | undefined;
    later(entry.path, async () => {
      await mkdir(dirname(target), { recursive: true, mode: 0o755 });
      handle = await open(target, 'wx', mode);
      handles.add(handle);
    });
    entry.on('data', (chunk: Buffer) => {
      try {
        budget.add(chunk.length);
      } catch (err) {
        stop(err);
        return;
      }
      later(entry.path, async () => { await handle!.write(chunk); });
    });
    entry.on('end', () => later(entry.path, async () => {
      handles.delete(handle!);
      await handle!.close();
    }));
  }

  const raw: Transform = isGzip(archive) ? createGunzip() : new PassThrough();
  // tar headers and padding on top of the content; anything past this is not a package
  const rawLimit = 2 * budget.maxBytes + 1024 * 1024;
  let rawBytes = 0;
  try {
    raw.end(archive);
    for await (const chunk of raw as AsyncIterable<Buffer>) {
      if (refusal) break;
      if (signal?.aborted) {
        stop(signal.reason instanceof Error ? signal.reason : new Error('aborted'));
        break;
      }
      rawBytes += chunk.length;
      if (rawBytes > rawLimit) {
        stop(new PackageRefused(`the archive expands to more than ${rawLimit} bytes`));
        break;
      }
      if (!parser.write(chunk)) await drained(parser);
    }
    if (!refusal) parser.end();
  } catch (err) {
    stop(new PackageRefused(`the archive is not a valid gzip stream (${asError(err).message})`));
  } finally {
    raw.destroy();
  }
  await finished;
  await chain;
  await Promise.all([...handles].map((h) => h.close().catch(() => undefined)));
  if (refusal) throw refusal;
}

/** Resolves on the parser's next drain, or when it stops. */
function drained(parser: Parser): Promise<void> {
  return new Promise((resolve) => {
    const events = ['drain', 'error', 'end', 'abort'] as const;
    const done = () => {
      for (const e of events) parser.off(e, done);
      resolve();
    };
    for (const e of events) parser.on(e, done);
  });
}
