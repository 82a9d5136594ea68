import { z } from 'zod';
import { CATALOG_BY_NAME } from '../tools/catalog-table.ts';
import { isTimeZone } from '../scheduler/zoned-time.ts';
import { nearestName } from '../util/nearest-name.ts';
import { nearestTimeZone } from '../util/time-zones.ts';
import { printable } from '../util/printable.ts';
import { meantName, TOOL_ALIASES } from './near-words.ts';

export class JobInputError extends Error {
  /** validation: the caller's input is wrong; business: the input is fine but a limit or state refuses it. */
  constructor(message: string, readonly kind: 'validation' | 'business' = 'validation') {
    super(message);
    this.name = 'JobInputError';
  }
}

/** A wrong type said with the value given (`expected text, got 5`), as config errors say it, not the schema library's wording. */
const typeError = (what: string) => (iss: { code?: string; input?: unknown }) =>
  iss.code !== 'invalid_type' ? undefined : iss.input === undefined ? 'is required' : `expected ${what}, got ${JSON.stringify(iss.input)}`;

/** A text that must be given: `must not be empty`, not the schema library's `at least 1 characters`. */
const text = () => z.string({ error: typeError('text') }).refine((s) => s.length > 0, 'must not be empty');

/** A wrong type said in the product's words, with what to write instead (`tools: list_dir`: a list). */
const wrongType = (what: string, hint: string) => (iss: { code?: string; input?: unknown }) => {
  const said = typeError(what)(iss);
  return said && iss.input !== undefined ? `${said}; ${hint}` : said;
};

/** What a name may not hold: control and format characters (a line break, a bidi override) forge or hide what is printed beside it. */
const UNPRINTABLE_IN_NAME = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Cs}\p{Default_Ignorable_Code_Point}]/u;

/**
 * A job's name, as people type it and read it in tables and approval prompts: not blank, nothing unprintable
 * (each would be shown escaped, and a job found by another name than the one written), not shaped like an id.
 */
const jobName = () => text().max(200)
  .refine((n) => n === '' || n.trim() !== '', 'must not be blank; give the job a name people can type')
  .refine((n) => !UNPRINTABLE_IN_NAME.test(n), {
    error: (iss) => `${printable(JSON.stringify(iss.input))} holds a control or formatting character (a line break, a tab, a bidi override, a zero-width character); give a name of printable characters`,
  })
  // a job is found by id or name: a name shaped like an id would hide the job behind it, or be unreachable
  .refine((n) => !/^job_[a-z2-7]{26}$/.test(n), 'is shaped like a job id (job_…); job commands take an id or a name, so pick another name');

/** A whole number (`expected a whole number, got "30s"`). */
const whole = () => z.number({ error: typeError('a whole number') }).int();

/** One of `values`: a wrong one is echoed back, with the choices and the one it most likely meant (as config errors are). */
const oneOf = <const T extends readonly [string, ...string[]]>(values: T) => z.enum(values, {
  error: (iss) => {
    const near = typeof iss.input === 'string' ? nearestName(iss.input, values) : undefined;
    return `expected one of ${values.join(', ')}, got ${JSON.stringify(iss.input)}${near ? ` (did you mean ${near}?)` : ''}`;
  },
});

/** An IANA zone, checked as the scheduler checks it, so a typo is named with its field (and line) before the schedule is. */
const timeZone = () => text().refine((tz) => tz === '' || isTimeZone(tz), {
  error: (iss) => {
    const near = typeof iss.input === 'string' ? nearestTimeZone(iss.input) : undefined;
    return `${JSON.stringify(iss.input)} is not an IANA time zone ${near ? `(did you mean ${near}?)` : '(e.g. UTC, Europe/Berlin)'}`;
  },
});

const step = z.strictObject({
  tool: text(),
  args: z.record(z.string(), z.unknown(), { error: wrongType('a mapping of the tool\'s arguments', 'write them as a mapping, e.g. args: { path: README.md }') }).default({}),
}, { error: wrongType('a step { tool, args }', 'write each step as - tool: read_file, with its args: below it') });

export const payloadSchema = z.discriminatedUnion('kind', [
  z.strictObject({
    kind: z.literal('steps'),
    steps: z.array(step, { error: wrongType('a list of steps', 'write each step as - tool: NAME (with args:) under steps:') })
      .refine((l) => l.length > 0, 'must have at least one step').max(200),
  }),
  z.strictObject({ kind: z.literal('agent'), prompt: text().max(100_000), model: text().optional() }),
], { error: 'expected kind "steps" (with steps) or "agent" (with prompt)' });

export type JobPayload = z.infer<typeof payloadSchema>;

const DAY = 86_400;
/** Whole seconds up to `max`: the runtime timers and the integer columns have limits, and a bigger value is a typo. */
const seconds = (max: number) => whole().min(0).max(max);

/**
 * A job as an agent builder writes it (jobs/*.yaml, `jobs create`, the cronjob
 * tool). Durations are whole seconds.
 */
