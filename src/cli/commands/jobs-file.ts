import { readFileSync } from 'node:fs';
import { isMap, isSeq, LineCounter, parseDocument, type Node } from 'yaml';
import type { Config } from '../../config/schema.ts';
import type { JobRow } from '../../store/schema.ts';
import { CliError, EXIT } from '../errors.ts';

/**
 * Checks a job file's fields before anyone is asked to approve it, and names each problem in the file's
 * own words and lines (`line 9: timeout: is not a field of a job (did you mean timeout_seconds?)`), not in
 * the cronjob tool's (`options.timeout: is not a known parameter`). `fromFlags`: fields a flag gave instead.
 */
export async function checkJobFile(file: string, args: Record<string, unknown>, fromFlags: ReadonlySet<string>, stored: JobRow | null = null): Promise<void> {
  const { definitionFields, definitionShapeIssues } = await import('../../jobs/service.ts');
  const issues = definitionShapeIssues(definitionFields(args), stored);
  if (issues.length === 0) return;
  throw new CliError(`${withLines(file, issues, fromFlags).join('; ')} (job file ${file})`, EXIT.dataErr);
}

/** Each problem with the line of the field it names in the file, unless a flag gave that field or the file lacks it. */
function withLines(file: string, problems: readonly { path: readonly PropertyKey[] | null; text: string }[], fromFlags: ReadonlySet<string>): string[] {
  const text = safeRead(file);
  return problems.map((p) => {
    const line = text !== null && p.path && !fromFlags.has(String(p.path[0])) ? lineOf(text, p.path) : undefined;
    return line === undefined ? p.text : `line ${line}: ${p.text}`;
  });
}

/**
 * The definition checks' problems (`schedule: …; payload.steps[1].tool: …`) with the line of the field each
 * names in the job file; a field a flag gave, or one the file does not hold, keeps the message as it is.
 */
export function withFileLines(file: string, problems: string, fromFlags: ReadonlySet<string>): string {
  return withLines(file, problems.split('; ').map((p) => ({ path: leadingPath(p), text: p })), fromFlags).join('; ');
}

/** A problem's leading field path, as the checks write it (`payload.steps[1].tool:`, `tools[0]:`, `payload.steps[2] (exec):`). */
const PATH_AT_START = /^([A-Za-z_]\w*(?:\.[A-Za-z_]\w*|\[\d+\])*)(?=:| \()/;

function leadingPath(problem: string): PropertyKey[] | null {
  const m = PATH_AT_START.exec(problem);
  if (!m) return null;
  return [...m[1]!.matchAll(/([A-Za-z_]\w*)|\[(\d+)\]/g)].map((x) => (x[2] !== undefined ? Number(x[2]) : x[1]!));
}

function safeRead(file: string): string | null {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return null;
  }
}

/** The 1-based line of a path in a YAML/JSON text: its key's when the last part is a key, else the nearest part the file has. */
export function lineOf(text: string, path: readonly PropertyKey[]): number | undefined {
  const counter = new LineCounter();
  const doc = parseDocument(text, { lineCounter: counter });
  for (let n = path.length; n > 0; n--) {
    const parentPath = path.slice(0, n - 1);
    const parent = parentPath.length === 0 ? doc.contents : doc.getIn(parentPath as unknown[], true);
    const last = path[n - 1];
    let at: Node | undefined;
    if (isMap(parent)) {
      const pair = parent.items.find((p) => ((p.key as { value?: unknown } | null)?.value ?? p.key) === last);
      at = (pair?.key ?? pair?.value) as Node | undefined;
    } else if (isSeq(parent) && typeof last === 'number') at = parent.items[last] as Node | undefined;
    if (at?.range) return counter.linePos(at.range[0]).line;
  }
  return undefined;
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
