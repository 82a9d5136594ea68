import type { Command } from 'commander';
import { configFor } from '../config-option.ts';
import { printJson } from '../output.ts';
import { withStore } from '../store-session.ts';

export function registerDaemonCommands(program: Command): void {
  program
    .command('daemon')
    .description('run the scheduler and workers: fires due jobs, runs them unattended, serves /healthz and /metrics')
    .action(async (_opts: unknown, cmd: Command) => {
      const { config, file, warnings } = configFor(cmd, { quietWarnings: true });
      const [{ createLogger }, { startDaemon }] = await Promise.all([import('../../log/logger.ts'), import('../../daemon/daemon.ts')]);
      const logger = createLogger(config.logging.level);
      logger.info({ config: file ?? '(built-in defaults)' }, 'configuration loaded');
      for (const w of warnings) logger.warn({ path: w.path }, `config: ${w.path}: ${w.message}`);
      const daemon = await startDaemon(config, { logger });
      await new Promise<void>((resolve) => {
        const stop = (signal: string) => {
          logger.info({ signal }, 'signal received');
          daemon.stop().then(resolve, (err: unknown) => {
            logger.error({ err }, 'shutdown failed');
            process.exitCode = 1;
            resolve();
          });
        };
        process.once('SIGTERM', () => stop('SIGTERM'));
        process.once('SIGINT', () => stop('SIGINT'));
      });
    });

  program
    .command('migrate')
    .description('apply the database migrations in drizzle/ (the daemon also does this at start)')
    .option('--json', 'print JSON')
    .action(async (opts: { json?: boolean }, cmd: Command) => {
      const { config } = configFor(cmd);
      const { migrate } = await import('../../store/migrate.ts');
      const result = await withStore(config, (db) => migrate(db.pool));
      if (opts.json) printJson(result);
      else process.stdout.write(`schema ${result.schema}: up to date\n`);
    });
}
