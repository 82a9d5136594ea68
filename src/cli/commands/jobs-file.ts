import type { Config } from '../../config/schema.ts';
import type { JobRow } from '../../store/schema.ts';
import { JobProblemsError, locate, type JobSources } from '../job-file-problems.ts';

/**
 * Checks a job's fields, from a job file, flags or both, before anyone is asked to approve it, and names each
 * problem in the file's own words and lines (`line 9: timeout: is not a field of a job (did you mean
 * timeout_seconds?)`), not in the cronjob tool's (`options.timeout: is not a known parameter`).
 * `subject` names what was given (`job file jobs/x.yaml`, `jobs create`).
 */
export async function checkJobShape(subject: string, args: Record<string, unknown>, sources: JobSources, stored: JobRow | null = null): Promise<void> {
  const { definitionFields, definitionShapeIssues } = await import('../../jobs/service.ts');
  const issues = definitionShapeIssues(definitionFields(args), stored);
  if (issues.length > 0) throw new JobProblemsError(sources.job?.path ?? null, locate(issues, sources), subject);
}

/**
 * The tools a job names that its runs will not be offered under this configuration (a tool not ready,
 * removed by tools.deny, a profile or the network policy), each with why. A grant approved now covers
 * only the tools offered now, so such a tool stays outside it even once the configuration offers it.
 */
export async function namedToolsNotOffered(config: Config, db: import('../../store/db.ts').Executor, args: Record<string, unknown>, stored: JobRow | null): Promise<string[]> {
  if (args.action !== 'create' && args.action !== 'update') return [];
  const [{ builtinTools }, { jobToolSet }, { definitionFields, definitionInputOf }] = await Promise.all([
    import('../../daemon/daemon-tools.ts'), import('../../session/job-preview.ts'), import('../../jobs/service.ts'),
  ]);
  const fields = definitionFields(args);
  const named = fields.tools ?? (stored ? definitionInputOf(stored).tools : undefined) ?? [];
  if (named.length === 0) return [];
  const registry = builtinTools(config, { db });
  // the whole named list, not only a steps job's step tools: each is what the approver is shown as covered or not
  const set = jobToolSet(config, registry, named);
  return set.removed.filter((t) => named.includes(t.name) && !t.rule.startsWith('security.') && t.rule !== 'context.allowed_tools').map((t) => {
    const tool = registry.get(t.name);
    const detail = t.rule === 'tools.not_ready' && tool && !tool.isReady() ? tool.readinessDetail()[1] : t.reason;
    return `${t.name} (${t.rule}: ${detail})`;
  });
}

/**
 * `jobs update --file`: the stored settings the file (and the flags) leave out, where they differ from the
 * defaults a new job from this file would get. An update keeps them, so a line deleted from the file does
 * not put its default back; said before the approval, not found out from a run.
 */
export async function settingsKeptFromJob(config: Config, args: Record<string, unknown>, stored: JobRow): Promise<string[]> {
  const { definitionFields, definitionInputOf } = await import('../../jobs/service.ts');
  const { jobDefinitionSchema } = await import('../../jobs/definition.ts');
  const given = definitionFields(args) as Record<string, unknown>;
  const before = definitionInputOf(stored) as Record<string, unknown>;
  const parsed = jobDefinitionSchema.safeParse({ name: 'x', schedule: 'x', payload: before.payload });
  if (!parsed.success) return [];
  const defaults: Record<string, unknown> = { ...parsed.data, catchup_window_seconds: config.daemon.catchup_window_seconds };
  const top = Object.keys(defaults)
    .filter((k) => !['name', 'schedule', 'payload'].includes(k) && !(k in given) && JSON.stringify(before[k]) !== JSON.stringify(defaults[k]))
    .map((k) => `${k}: ${JSON.stringify(before[k])}`);
  // a payload of the same kind is merged too: a `model:` deleted from the file stays the job's model
  const was = before.payload as Record<string, unknown>;
  const now = given.payload as Record<string, unknown> | undefined;
  const inPayload = now && typeof now === 'object' && now.kind === was.kind
    ? Object.keys(was).filter((k) => k !== 'kind' && !(k in now) && was[k] !== undefined).map((k) => `payload.${k}: ${JSON.stringify(was[k])}`)
    : [];
  return [...top, ...inPayload];
}
