import { resolve as resolvePath } from 'node:path';
import { lostConnection, neverSent } from '../store/pg-errors.ts';
import { pastQueryWrappers } from '../util/query-errors.ts';
import { CliError, EXIT } from './errors.ts';

/**
 * What a command says when its database fails it, by cause: only a connection that could not be made or was lost
 * "cannot reach" the database; a statement the server refused (a read-only role's write) says the database
 * refused; a local file of the embedded database (a full disk) names the directory. All exit 69: a dependency
 * is unavailable, and the message says which and why.
 */

/** Where the command's database is: database.url, or the embedded server of a data directory. */
export interface StoreWhere {
  readonly embedded: boolean;
  readonly dataDir: string;
}

/** Refusals a command's own statements get that are about the role or the server, not a bug: no privilege, a read-only server. */
const REFUSED_IN_COMMAND = new Set(['42501', '25006']);

/** The system calls of making a connection: their errno is the network's. A broken socket's read or write failure is lostConnection's. */
const SOCKET_CALLS = new Set(['connect', 'getaddrinfo', 'getnameinfo', 'lookup']);

/**
 * The failure as a person's message, or null when it is none of these (the caller keeps it as it is).
 * `opening`: the database is being opened (the embedded server started, the schema checked), so any SQLSTATE is a
 * refusal (a login, a database name) and a file error is the data directory's. Otherwise a command is running:
 * only REFUSED_IN_COMMAND are refusals, and its other failures (its own files, its statements) stay what they are.
 */
export function storeFailure(err: unknown, where: StoreWhere, opts: { opening?: boolean } = {}): CliError | null {
  if (err instanceof CliError) return null;
  const named = where.embedded ? `the embedded database in ${where.dataDir}` : 'the database (database.url)';
  if (lostConnection(err) || neverSent(err)) return new CliError(`cannot reach ${named}: ${messageOf(err)}`, EXIT.unavailable);
  const file = opts.opening ? localFileError(err) : null;
  if (file) return new CliError(localFileMessage(file, where), EXIT.unavailable);
  const refused = sqlState(err);
  if (refused && (opts.opening || REFUSED_IN_COMMAND.has(refused.code))) {
    return new CliError(`the database refused: ${refused.message} (SQLSTATE ${refused.code}${hintFor(refused.code, where)})`, EXIT.unavailable);
  }
  return null;
}

function hintFor(code: string, where: StoreWhere): string {
  if (code === '42501') return `; the role ${where.embedded ? 'echo-agent' : 'database.url'} logs in as lacks this privilege`;
  if (code === '25006') return '; a read-only server or transaction (a standby?)';
  return where.embedded ? '' : '; check database.url';
}

/** The innermost message: drizzle's wrapper says only which statement failed. */
function messageOf(err: unknown): string {
  const inner = pastQueryWrappers(err);
  const first = inner instanceof AggregateError ? inner.errors[0] : undefined;
  const text = inner instanceof Error ? inner.message || (first instanceof Error ? first.message : '') : String(inner);
  const code = (inner as { code?: unknown }).code;
  return text || (typeof code === 'string' ? code : 'unknown error');
}

/** A server's answer: a SQLSTATE with the severity pg's DatabaseError carries (an errno like EPERM has none). */
function sqlState(err: unknown): { code: string; message: string } | null {
  for (let e: unknown = err, depth = 0; e instanceof Error && depth < 5; e = e.cause, depth++) {
    const { code, severity } = e as { code?: unknown; severity?: unknown };
    if (typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code) && typeof severity === 'string') return { code, message: e.message };
  }
  return null;
}

/** A system call's error (ENOSPC, EACCES, EROFS, …) that is not a connection's: a local file's. */
function localFileError(err: unknown): NodeJS.ErrnoException | null {
  for (let e: unknown = err, depth = 0; e instanceof Error && depth < 5; e = e.cause, depth++) {
    const { code, syscall } = e as NodeJS.ErrnoException;
    if (typeof code === 'string' && /^E[A-Z]+$/.test(code) && typeof syscall === 'string' && !SOCKET_CALLS.has(syscall)) return e;
  }
  return null;
}

const FILE_CAUSE: Readonly<Record<string, string>> = {
  ENOSPC: 'the file system holding it is full',
  EDQUOT: 'the disk quota of this user is used up',
  EROFS: 'the file system is read-only',
  EACCES: 'this OS user may not use it',
  EPERM: 'this OS user may not use it',
};

function localFileMessage(e: NodeJS.ErrnoException, where: StoreWhere): string {
  const place = where.embedded ? ` in the embedded database's data directory ${where.dataDir}` : '';
  const path = e.path && !e.message.includes(e.path) ? ` (${e.path})` : '';
  const cause = e.code && FILE_CAUSE[e.code] ? ` (${FILE_CAUSE[e.code]})` : '';
  return `local file error${place}${path}: ${e.message}${cause}`;
}

/** Where a config's database is, as storeFailure names it. */
export function storeWhere(config: { database: { url?: string | undefined }; daemon: { data_dir: string } }): StoreWhere {
  return { embedded: !config.database.url, dataDir: resolvePath(config.daemon.data_dir) };
}

/**
 * `echo-agent migrate`'s failure. drizzle applies the pending migrations in one transaction, so a statement the server
 * refused left the schema as it was; a connection lost on the way leaves it unknown whether the commit happened, and
 * running migrate again is safe either way (it applies only what is pending).
 */
export function migrateFailure(err: unknown, where: StoreWhere): CliError {
  const known = storeFailure(err, where);
  const refused = sqlState(err);
  const cause = known?.message ?? (refused ? `${refused.message} (SQLSTATE ${refused.code})` : messageOf(err));
  const lost = lostConnection(err) || (!refused && !neverSent(err));
  const outcome = neverSent(err) ? 'nothing was applied' : lost
    ? 'it is not known whether the pending migrations were applied; run echo-agent migrate again (it applies only what is pending)'
    : 'nothing was applied (the pending migrations run in one transaction)';
  return new CliError(`migrating the database failed, ${outcome}: ${cause}`, EXIT.unavailable);
}
