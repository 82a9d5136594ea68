import type { Command } from 'commander';
import { byPosition, locatedLine } from '../../config/locate.ts';
import { configFor } from '../config-option.ts';
import { CliError, EXIT } from '../errors.ts';
import { printJson } from '../output.ts';
import { withStore } from '../store-session.ts';
import { migrateFailure, storeWhere } from '../store-failure.ts';

/** How long a stopped daemon's process may take to exit by itself before it is made to. */
const EXIT_BACKSTOP_MS = 3_000;
/**
 * The exit after a SIGHUP stop (128 + 1, as a shell reports it). Non-zero on purpose: admins send HUP
 * expecting a reload, and systemd's Restart=on-failure treats exit 0 as done and leaves the daemon stopped.
 */
const EXIT_AFTER_SIGHUP = 129;

export function registerDaemonCommands(program: Command): void {
  program
    .command('daemon')
    .description('run the scheduler and workers: fires due jobs, runs them unattended, serves /healthz and /metrics')
    .action(async (_opts: unknown, cmd: Command) => {
      const { config, file, warnings } = configFor(cmd, { quietWarnings: true });
      const [{ createLogger }, { startDaemon, DaemonConfigError }, { StoppedWhileStartingError }] = await Promise.all([
        import('../../log/logger.ts'), import('../../daemon/daemon.ts'), import('../../util/dependency-error.ts'),
      ]);
      const logger = createLogger(config.logging.level);
      logger.info({ config: file ?? '(built-in defaults)' }, 'configuration loaded');
      for (const w of byPosition(warnings)) logger.warn({ path: w.path, line: w.line, column: w.column, env: w.env }, `config: ${locatedLine(file, w)}`);
      // listening before the start: a SIGTERM during initdb or migrations stops cleanly once the start is done
      let signalled: string | null = null;
      let fatal: string | null = null;
      let wake: (() => void) | null = null;
      let daemon: Awaited<ReturnType<typeof startDaemon>> | undefined;
      const starting = new AbortController();
      const onSignal = (signal: string) => {
        if (signalled) {
          alreadyStopping(signal);
          return;
        }
        signalled = signal;
        starting.abort(signal);
        logger.info({ signal }, 'signal received');
        if (signal === 'SIGHUP') {
          logger.warn({ signal, exit_code: EXIT_AFTER_SIGHUP },
            'SIGHUP does not reload the configuration: the daemon stops gracefully and exits 129; a restart is how configuration is reloaded '
            + '(under systemd, Restart=on-failure starts it again)');
        }
        wake?.();
      };
      // Ctrl-C twice, or SIGTERM again: running work is cancelled and recorded now, as at the stop timeout. A SIGHUP
      // (the terminal closed after a Ctrl-C) asks for nothing more than the stop under way
      const alreadyStopping = (signal: string) => {
        if (signal !== 'SIGHUP') {
          if (daemon) daemon.cancelNow(`a second ${signal}`);
          else logger.warn({ signal }, `a second ${signal} while the start is being wound down: no run has been taken yet`);
          return;
        }
        const state = daemon?.stopping();
        if (state) logger.info({ signal, running: state.running, cancel_at: state.cancelAt.toISOString() }, `already stopping: ${state.running} run(s) still running, cancelled at ${state.cancelAt.toISOString()} (daemon.stop_timeout_seconds)`);
        else logger.info({ signal }, 'already stopping');
      };
      process.on('SIGTERM', () => onSignal('SIGTERM'));
      process.on('SIGINT', () => onSignal('SIGINT'));
      // a closed terminal or ssh session: the same graceful stop, not a kill mid-run
      process.on('SIGHUP', () => onSignal('SIGHUP'));
      const { lostConnection } = await import('../../store/pg-errors.ts');
      // a library connection without an 'error' listener (BullMQ opens its LISTEN connection before it
      // listens) throws when the server goes away: expected while stopping, otherwise a lost dependency
      // (stop, exit 69); any other uncaught error is one fatal JSON line and exit 70, not a stack trace
      const uncaught = (err: unknown) => {
        if (lostConnection(err)) {
          if (signalled) {
            logger.warn({ err }, 'a database connection ended while stopping');
            return;
          }
          // the database went away (the embedded server died): stop as for any lost dependency, exit 69
          logger.error({ err }, 'a database connection was lost outside any handler; the daemon stops');
          fatal = `the database connection was lost (${(err as Error).message})`;
          signalled = 'fatal';
          wake?.();
          return;
        }
        logger.fatal({ err }, 'uncaught error; the daemon exits');
        process.exit(EXIT.software);
      };
      process.on('uncaughtException', uncaught);
      process.on('unhandledRejection', uncaught);
      try {
        daemon = await startDaemon(config, {
          logger, stopSignal: starting.signal,
          onFatal: (why) => {
            // a stop asked for by a signal is no failure; the server's death is the cause a lost connection only shows
            if (signalled && signalled !== 'fatal') return;
            fatal = why;
            signalled = 'fatal';
            wake?.();
          },
        });
      } catch (err) {
        if (err instanceof StoppedWhileStartingError) {
          // asked to stop while a dependency kept it waiting: everything started is stopped; a stop, not a failure
          logger.info({ signal: signalled }, 'stopped while starting; everything it had started was stopped');
          process.exitCode = signalled === 'SIGHUP' ? EXIT_AFTER_SIGHUP : EXIT.ok;
          setTimeout(() => process.exit(), EXIT_BACKSTOP_MS).unref();
          return;
        }
        // a configuration problem exits 78, which the unit does not restart: every restart would fail the same way
        const code = err instanceof DaemonConfigError ? EXIT.config : EXIT.unavailable;
        logger.fatal({ ...startFailure(err, code === EXIT.config), exit_code: code }, code === EXIT.config
          ? 'the daemon could not start: the configuration cannot be used; fix it, then start the daemon again (a restart alone fails the same way)'
          : 'the daemon could not start; everything it had started was stopped');
        // a stray handle (a library's timer) must not keep a failed daemon alive
        setTimeout(() => process.exit(code), 5_000).unref();
        throw new CliError(`daemon: could not start: ${oneLine((err as Error).message)}`, code);
      }
      if (!signalled) await new Promise<void>((resolve) => { wake = resolve; });
      // the event loop emptied while the stop was awaited (Ctrl-C stopped the embedded server with our
      // connections): no I/O is left that could settle it, and Node would exit 13 for the pending await
      const drained = () => {
        logger.warn({ exit_code: process.exitCode ?? 0 }, 'nothing was left for the stop to wait on; exiting');
        process.exit();
      };
      process.once('beforeExit', drained);
      // set before the stop, so the drained and backstop exits below carry it too
      if (signalled === 'SIGHUP') process.exitCode = EXIT_AFTER_SIGHUP;
      try {
        // a server that did not shut down cleanly (a PANIC on a full disk) is a failed dependency, as its death is: 69
        const { failure } = await daemon.stop();
        if (failure) fatal ??= failure;
      } catch (err) {
        // every step of the stop catches its own failure: one that escapes is a bug
        logger.error({ err, exit_code: EXIT.software }, 'shutdown failed');
        process.exitCode = EXIT.software;
      } finally {
        process.off('beforeExit', drained);
      }
      // a handle a library left open (BullMQ opens its LISTEN connection even while closing) must not keep a
      // stopped daemon alive: its supervisor waits for the exit
      setTimeout(() => {
        // what kept it: the kinds of resource still open (TCPSocketWrap, Timeout, …), for a bug report
        logger.warn({ exit_code: process.exitCode ?? 0, open: process.getActiveResourcesInfo() }, 'the daemon has stopped but an open handle kept the process alive; exiting');
        process.exit();
      }, EXIT_BACKSTOP_MS).unref();
      if (fatal) throw new CliError(`daemon: stopped: ${oneLine(fatal)}`, EXIT.unavailable);
    });

  program
    .command('migrate')
    .description('apply the database migrations in drizzle/ (the daemon also does this at start)')
    .option('--json', 'print JSON')
    .option('--apply-missing', 'also apply migrations of this build that are not recorded while a newer one is (after a hotfix build migrated the schema)')
    .action(async (opts: { json?: boolean; applyMissing?: boolean }, cmd: Command) => {
      const { config } = configFor(cmd);
      const { migrateReporting, StrandedMigrationsError } = await import('../../store/migrate.ts');
      const report = await withStore(config, async (db) => {
        try {
          return await migrateReporting(db.pool, opts.applyMissing ? { applyMissing: true } : {});
        } catch (err) {
          // migrate.stranded: never "up to date" while drizzle would never apply some of this build's migrations; 69 as for pending ones
          if (err instanceof StrandedMigrationsError) throw new CliError(err.message, EXIT.unavailable);
          throw migrateFailure(err, storeWhere(config));
        }
      }, { migrate: false, create: true }); // `migrate` sets up a database where there is none yet
      if (opts.json) printJson({ schema: report.schema, applied: report.applied.length, migrations: report.applied });
      else if (report.applied.length === 0) process.stdout.write(`schema ${report.schema}: up to date (${report.known} migrations, none pending)\n`);
      else process.stdout.write(`schema ${report.schema}: applied ${report.applied.length} of ${report.known} migrations: ${report.applied.join(', ')}\n`);
    });
}

/**
 * A start failure as the fatal line carries it: the configuration's or the system's refusal (ENOTDIR, EACCES,
 * EADDRINUSE, ECONNREFUSED, …) by its message and code, since a stack trace adds nothing to a path or a port;
 * anything else with its stack, which a bug report needs. The code is the innermost one (ECONNREFUSED, not the
 * wrapper's EDEPENDENCY that names the dependency): what alert rules tell apart.
 */
function startFailure(err: unknown, configProblem: boolean): Record<string, unknown> {
  let code: unknown;
  for (let e: unknown = err, depth = 0; e instanceof Error && depth < 5; e = e.cause, depth++) {
    const own = (e as NodeJS.ErrnoException).code;
    if (typeof own === 'string') code = own;
  }
  if (!configProblem && typeof code !== 'string') return { err };
  return { error: (err as Error).message, ...(typeof code === 'string' ? { code } : {}) };
}

/** The stderr copy of an error on one line: a cause that spans several (initdb's output) would be several journal entries. */
function oneLine(text: string): string {
  return text.replace(/\s*[\r\n]+\s*/g, ' | ').trim();
}
