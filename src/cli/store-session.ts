import type { Config } from '../config/schema.ts';
import type { AnswerOrigin } from '../store/approvals.ts';
import { createLogger } from '../log/logger.ts';
import type { Database } from '../store/db.ts';
import { CliError, EXIT } from './errors.ts';
import { ancestors, hasEnded, osAccount, pidSpace, processIdentity } from '../util/process-identity.ts';

/**
 * Opens the configured database for one command (the embedded server is
 * started when no daemon runs it, and stopped again), migrated, then closed.
 */
export async function withStore<T>(config: Config, fn: (database: Database, url: string) => Promise<T>, opts: { migrate?: boolean } = {}): Promise<T> {
  const [{ resolveDatabaseUrl }, { openDatabase }, { migrate }] = await Promise.all([
    import('../store/embedded.ts'), import('../store/db.ts'), import('../store/migrate.ts'),
  ]);
  // CLI output is for people; the store's own logs go to stderr and only when they matter
  const logger = createLogger(process.env.ECHO_AGENT_LOG_LEVEL ?? 'warn', process.stderr);
  let resolved;
  try {
    resolved = await resolveDatabaseUrl(config, logger);
  } catch (err) {
    throw new CliError(`cannot reach the database: ${(err as Error).message}`, EXIT.unavailable);
  }
  const database = openDatabase({ url: resolved.url, poolMax: 4 });
  try {
    // `echo-agent migrate` migrates itself, to say what it applied
    if (opts.migrate !== false) {
      try {
        await migrate(database.pool);
      } catch (err) {
        throw new CliError(`cannot reach the database: ${(err as Error).message}`, EXIT.unavailable);
      }
    }
    return await fn(database, resolved.url);
  } finally {
    await database.close();
    await resolved.stop();
  }
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
