import { constants as fsConstants } from 'node:fs';
import { access, mkdir } from 'node:fs/promises';
import { dirname, resolve as resolvePath } from 'node:path';
import type { Logger } from 'pino';

/**
 * A start the configuration itself stops (a workspace that can never be made): restarting cannot help,
 * so the CLI exits 78 (EX_CONFIG), which the systemd unit does not restart.
 */
export class DaemonConfigError extends Error {
  override readonly name = 'DaemonConfigError';
}

/** Why a directory cannot be made that stays so until someone changes the config or the filesystem. */
const DIRECTORY_CONFIG_CODES: Readonly<Record<string, string>> = {
  ENOTDIR: 'a part of the path is a file, not a directory',
  EEXIST: 'the path is a file, not a directory',
  EACCES: 'permission denied',
  EPERM: 'operation not permitted',
  EROFS: 'the filesystem is read-only',
  ELOOP: 'too many symbolic links',
  ENAMETOOLONG: 'the path is too long',
};

/**
 * A directory the daemon writes (jobs write into the workspace; the embedded database lives in the data dir):
 * a missing one is made at start, an unusable one stops the start with its config key and path.
 */
export async function ensureDirectory(key: 'tools.workspace' | 'daemon.data_dir', configured: string, logger: Logger, named: string = key): Promise<void> {
  const dir = resolvePath(configured);
  try {
    // rule daemon.parents_traversable: missing parents get the usual 0755 (mkdir -p), not 0750, which would shut out
    // OS user postgres (the embedded server's, as root) from a data dir below them
    // (a failure here is reported by the mkdir below, in its own words: ENOTDIR for a file in the path)
    await mkdir(dirname(dir), { recursive: true }).catch(() => undefined);
    await mkdir(dir, { recursive: true, mode: 0o750 });
    await access(dir, fsConstants.W_OK);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    const hint = code ? DIRECTORY_CONFIG_CODES[code] : undefined;
    const message = `${named} ${dir} cannot be used: ${code ?? (err as Error).message}`;
    // an I/O error or a full disk may pass; a file in the path or a read-only mount will not
    if (hint) throw new DaemonConfigError(`${message} (${hint})`, { cause: err });
    throw new Error(message, { cause: err });
  }
  logger.info({ [key]: dir }, `${key} ready`);
}
