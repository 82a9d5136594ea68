import type { Command } from 'commander';
import { configFor } from '../config-option.ts';
import { CliError } from '../errors.ts';
import { printJson, printTable } from '../output.ts';
import { actorName, withStore } from '../store-session.ts';

/** Whole days, 1..36,500: digits only, so "7d" or "1e3" is refused rather than guessed at. */
function parseDays(flag: string, value: string): number {
  const n = /^\d+$/.test(value.trim()) ? Number(value) : NaN;
  if (!Number.isSafeInteger(n) || n < 1 || n > 36_500) throw new CliError(`${flag}: expected a whole number of days from 1 to 36500, got "${value}"`);
  return n;
}

export function registerRunsCommands(program: Command): void {
  const runs = program.command('runs').description('the run history of every job');
  runs.command('prune').description('delete ended runs older than the retention now (the daemon does it hourly); each job\'s newest run stays')
    .option('--older-than-days <n>', 'the cutoff in days (default: daemon.run_retention_days)')
    .option('--dry-run', 'count what would be deleted, change nothing')
    .option('--as <user>', 'who you are (default: the OS account)').option('--json', 'print JSON')
    .action(async (opts: { olderThanDays?: string; dryRun?: boolean; as?: string; json?: boolean }, cmd: Command) => {
      const { config } = configFor(cmd);
      const days = opts.olderThanDays !== undefined ? parseDays('--older-than-days', opts.olderThanDays) : config.daemon.run_retention_days;
      if (days === 0) throw new CliError('run retention is off (daemon.run_retention_days is 0); give --older-than-days N to prune anyway');
      const actor = await actorName(opts.as);
      const [{ pruneRuns }, { databaseNow }] = await Promise.all([import('../../store/retention.ts'), import('../../store/db.ts')]);
      const report = await withStore(config, async (db) => {
        const before = new Date((await databaseNow(db.db)).getTime() - days * 86_400_000);
        return pruneRuns(db.db, { before, actor, dryRun: Boolean(opts.dryRun) });
      });
      if (opts.json) { printJson(report); return; }
      const verb = report.dryRun ? 'would delete' : 'deleted';
      process.stdout.write(`${verb} ${report.runs} ended run(s) of ${report.jobs.length} job(s) with instants before ${report.before.toISOString()}, and ${report.effects} recorded tool effect(s)\n`);
      if (report.jobs.length > 0) printTable(['JOB', 'RUNS', 'OLDEST', 'NEWEST'], report.jobs.map((j) => [j.job_id, j.runs, j.oldest.toISOString(), j.newest.toISOString()]));
    });
}
