import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { promises as fs, constants as FS, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import type { Logger } from '../log/logger.ts';
import { rememberSecrets } from '../util/redact.ts';
import { untraversable, type OsUser } from './embedded-reach.ts';
import { PASSWORD_FILE, PG_DIR, START_LOCK } from '../config/store-files.ts';

export type { OsUser } from './embedded-reach.ts';

const run = promisify(execFile);

// the names live in config/store-files.ts, which the guard reads without loading this file's fs and child_process
export { OWNER_FILE, PASSWORD_FILE, PG_DIR, protectedFiles, SERVER_LOG, storeFiles } from '../config/store-files.ts';

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
  // a random string no pattern recognises: cut out literally wherever it turns up (a tool's output, a log line)
  rememberSecrets([password]);
  return password;
}

export async function readPassword(dataDir: string): Promise<string> {
  const file = path.join(dataDir, PASSWORD_FILE);
  try {
    const password = (await fs.readFile(file, 'utf8')).trim();
    rememberSecrets([password]);
    return password;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') throw new Error(`no embedded PostgreSQL password at ${file} (has the daemon run with this data_dir?)`);
    throw err;
  }
}

/** Whether `p` exists; a path this account may not look into (EACCES) throws rather than passing for missing (rule embedded.access_denied). */
export async function exists(p: string): Promise<boolean> {
  try {
    await fs.access(p, FS.F_OK);
    return true;
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return false;
    throw err;
  }
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
  const found = await readPostmaster(pgDir);
  if (found === null || found.live) return found && { pid: found.pid, port: found.port };
  const file = path.join(pgDir, 'postmaster.pid');
  await fs.rm(file, { force: true });
  logger.warn({ file, pid: Number.isNaN(found.pid) ? null : found.pid }, 'removed a stale postmaster.pid (its server is not running)');
  return null;
}

