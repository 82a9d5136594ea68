import { resolve } from 'node:path';
import type { Config } from '../config/schema.ts';
import type { Database } from '../store/db.ts';
import type { JobRow } from '../store/schema.ts';
import { printable } from '../util/printable.ts';
import { redactText } from '../util/redact.ts';
import { namedToolsNotOffered } from './commands/jobs-file.ts';
import { locate, problemReport, readStructured, type JobSources } from './job-file-problems.ts';

/** One warning line, as the asking terminal prints it; a name or path written in the job is shown escaped. */
const say = (text: string) => process.stderr.write(`echo-agent: warning: ${printable(redactText(text))}\n`);

/** Says, before the approval is asked, which named tools the grant would leave out under this configuration. */
export async function warnToolsNotOffered(config: Config, database: Database, args: Record<string, unknown>, stored: JobRow | null): Promise<void> {
  const left = await namedToolsNotOffered(config, database.db, args, stored);
  if (left.length === 0) return;
  say(`the job names tools its runs are not offered under this configuration: ${left.join('; ')}. `
    + 'A grant approved now does not cover them, not even once the configuration offers them: fix the configuration first, or approve an update then');
}

/** The live jobs other than `self` that have a name already: commands given that name then ask for the id. */
export async function liveNamesakes(database: Pick<Database, 'db'>, name: unknown, self: string | null = null): Promise<JobRow[]> {
  if (typeof name !== 'string' || name === '') return [];
  const { jobsNamed } = await import('../store/jobs.ts');
  return (await jobsNamed(database.db, name)).filter((j) => j.removed_at === null && j.id !== self);
}

/** The duplicate-name warning, in the words both the asking terminal and `approvals show` use. */
export const namesakeText = (name: string, live: readonly JobRow[]): string =>
  `a live job is named ${JSON.stringify(name)} already (${live.map((j) => j.id).join(', ')}); commands given that name will ask for the id instead; choose another name, or update that job`;

/**
 * What bites only later, said before the approval is asked: a second live job of the same name (commands that take
 * a name then refuse it and ask for the id), and an agent job this configuration has no model for (every run fails).
 */
export async function warnBeforeCreate(config: Config, database: Database, args: Record<string, unknown>): Promise<void> {
  const { jobModelMissing } = await import('../session/job-preview.ts');
  const live = await liveNamesakes(database, args.name);
  if (live.length > 0) say(namesakeText(String(args.name), live));
  const payload = args.payload as { kind?: string; model?: string } | undefined;
  const missing = payload?.kind ? jobModelMissing(config, payload as Parameters<typeof jobModelMissing>[1]) : [];
  if (missing.length > 0) say(`this configuration has no ${missing.join(' or ')}: every run of this job fails ("agent turns need a model") until the daemon's config sets it`);
}

/**
 * What the job as it will be does that its writer most likely did not mean (a file step outside the workspace, a zone an
 * `every` ignores, jitter past the gap between instants, a cron that fires every second), each at its line.
 */
export async function warnDefinition(config: Config, database: Database, args: Record<string, unknown>, stored: JobRow | null, subject: string, sources: JobSources): Promise<void> {
  const [{ definitionAfter, definitionFields }, { definitionWarnings }, { databaseNow }] = await Promise.all([
    import('../jobs/service.ts'), import('../jobs/definition-warnings.ts'), import('../store/db.ts'),
  ]);
  const def = definitionAfter(definitionFields(args), stored);
  if (!def) return;
  const warnings = definitionWarnings(def, {
    workspace: resolve(config.tools.workspace), restrictToWorkspace: config.tools.restrict_to_workspace, now: await databaseNow(database.db),
    safeWriteRoot: config.tools.safe_write_root === '' ? '' : resolve(config.tools.workspace, config.tools.safe_write_root),
  });
  for (const w of locate(warnings, sources)) say(problemReport(subject, [w]));
}

/** The flag that gives each definition field in place of a job file's. */
const FLAG_OF: Readonly<Record<string, string>> = { name: '--name', schedule: '--schedule', timezone: '--timezone', tools: '--tools', payload: '--steps or --prompt' };

/**
 * A flag given beside a job file that also sets the field: the flag's value is used, the file's is not (flags override
 * the file, so one file serves as a template). Said, so a schedule in the file is not believed to be the job's.
 */
export function warnOverrides(file: string | undefined, fromFlags: ReadonlySet<string>, subject: string): void {
  if (file === undefined || fromFlags.size === 0) return;
  const fields = readStructured(file, 'job file') as Record<string, unknown>;
  const replaced = [...fromFlags].filter((k) => Object.hasOwn(FLAG_OF, k) && fields[k] !== undefined);
  const located = locate(replaced.map((k) => ({ path: [k], text: `${k}: replaced by ${FLAG_OF[k]}; the file's ${k} is not used` })), { job: { path: file, fromFlags: new Set() } });
  for (const w of located) say(problemReport(subject, [w]));
}
