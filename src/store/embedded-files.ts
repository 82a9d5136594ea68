import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { promises as fs, constants as FS } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import type { Logger } from '../log/logger.ts';

const run = promisify(execFile);

export const PASSWORD_FILE = 'pg-password';
export const PG_DIR = 'pg';

/**
 * The generated superuser password, `<data_dir>/pg-password`, mode 0600. Created once
 * (exclusively, so two starters agree), reused afterwards; the CLI reads the same file.
 */
export async function readOrCreatePassword(dataDir: string, logger: Logger): Promise<string> {
  const file = path.join(dataDir, PASSWORD_FILE);
  try {
    await fs.writeFile(file, `${randomBytes(24).toString('base64url')}\n`, { mode: 0o600, flag: 'wx' });
    logger.info({ file }, 'generated the embedded PostgreSQL password');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
  }
  const st = await fs.stat(file);
  if ((st.mode & 0o077) !== 0) {
    await fs.chmod(file, 0o600);
    logger.warn({ file, mode: (st.mode & 0o777).toString(8) }, 'the embedded PostgreSQL password file was readable by others; set to 0600');
  }
  const password = (await fs.readFile(file, 'utf8')).trim();
  if (!password) throw new Error(`${file} is empty; remove it together with ${path.join(dataDir, PG_DIR)} to start afresh`);
  return password;
}

export async function readPassword(dataDir: string): Promise<string> {
  const file = path.join(dataDir, PASSWORD_FILE);
  try {
    return (await fs.readFile(file, 'utf8')).trim();
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') throw new Error(`no embedded PostgreSQL password at ${file} (has the daemon run with this data_dir?)`);
    throw err;
  }
}

export async function exists(p: string): Promise<boolean> {
  return fs.access(p, FS.F_OK).then(() => true, () => false);
}

export interface LivePostmaster {
  readonly pid: number;
  readonly port: number;
}

/**
 * postmaster.pid of a server that died without cleaning up blocks the next start.
 * Returns the live server when there is one; removes the file when its process is gone
 * (or the pid now belongs to something that is not postgres).
 */
export async function checkPostmasterPid(pgDir: string, logger: Logger): Promise<LivePostmaster | null> {
  const file = path.join(pgDir, 'postmaster.pid');
  let text: string;
  try {
    text = await fs.readFile(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw err;
  }
  const lines = text.split('\n');
  const pid = Number.parseInt(lines[0] ?? '', 10);
  const port = Number.parseInt(lines[3] ?? '', 10);
  if (Number.isInteger(pid) && pid > 0 && pid !== process.pid && (await isPostgresProcess(pid))) return { pid, port };
  await fs.rm(file, { force: true });
  logger.warn({ file, pid: Number.isNaN(pid) ? null : pid }, 'removed a stale postmaster.pid (its server is not running)');
  return null;
}

async function isPostgresProcess(pid: number): Promise<boolean> {
  try {
    process.kill(pid, 0);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  // a recycled pid (common in containers) must not pass for the server
  const cmdline = await fs.readFile(`/proc/${pid}/cmdline`, 'utf8').catch(() => null);
  return cmdline === null ? true : /postgres/.test(cmdline);
}

export interface OsUser {
  readonly uid: number;
  readonly gid: number;
}

/** PostgreSQL refuses to run as root; as root we run it as OS user `postgres`, created if missing. */
export async function ensurePostgresUser(logger: Logger): Promise<OsUser> {
  const lookup = async (): Promise<OsUser> => ({
    uid: Number((await run('id', ['-u', 'postgres'])).stdout.trim()),
    gid: Number((await run('id', ['-g', 'postgres'])).stdout.trim()),
  });
  try {
    return await lookup();
  } catch {
    logger.warn('creating OS user "postgres" to run the embedded PostgreSQL server');
    await run('groupadd', ['--system', 'postgres']).catch(() => {});
    await run('useradd', ['--system', '--gid', 'postgres', '--no-create-home', '--shell', '/usr/sbin/nologin', 'postgres']);
    return lookup();
  }
}

/**
 * As root: `<data_dir>` is given group postgres and g+x so the server can reach its
 * directory (nothing else in it becomes readable), `<data_dir>/pg` is owned by postgres
 * (fixed recursively if it was copied in as root), and every ancestor must be traversable.
 */
export async function prepareOwnership(dataDir: string, pgDir: string, user: OsUser): Promise<void> {
  const st = await fs.stat(dataDir);
  if (st.uid !== user.uid) {
    await fs.chown(dataDir, st.uid, user.gid);
    await fs.chmod(dataDir, (st.mode & 0o7777) | 0o010);
  }
  for (let dir = path.dirname(dataDir); ; dir = path.dirname(dir)) {
    const s = await fs.stat(dir);
    const traversable = (s.mode & 0o001) !== 0 || (s.gid === user.gid && (s.mode & 0o010) !== 0) || s.uid === user.uid;
    if (!traversable) throw new Error(`OS user postgres cannot reach ${dataDir}: ${dir} is not traversable (mode ${(s.mode & 0o777).toString(8)}); choose a daemon.data_dir outside it or allow o+x`);
    if (dir === path.dirname(dir)) break;
  }
  if (await exists(pgDir)) {
    const pg = await fs.stat(pgDir);
    if (pg.uid !== user.uid) await chownTree(pgDir, user);
  }
}

async function chownTree(dir: string, user: OsUser): Promise<void> {
  await fs.lchown(dir, user.uid, user.gid);
  for (const entry of await fs.readdir(dir, { recursive: true })) {
    await fs.lchown(path.join(dir, entry), user.uid, user.gid);
  }
}

/** A data directory left behind by an initdb that did not finish: moved aside, never deleted. */
export async function setAsideIncomplete(pgDir: string, logger: Logger): Promise<void> {
  if (!(await exists(pgDir))) return;
  if ((await fs.readdir(pgDir)).length === 0) return;
  const aside = `${pgDir}.incomplete-${Date.now()}`;
  await fs.rename(pgDir, aside);
  logger.warn({ moved_to: aside }, `${pgDir} had files but no PG_VERSION (an interrupted initialisation); moved it aside`);
}