/** What postmaster.pid says, and whether its server really runs; changes nothing. Null: no file. */
export async function readPostmaster(pgDir: string): Promise<(LivePostmaster & { live: boolean }) | null> {
  let text: string;
  try {
    text = await fs.readFile(path.join(pgDir, 'postmaster.pid'), 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw err;
  }
  const lines = text.split('\n');
  const pid = Number.parseInt(lines[0] ?? '', 10);
  const port = Number.parseInt(lines[3] ?? '', 10);
  const live = Number.isInteger(pid) && pid > 0 && pid !== process.pid && isServerOf(pid, pgDir);
  return { pid, port, live };
}

/**
 * Whether `pid` is the server of this very directory. A recycled pid (common in
 * containers and after a reboot) must not pass for it: a process we may not signal
 * (EPERM) is another user's, so not ours; one whose command line we cannot read, or
 * that names no `-D <pgDir>`, is not it either.
 */
export function isServerOf(pid: number, pgDir: string): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  // read at once: this is also asked on the way out of a process ('exit'), where nothing async runs
  let cmdline: string;
  try {
    cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
  } catch {
    return false;
  }
  const argv = cmdline.split('\0');
  return /postgres/.test(argv[0] ?? '') && argv.some((a, i) => a === pgDir && argv[i - 1] === '-D');
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
export async function prepareOwnership(dataDir: string, pgDir: string, user: OsUser, logger: Logger): Promise<void> {
  // a cluster another account runs (the daemon's service user) is not handed to postgres: its owner could no longer start it
  const cluster = (await exists(pgDir)) ? await fs.stat(pgDir) : null;
  if (cluster && cluster.uid !== user.uid && cluster.uid !== 0) {
    const name = await run('id', ['-nu', String(cluster.uid)]).then((r) => r.stdout.trim(), () => '');
    throw new Error(`${pgDir} belongs to ${name ? `OS user ${name} (uid ${cluster.uid})` : `uid ${cluster.uid}`}, which runs this embedded PostgreSQL; `
      + `run this command as that user (sudo -u ${name || `'#${cluster.uid}'`} …), not as root, which would hand the cluster to OS user postgres`);
  }
  const st = await fs.stat(dataDir);
  // changed only when needed, and said (rule embedded.data_dir_group): an operator's directory changes hands visibly
  if (st.uid !== user.uid && (st.gid !== user.gid || (st.mode & 0o010) === 0)) {
    const mode = (st.mode & 0o7777) | 0o010;
    await fs.chown(dataDir, st.uid, user.gid);
    await fs.chmod(dataDir, mode);
    logger.warn({ path: dataDir, rule: 'embedded.data_dir_group', old: `${await accountName(st.uid)}:${await groupName(st.gid)} ${octal(st.mode)}`, new: `${await accountName(st.uid)}:postgres ${octal(mode)}` },
      'gave daemon.data_dir to group postgres (g+x) so that the embedded PostgreSQL server, run as OS user postgres, can reach its cluster');
  }
  const blocked = untraversable(dataDir, user);
  if (blocked) throw new Error(`OS user postgres cannot reach ${dataDir}: ${blocked.text}; choose a daemon.data_dir outside it or allow o+x`);
  // copied in as root: fixed for the server's user
  if (cluster && cluster.uid !== user.uid) {
    await chownTree(pgDir, user);
    logger.warn({ path: pgDir, rule: 'embedded.data_dir_group', old: `${await accountName(cluster.uid)} ${octal(cluster.mode)}`, new: `postgres ${octal(cluster.mode)}` },
      'gave the embedded cluster (copied in as root?) to OS user postgres, which runs its server');
  }
}

const octal = (mode: number): string => (mode & 0o7777).toString(8).padStart(4, '0');

/** The account name of a uid, for a message (the uid when it has none). */
export async function accountName(uid: number): Promise<string> {
  return run('id', ['-nu', String(uid)]).then((r) => r.stdout.trim() || `uid ${uid}`, () => `uid ${uid}`);
}

async function groupName(gid: number): Promise<string> {
  return run('getent', ['group', String(gid)]).then((r) => r.stdout.split(':')[0] || `gid ${gid}`, () => `gid ${gid}`);
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

/** As root the server runs as postgres, which must reach the binaries in node_modules too (not under a 0700 /root). */
export async function checkBinariesReachable(binary: string, user: OsUser): Promise<void> {
  if (!binary) return;
  const blocked = untraversable(binary, user);
  if (blocked) {
    throw new Error(`OS user postgres cannot run the embedded PostgreSQL at ${binary}: ${blocked.text}; install echo-agent outside it (e.g. /opt/echo-agent), allow o+x there, or set database.url`);
  }
}

/**
 * Runs `fn` with TMPDIR at a directory only the server's user can read: the library writes
 * the superuser password for initdb to a file in the temp directory, world-readable under a usual umask.
 */
export async function withPrivateTmp<T>(dataDir: string, user: OsUser | null, fn: () => Promise<T>): Promise<T> {
  const dir = path.join(dataDir, 'initdb-tmp');
  await fs.rm(dir, { recursive: true, force: true });
  await fs.mkdir(dir, { mode: 0o700 });
  if (user) await fs.chown(dir, user.uid, user.gid);
  const before = process.env.TMPDIR;
  process.env.TMPDIR = dir;
  try {
    return await fn();
  } finally {
    if (before === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = before;
    await fs.rm(dir, { recursive: true, force: true });
  }
}

/** How long a starter waits for another one to finish before giving up. */
const START_LOCK_WAIT_MS = 120_000;
/** How long a lock file may stay empty (made, its pid not yet written) before it counts as left behind. */
const LOCK_WRITE_GRACE_MS = 5_000;

/**
 * One starter at a time per data directory: `<data_dir>/pg.start.lock` holds the pid of
 * the process starting the server. A lock whose process is gone is stale and taken over.
 */
export async function withStartLock<T>(dataDir: string, logger: Logger, fn: () => Promise<T>): Promise<T> {
  const lock = path.join(dataDir, START_LOCK);
  const deadline = Date.now() + START_LOCK_WAIT_MS;
  let told = false;
  for (;;) {
    try {
      await fs.writeFile(lock, `${process.pid}\n`, { flag: 'wx', mode: 0o600 });
      break;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      const holder = Number.parseInt(await fs.readFile(lock, 'utf8').catch(() => ''), 10);
      // the file is made before its pid is written: an empty one is a starter between the two steps, unless it is old
      const unreadable = !Number.isInteger(holder) || holder <= 0;
      const age = unreadable ? Date.now() - ((await fs.stat(lock).catch(() => null))?.mtimeMs ?? 0) : 0;
      if ((unreadable && age > LOCK_WRITE_GRACE_MS) || (!unreadable && !alive(holder))) {
        await fs.rm(lock, { force: true });
        continue;
      }
      if (unreadable) {
        await new Promise((r) => setTimeout(r, 50));
        continue;
      }
      if (Date.now() > deadline) throw new Error(`process ${holder} has been starting the embedded PostgreSQL of ${dataDir} for over ${START_LOCK_WAIT_MS / 1000} s (${lock})`);
      if (!told) logger.info({ pid: holder }, 'another process is starting or stopping the embedded PostgreSQL; waiting for it');
      told = true;
      await new Promise((r) => setTimeout(r, 200));
    }
  }
  try {
    return await fn();
  } finally {
    await fs.rm(lock, { force: true });
  }
}

/**
 * The start lock taken on the way out of a process ('exit': nothing async runs), waiting at most `waitMs`: the
 * last owner's decision to stop the server must not cross another's (embedded.last_out_stops). Returns its release;
 * a lock not had in time (or held by this very process, mid-start) is gone without, as before the lock existed.
 */
export function holdStartLockSync(dataDir: string, waitMs: number): () => void {
  const lock = path.join(dataDir, START_LOCK);
  const deadline = Date.now() + waitMs;
  const nap = new Int32Array(new SharedArrayBuffer(4));
  for (;;) {
    try {
      writeFileSync(lock, `${process.pid}\n`, { flag: 'wx', mode: 0o600 });
      return () => rmSync(lock, { force: true });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') return () => {};
      let holder = Number.NaN;
      try { holder = Number.parseInt(readFileSync(lock, 'utf8'), 10); } catch { /* gone meanwhile */ }
      if (holder === process.pid) return () => {};
      if (Number.isInteger(holder) && holder > 0 && !alive(holder)) {
        rmSync(lock, { force: true });
        continue;
      }
      if (Date.now() > deadline) return () => {};
      Atomics.wait(nap, 0, 0, 20);
    }
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}