export const jobDefinitionSchema = z.strictObject({
  name: jobName(),
  schedule: text(),
  timezone: timeZone().default('UTC'),
  payload: payloadSchema,
  tools: z.array(text(), { error: wrongType('a list of tool names', 'write tools: [list_dir], or leave tools out for the default set') }).default([]),
  // "none" is what the README's default column reads like: a delivery is a target, or nothing at all
  delivery: z.strictObject({ notify: text() }, { error: wrongType('{ notify: TARGET }', 'leave delivery out (or write delivery: null) for no delivery') }).nullable().default(null),
  overlap_policy: oneOf(['skip', 'buffer_one', 'allow', 'cancel_other']).default('skip'),
  misfire_policy: oneOf(['skip', 'run_once', 'run_all']).default('run_once'),
  catchup_window_seconds: seconds(30 * DAY).default(3600),
  jitter_seconds: seconds(DAY).default(0),
  // below Node's 24.8-day timer limit
  timeout_seconds: seconds(7 * DAY).min(1).default(600),
  max_retries: whole().min(0).max(20).default(0),
  retry_backoff_seconds: seconds(DAY).default(30),
  max_runs: whole().min(1).max(2_147_483_647).nullable().default(null),
});

export type JobDefinition = z.infer<typeof jobDefinitionSchema>;
export type JobDefinitionInput = z.input<typeof jobDefinitionSchema>;

/** The fields whose change needs a fresh human approval (I2). */
export const AUTHORISED_FIELDS = ['payload', 'tools', 'schedule', 'timezone', 'delivery'] as const;

/** What a definition is checked against besides its shape: this build's tools and the configured notify targets. */
export interface DefinitionChecks {
  readonly knownTool: (name: string) => boolean;
  readonly notifyTargets: readonly string[];
  /** `daemon.catchup_window_seconds`: the window of a definition that names none. */
  readonly defaultCatchupWindowSeconds?: number;
  /** What is wrong with a step of a known tool (its arguments, or a call no daemon run can make), or null. */
  readonly stepProblem?: (tool: string, args: Readonly<Record<string, unknown>>) => string | null;
  /** Why no daemon run can ever use this known tool, whatever its arguments (I4), or null. */
  readonly toolProblem?: (tool: string) => string | null;
  /** What the static guard finds in a step: a finding refuses the call in every unattended run, since nobody can approve it. */
  readonly stepFindings?: (tool: string, args: Readonly<Record<string, unknown>>) => Promise<string | null>;
}

/** Names in the definition that refer to nothing here, each with its path. */
export function definitionProblems(def: JobDefinition, checks: DefinitionChecks): string[] {
  const problems: string[] = [];
  def.tools.forEach((t, i) => {
    if (!checks.knownTool(t)) problems.push(`tools[${i}]: "${t}" is not a known tool${didYouMean(t, checks)}`);
    else {
      // listing it would show the approver a power the job never has
      const never = checks.toolProblem?.(t);
      if (never) problems.push(`tools[${i}] (${t}): ${never}`);
    }
  });
  if (def.payload.kind === 'steps') {
    def.payload.steps.forEach((s, i) => {
      if (!checks.knownTool(s.tool)) problems.push(`payload.steps[${i}].tool: "${s.tool}" is not a known tool${didYouMean(s.tool, checks)}`);
      // a non-empty tools list is the run's whole allowed set (empty means the default set): a step outside it is refused in every run
      else if (def.tools.length > 0 && !def.tools.includes(s.tool)) {
        problems.push(`payload.steps[${i}] (${s.tool}): not in the job's tools [${def.tools.join(', ')}], so every run would refuse this step (context.allowed_tools); add ${s.tool} to tools`);
      } else if (takesNotifyTarget(s.tool) && typeof s.args.target === 'string' && !checks.notifyTargets.includes(s.args.target)) {
        problems.push(`payload.steps[${i}].args.target: "${s.args.target}" is not a configured notify target (${knownTargets(checks)})`);
      } else {
        const problem = checks.stepProblem?.(s.tool, s.args);
        if (problem) problems.push(`payload.steps[${i}] (${s.tool}): ${problem}`);
      }
    });
  }
  const target = def.delivery?.notify;
  if (target !== undefined && !checks.notifyTargets.includes(target)) {
    problems.push(`delivery.notify: "${target}" is not a configured notify target (${knownTargets(checks)})`);
  }
  return problems;
}

/** The catalog's tool a typo most likely meant (`red_file`: read_file), as a hint. */
function didYouMean(name: string, checks: DefinitionChecks): string {
  const near = meantName(name, [...CATALOG_BY_NAME.keys()].filter((t) => checks.knownTool(t)), TOOL_ALIASES);
  return near ? ` (did you mean ${near}?)` : '';
}

/** Tools whose `target` names one of notify.targets: their catalog rows require it. */
const takesNotifyTarget = (tool: string): boolean => CATALOG_BY_NAME.get(tool)?.requires?.includes('notify.targets') === true;

const knownTargets = (checks: DefinitionChecks) => (checks.notifyTargets.length ? `known: ${checks.notifyTargets.join(', ')}` : 'notify.targets is empty');

/**
 * The steps the static guard flags, each with its path. Asked after definitionProblems, before anyone is
 * asked to approve: a hard block, a path outside the workspace or a flagged URL is refused in every run.
 */
export async function stepsEveryRunRefuses(def: JobDefinition, checks: DefinitionChecks): Promise<string[]> {
  if (def.payload.kind !== 'steps' || !checks.stepFindings) return [];
  const problems: string[] = [];
  for (const [i, s] of def.payload.steps.entries()) {
    const found = await checks.stepFindings(s.tool, s.args);
    if (found) problems.push(`payload.steps[${i}] (${s.tool}): ${found}`);
  }
  return problems;
}
