import { isAbsolute, join, resolve as resolvePath } from 'node:path';
import { Writable } from 'node:stream';
import { LOG_LEVELS, type Config } from '../config/schema.ts';
import type { AnswerOrigin } from '../store/approvals.ts';
import { createLogger } from '../log/logger.ts';
import type { Database } from '../store/db.ts';
import type { MigrationStatus, Setup } from '../store/migrate.ts';
import { CliError, EXIT } from './errors.ts';
import { configFileOf } from './config-option.ts';
import { storeFailure, storeWhere } from './store-failure.ts';
import { ancestors, hasEnded, osAccount, pidSpace, processIdentity } from '../util/process-identity.ts';

/**
 * Opens the configured database for one command (the embedded server is started when no daemon runs it, and
 * stopped again), then closed. The command changes no schema: one no migration has set up is refused (a typo in
 * database.url would otherwise become a new, empty deployment that no daemon serves), and so is one with
 * migrations pending, which only `migrate` and the daemon apply: a read-only role can run the reading commands,
 * and trying a new build against a live schema does not upgrade it under the daemons serving it.
 * `migrate: false`: the caller (`echo-agent migrate`) migrates, so neither refusal applies.
 */
export async function withStore<T>(config: Config, fn: (database: Database, url: string) => Promise<T>, opts: { migrate?: boolean; create?: boolean } = {}): Promise<T> {
  const [{ resolveDatabaseUrl, NoEmbeddedDatabase, EmbeddedAccessDenied }, { openDatabase }, { migrationStatus, unknownMigrationsWarning }, { setRecordOrigin }] = await Promise.all([
    import('../store/embedded.ts'), import('../store/db.ts'), import('../store/migrate.ts'), import('../store/audit.ts'),
  ]);
  // what a command records (a revoke, a pause, a removal) names the account and host behind its --as name
  setRecordOrigin(processIdentity());
  // CLI output is for people; the store's own logs go to stderr, only when they matter, as plain lines (rule cli.plain_store_notices)
  const logger = createLogger(cliLogLevel(), plainLines(process.stderr));
  const where = storeWhere(config);
  let resolved;
  try {
    // only `migrate` (and the daemon) set a database up; any other command answers from the one there is
    resolved = await resolveDatabaseUrl(config, logger, { create: opts.create ?? false });
  } catch (err) {
    if (err instanceof NoEmbeddedDatabase) throw new CliError(noDatabase(config, err.pgDir), EXIT.unavailable);
    if (err instanceof EmbeddedAccessDenied) {
      throw new CliError(`${configRead(config)}: ${err.message}, e.g. sudo -u ${err.account} echo-agent …; this account cannot use the daemon's embedded database`, EXIT.unavailable);
    }
    // the embedded server's own refusals (another one serves the directory, it did not start) say what they are
    throw storeFailure(err, where, { opening: true }) ?? new CliError(`the embedded database in ${where.dataDir}: ${(err as Error).message}`, EXIT.unavailable);
  }
  const database = openDatabase({ url: resolved.url, poolMax: 4 });
  try {
    const status = await migrationStatus(database.pool).catch((err: unknown) => {
      if (opts.migrate === false) return null; // `migrate` says itself what failed
      throw storeFailure(err, where, { opening: true }) ?? err;
    });
    if (status && status.unknown.length > 0) process.stderr.write(`echo-agent: warning: ${unknownMigrationsWarning(status)}\n`);
    if (status && opts.migrate !== false) {
      if (status.migrations === 0) throw new CliError(notSetUp(config, status, resolved.embedded), EXIT.unavailable);
      if (status.pending.length > 0) throw new CliError(behind(config, status, resolved.embedded), EXIT.unavailable);
    }
    try {
      return await fn(database, resolved.url);
    } catch (err) {
      // a read-only role's write, a lost connection: said as such, not as an internal error
      throw storeFailure(err, where) ?? err;
    }
  } finally {
    await database.close();
    await resolved.stop();
  }
}

/** Where the command looked, and the two usual causes: a mistyped schema or database, or one nobody has set up yet. */
function notSetUp(config: Config, setup: Setup, embedded: boolean): string {
  const where = lookedAt(config, embedded);
  const state = setup.schemaExists ? 'has no echo-agent tables' : 'does not exist';
  const causes = embedded ? 'It is not set up yet' : 'A typo in database.url (its database name, or the search_path in its options)? Or a database not set up yet';
  return `${configRead(config)}: ${where}: database ${JSON.stringify(setup.database)}, schema ${JSON.stringify(setup.schema)} ${state}; nothing was created there. ${causes}: `
    + 'start the daemon (echo-agent daemon, npm start) or run echo-agent migrate with this config (the daemon\'s: --config FILE or ECHO_AGENT_CONFIG)';
}

