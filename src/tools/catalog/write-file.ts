import { randomBytes } from 'node:crypto';
import { mkdir, open, rename, rm, stat } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import type { Config } from '../../config/schema.ts';
import { realPathOf } from '../../guard/paths/index.ts';
import { systemPathFs } from '../../util/system-ports.ts';
import { defineTool } from '../define.ts';
import { fail, ok } from '../types.ts';
import { stoppedByAbort } from './abort.ts';
import { confine, inWorkspace, openedPath } from './workspace-files.ts';

/** The path resolved somewhere else between the check and the write: a symlink was swapped. Nothing was written. */
export class PathChangedError extends Error {
  override readonly name = 'PathChangedError';
  static readonly DETAIL = 'resolved to another place while it was being written (a symlink changed); nothing was written';
  constructor(readonly path: string) {
    super(`${path} ${PathChangedError.DETAIL}`);
  }
}

const resolvedPath = (file: string) => realPathOf(resolve(file), systemPathFs).catch(() => resolve(file));

/**
 * Writes through a temp file and rename, so a reader never sees half a file. A symlink
 * is written through to its target (what the path policy judged), not replaced, and an
 * existing file keeps its read, write and execute bits. The path is resolved again just before the
 * rename; if it moved (a racing symlink swap), the write is abandoned. When `signal` fires before the
 * rename, the write is abandoned too (its reason is thrown): a cancelled call leaves the old file whole.
 */
export async function atomicWrite(file: string, content: string, confinedBy?: Config, signal?: AbortSignal): Promise<void> {
  signal?.throwIfAborted();
  const target = await resolvedPath(file);
  await mkdir(dirname(target), { recursive: true });
  const mode = (await stat(target).catch(() => null))?.mode;
  const tmp = `${target}.${randomBytes(6).toString('hex')}.echo-agent.tmp`;
  try {
    // through the handle: a name swapped for a symlink in between would pass chmod on to another file
    const handle = await open(tmp, 'wx');
    try {
      // where the temp file really went: a directory on the way swapped since the check is judged again
      const opened = confinedBy ? await openedPath(handle) : null;
      if (opened && await confine(confinedBy!, { write: [join(dirname(opened), basename(target))] })) throw new PathChangedError(file);
      await handle.writeFile(content, 'utf8');
      // not setuid, setgid or sticky: the content is new, and a daemon running as root would make it a setuid-root program
      if (mode !== undefined) await handle.chmod(mode & 0o777);
    } finally {
      await handle.close();
    }
    if (await resolvedPath(file) !== target || await realPathOf(dirname(tmp), systemPathFs).catch(() => null) !== dirname(target)) throw new PathChangedError(file);
    // the last moment a cancelled call can still leave no trace: after the rename the write has happened
    signal?.throwIfAborted();
    await rename(tmp, target);
  } catch (err) {
    // the write's own error is the one to report: a temp file that cannot be removed was never made (a name too long)
    await rm(tmp, { force: true }).catch(() => undefined);
    throw withPath(err, file);
  }
}

/**
 * A file system error as "cannot write PATH: no space left on device (ENOSPC)": a write's own errors (ENOSPC,
 * EDQUOT, EIO on a handle) do not name the file, and the one reading a run's output must know which. `code` is kept.
 */
function withPath(err: unknown, file: string): unknown {
  const e = err as NodeJS.ErrnoException;
  if (err instanceof PathChangedError || !(err instanceof Error) || typeof e.code !== 'string' || !/^E[A-Z]+$/.test(e.code)) return err;
  const what = e.message.replace(new RegExp(`^${e.code}: `), '').replace(/, \w+( '[^']*')*$/, '');
  return Object.assign(new Error(`cannot write ${file}: ${what} (${e.code})`, { cause: err }), { code: e.code });
}

export function writeFileTool(config: Config) {
  return defineTool('write_file', config, {
    async execute(params, _ctx, { signal }) {
      const path = String(params.path);
      const refused = await confine(config, { write: [path] });
      if (refused) return refused;
      const file = inWorkspace(config, path);
      const existing = await stat(file).catch(() => null);
      if (existing?.isDirectory()) return fail('business', `write_file: path: ${path} is a directory`);
      const content = String(params.content);
      try {
        await atomicWrite(file, content, config, signal);
      } catch (err) {
        if (signal.aborted) return stoppedByAbort('write_file', signal, `nothing was written to ${path}`);
        const code = (err as NodeJS.ErrnoException).code;
        if (err instanceof PathChangedError) return fail('denied', `write_file: path: ${path} ${PathChangedError.DETAIL}`);
        if (code === 'ENOTDIR' || code === 'EISDIR' || code === 'EEXIST') return fail('business', `write_file: path: cannot write ${path}: a part of it is not a directory (${code})`);
        throw err;
      }
      return ok({ path, bytes: Buffer.byteLength(content), created: existing === null });
    },
  });
}