/** A schema an older release set up: what this build would add, and who adds it. */
function behind(config: Config, status: MigrationStatus, embedded: boolean): string {
  const n = status.pending.length;
  return `${configRead(config)}: ${lookedAt(config, embedded)}: database ${JSON.stringify(status.database)}, schema ${JSON.stringify(status.schema)} is behind this build: `
    + `${n} migration${n === 1 ? '' : 's'} pending (${status.pending.join(', ')}). Commands change no schema, so nothing was changed; `
    + 'with this config, run `echo-agent migrate` (the daemon also applies them at start)';
}

function lookedAt(config: Config, embedded: boolean): string {
  return embedded ? `the embedded database in ${join(resolvePath(config.daemon.data_dir), 'pg')}` : 'database.url';
}

/** Says which config was read, since a forgotten ECHO_AGENT_CONFIG is the usual way to land here. */
function noDatabase(config: Config, pgDir: string): string {
  const file = configFileOf(config);
  const read = configRead(config);
  // a relative data_dir is read from the current directory: from another one, the daemon's own config finds no database
  const relative = file && !isAbsolute(config.daemon.data_dir)
    ? ` daemon.data_dir (${config.daemon.data_dir}) is relative, so it was read from the current directory ${process.cwd()}: run this where the daemon runs, or make data_dir absolute.`
    : '';
  return `${read}: no database.url, and no embedded database in ${pgDir} yet.${relative} Give the daemon's config (--config FILE or ECHO_AGENT_CONFIG), `
    + 'or create it here by starting the daemon (echo-agent daemon, npm start) or with echo-agent migrate';
}

function configRead(config: Config): string {
  const file = configFileOf(config);
  return file ? `config ${file}` : 'no config file (none given with --config or ECHO_AGENT_CONFIG, and no config/echo-agent.yaml here), so the built-in defaults';
}

/** Fields that say nothing to a person at a terminal (pino's own, and the rule id, which the daemon's JSON keeps). */
const PLAIN_SKIP = new Set(['level', 'time', 'service', 'msg', 'component', 'rule']);

/**
 * A pino destination that writes each record as one line for a person: `echo-agent: warning: <message> (key: value, …)`.
 * The daemon keeps its JSON logs; a command's stderr is read by people, between its own prose.
 */
export function plainLines(out: NodeJS.WritableStream): Writable {
  return new Writable({
    write(chunk, _enc, done) {
      for (const line of String(chunk).split('\n').filter(Boolean)) {
        let rec: Record<string, unknown>;
        try {
          rec = JSON.parse(line) as Record<string, unknown>;
        } catch {
          out.write(`${line}\n`);
          continue;
        }
        const level = rec.level === 'warn' ? 'warning: ' : rec.level === 'error' || rec.level === 'fatal' ? 'error: ' : '';
        const details = Object.entries(rec).filter(([k, v]) => !PLAIN_SKIP.has(k) && v !== undefined && v !== null).map(([k, v]) => `${k}: ${plainValue(v)}`);
        out.write(`echo-agent: ${level}${String(rec.msg ?? '')}${details.length ? ` (${details.join(', ')})` : ''}\n`);
      }
      done();
    },
  });
}

function plainValue(v: unknown): string {
  if (typeof v !== 'object') return String(v);
  const message = (v as { message?: unknown }).message;
  return typeof message === 'string' ? message : JSON.stringify(v);
}

/** ECHO_AGENT_LOG_LEVEL, checked: a typo is a configuration error that names the variable, not an internal error. */
export function cliLogLevel(env: NodeJS.ProcessEnv = process.env): string {
  const level = env.ECHO_AGENT_LOG_LEVEL;
  if (level === undefined || level === '') return 'warn';
  if (!(LOG_LEVELS as readonly string[]).includes(level)) throw new CliError(`ECHO_AGENT_LOG_LEVEL: "${level}" is not a log level; use one of ${LOG_LEVELS.join(', ')}`, EXIT.config);
  return level;
}

/** Who an admin command acts as: --as, else the OS account. Recorded in the audit log. */
export async function actorName(flag?: string): Promise<string> {
  if (flag !== undefined && flag.trim() === '') throw new CliError('--as: is empty; give a user name or leave it out for the OS account');
  return flag || osAccount();
}

export { osAccount } from '../util/process-identity.ts';

/** Recorded with an answer beside the --as name, which is only what the caller says. */
export function answerOrigin(): AnswerOrigin {
  return { ...processIdentity(), ancestors: ancestors(), pidSpace: pidSpace(), hasEnded };
}
