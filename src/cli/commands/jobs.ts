import { printableLines } from '../../util/printable.ts';
import type { Command } from 'commander';
import type { Config } from '../../config/schema.ts';
import type { Database } from '../../store/db.ts';
import type { JobRow } from '../../store/schema.ts';
import { configFor } from '../config-option.ts';
import { CliError, EXIT } from '../errors.ts';
import { noteIfCut, parseLimit, refuseEmptyText } from '../option-values.ts';
import { printJson, printTable, warn } from '../output.ts';
import { actorName, withStore } from '../store-session.ts';
import { onStopSignals, signalExitCode } from '../stop-signals.ts';
import { changeLine, deliveryLine, deliveryTarget, grantLine, jobHashes, jobLine, jobModel, modelLine, policiesLine } from '../job-display.ts';
import { checkJobShape, settingsKeptFromJob } from './jobs-file.ts';
import { joinedProblems, JobProblemsError, locate, problemsDocument, readStructured, type JobSources } from '../job-file-problems.ts';
import { liveNamesakes, namesakeText, warnBeforeCreate, warnDefinition, warnOverrides, warnToolsNotOffered } from '../job-warnings.ts';
import { redact, redactText } from '../../util/redact.ts';
import { canonicalTimeZone } from '../../jobs/time-zone-name.ts';
import { daemonSeen } from '../daemon-presence.ts';

interface DefinitionFlags {
  file?: string;
  name?: string;
  schedule?: string;
  timezone?: string;
  steps?: string;
  prompt?: string;
  model?: string;
  tools?: string;
  json?: boolean;
  as?: string;
  yes?: boolean;
}

const configOf = (cmd: Command): Config => configFor(cmd).config;

/**
 * A job as shown, in a table or as JSON: the definition is stored whole, for its runs, but shown redacted
 * as `approvals show` shows the call that made it (I11); a prompt quoting a key is not printed with it.
 */
export function shownJob<T extends Pick<JobRow, 'name' | 'payload' | 'pause_note'>>(job: T): T {
  return { ...job, name: redactText(job.name), payload: redact(job.payload), pause_note: job.pause_note === null ? null : redactText(job.pause_note) };
}

/** The cronjob tool's arguments from flags or a job file (jobs/*.yaml). */
export function cronjobArgs(action: 'create' | 'update', flags: DefinitionFlags, id?: string): Record<string, unknown> {
  // scripts reach for --yes; it must say why there is none rather than look like an approval
  if (flags.yes) throw new CliError(`jobs ${action}: --yes cannot approve this: a job is created or changed by the cronjob tool, which is DANGEROUS and needs a person's answer (a flag is not one, I3); answer the prompt, or run it without a terminal and approve with  echo-agent approvals approve ID`);
  refuseEmptyText(flags, ['file', 'name', 'schedule', 'timezone', 'steps', 'prompt', 'model']);
  const fromFile = flags.file !== undefined ? readStructured(flags.file, 'job file') as Record<string, unknown> | null : {};
  if (!fromFile || typeof fromFile !== 'object' || Array.isArray(fromFile)) throw new CliError(`job file ${flags.file}: expected a mapping of job fields`, EXIT.dataErr);
  const { name, schedule, timezone, payload, ...options } = fromFile as Record<string, unknown>;
  let steps: unknown;
  if (flags.steps !== undefined) {
    const parsed = readStructured(flags.steps, 'steps file');
    steps = Array.isArray(parsed) ? parsed : (parsed as { steps?: unknown } | null)?.steps;
    if (!Array.isArray(steps)) throw new CliError(`steps file ${flags.steps}: expected a list of {tool, args}`, EXIT.dataErr);
  }
  if (flags.steps && flags.prompt) throw new CliError('give --steps or --prompt, not both');
  const fileAgent = payload !== null && typeof payload === 'object' && (payload as { kind?: unknown }).kind === 'agent' ? payload as Record<string, unknown> : null;
  if (flags.model !== undefined && (steps || (action === 'create' && !flags.prompt && !fileAgent))) throw new CliError('--model: is for an agent payload; give it with --prompt');
  // the file's steps payload would be dropped for a model-only agent payload
  if (flags.model !== undefined && !flags.prompt && payload !== undefined && !fileAgent) throw new CliError(`--model: is for an agent payload, and job file ${flags.file} has another kind; give --prompt too, or change the file`);
  const model = flags.model ? { model: flags.model } : {};
  // --model alone: the file's agent payload on create, the stored one on update (merged with it)
  const flagPayload = steps ? { kind: 'steps', steps } : flags.prompt ? { kind: 'agent', prompt: flags.prompt, ...model }
    : flags.model ? { ...(fileAgent ?? { kind: 'agent' }), ...model } : undefined;
  if (flags.tools !== undefined) {
    options.tools = flags.tools.split(',').map((t) => t.trim()).filter(Boolean);
    // an empty list would mean "the default set", the opposite of what an empty --tools looks like
    if ((options.tools as string[]).length === 0) throw new CliError('--tools: names no tool; leave it out for the default set');
  }
  const args: Record<string, unknown> = {
    action, ...(id ? { id } : {}),
    // a zone in another case is stored as the runtime names it: shown so in the request, as the job will have it
    name: flags.name ?? name, schedule: flags.schedule ?? schedule, timezone: canonicalTimeZone(flags.timezone ?? timezone), payload: flagPayload ?? payload,
    ...(Object.keys(options).length > 0 ? { options } : {}),
  };
  for (const k of Object.keys(args)) if (args[k] === undefined) delete args[k];
  if (action === 'create') {
    for (const k of ['name', 'schedule', 'payload']) {
      const flag = `--${k === 'payload' ? 'steps or --prompt' : k}`;
      // with a file, the file is what lacks it: a bad job file (65), not a bad command line
      if (args[k] === undefined && flags.file !== undefined) throw new CliError(`job file ${flags.file}: ${k} is missing (put it in the file, or give ${flag})`, EXIT.dataErr);
      if (args[k] === undefined) throw new CliError(`jobs create: ${k} is missing (give ${flag} or put it in --file)`);
    }
  } else if (Object.keys(args).every((k) => k === 'action' || k === 'id')) {
    if (flags.file !== undefined) throw new CliError(`job file ${flags.file}: names no field to change`, EXIT.dataErr);
    throw new CliError('jobs update: names no field to change; give --name, --schedule, --timezone, --steps, --prompt, --model, --tools or --file');
  }
  return args;
}

type ToolRegistry = ReturnType<typeof import('../../daemon/daemon-tools.ts').builtinTools>;

const toolsOf = async (config: Config, database: Database): Promise<ToolRegistry> => (await import('../../daemon/daemon-tools.ts')).builtinTools(config, { db: database.db });

/**
 * Whether the gate would let the call be asked at all: the cronjob tool's own checks, as the gate runs them.
 * Warnings about what bites later are for a job that can be created; a refused one gets only its problems.
 */
async function passesToolChecks(tools: ToolRegistry, args: Record<string, unknown>): Promise<boolean> {
  const { validateParams } = await import('../../tools/validate.ts');
  const tool = tools.get('cronjob');
  return !tool || (validateParams(tool.parameters, args) ?? await tool.precheck?.(args) ?? null) === null;
}

/** Runs a cronjob call in an attended cli context through the gate; its human step asks. */
async function attendedCronjob(config: Config, database: Database, tools: ToolRegistry, args: Record<string, unknown>, flags: Pick<DefinitionFlags, 'as' | 'json'>) {
  const [{ createGuard }, { attendedCall }, { buildContext }, { cliApprover }] = await Promise.all([
    import('../../guard/index.ts'), import('../../session/attended-call.ts'), import('../../tools/context.ts'), import('../attended-deps.ts'),
  ]);
  const { systemGuardDeps } = await import('../../util/system-ports.ts');
  const actor = await actorName(flags.as);
  // with --json, a request that waits is announced as a JSON line too: a script learns its id without parsing prose
  const approver = await cliApprover(database, config, tools, actor, { json: Boolean(flags.json) });
  const ctx = buildContext({ channel: 'cli', user_id: actor, session_key: `cli:${actor}`, unattended: false });
  // Ctrl-C, SIGTERM or a closed terminal (SIGHUP: an ssh session that dropped) while the request waits:
  // it is withdrawn and the refusal recorded, not left answerable with nobody waiting
  const stops = onStopSignals((sig) => `\n${sig}: stopping; a request still waiting is withdrawn…\n`);
  try {
    const outcome = await attendedCall({ db: database.db, config, tools, guard: createGuard(config, systemGuardDeps()), approver }, { tool: 'cronjob', args }, ctx, 0, { signal: stops.controller.signal });
    return { ...outcome, interrupted: stops.interrupted() };
  } finally {
    stops.release();
  }
}

/**
 * With --json, a create or update refused before it reaches the gate (a bad file, a bad flag) prints a problems
 * document on stdout, as `config validate --json` does; the text still goes to stderr and the exit code stays.
 */
async function withJsonProblems(flags: DefinitionFlags, work: () => Promise<void>): Promise<void> {
  try {
    await work();
  } catch (err) {
    if (flags.json && err instanceof CliError) {
      printJson(err instanceof JobProblemsError ? problemsDocument(err.file, err.problems) : problemsDocument(flags.file ?? null, [{ text: err.message }]));
    }
    throw err;
  }
}

/** What a job's problems are reported against: the job file, or the command when flags gave it all; and where its fields came from. */
interface JobGiven { readonly subject: string; readonly sources: JobSources; readonly file: string | null }

/**
 * `--json`: the outcome, and beside it `grant`, the job's live grant as an object (id, approver, channel, approval,
 * tools), as `runs show --json` and `grants show --json` give one. `result.output.grant`, the grant policy's sentence,
 * stays where scripts read it: it is the cronjob tool's own output, the same a model is given.
 */
async function reportCall(verb: 'created' | 'updated', outcome: Awaited<ReturnType<typeof attendedCronjob>> & { grant: unknown }, json: boolean | undefined, given: JobGiven): Promise<void> {
  const { reasonForPeople } = await import('../../approval/decision.ts');
  // a timed-out or refused request may well be asked again by a person: drop the advice meant for a model
  const decision = outcome.decision && { ...outcome.decision, reason: reasonForPeople(outcome.decision.reason) };
  const result = outcome.result.error === undefined ? outcome.result : { ...outcome.result, error: reasonForPeople(outcome.result.error) };
  // the job's problems in its files' words and lines, one a line, not as the cronjob call it became
  const problems = !result.success && result.errorKind === 'validation'
    ? locate(joinedProblems((result.error ?? '').replace(/^invalid arguments for cronjob: /, '')), given.sources) : null;
  if (json) printJson({ ok: result.success, ...outcome, decision, result, ...(problems ? problemsDocument(given.file, problems) : {}) });
  else if (result.success) {
    const { GRANT_POLICY_RULES } = await import('../../jobs/grant-policy.ts');
    process.stdout.write(`${changeLine(verb, result.output, decision, GRANT_POLICY_RULES)}\n`);
  }
  if (!result.success) {
    let said = result.error ?? '';
    if (problems) said = new JobProblemsError(given.file, problems, given.subject).message;
    else {
      // who said no, and that nothing happened: a refusal reads otherwise like an error halfway through
      const by = outcome.decision?.rule === 'approval.human.deny' && outcome.decision.approver ? ` (refused by ${outcome.decision.approver})` : '';
      said = `${said.replace(/\.$/, '')}${by}; nothing was ${verb === 'created' ? 'created' : 'changed'}`;
    }
    process.stderr.write(`echo-agent: ${said}\n`);
    process.exitCode = problems ? EXIT.dataErr : EXIT.failure;
  }
  // the shell's convention for a command ended by a signal, when the signal is what ended it (not after an approval)
  if (outcome.interrupted && outcome.decision?.rule === 'approval.human.cancelled') process.exitCode = signalExitCode(outcome.interrupted);
}

/** What the job's problems are said of (`job file F`, `jobs create`), and the files its fields were read from. */
function jobGiven(flags: DefinitionFlags, command: string): JobGiven {
  const fromFlags = flaggedFields(flags);
  const sources: JobSources = {
    ...(flags.file !== undefined ? { job: { path: flags.file, fromFlags } } : {}), ...(flags.steps !== undefined ? { steps: flags.steps } : {}),
  };
  if (flags.file === undefined) return { subject: command, sources, file: null };
  return { subject: `job file ${flags.file}${fromFlags.size > 0 ? ' (with the options given beside it)' : ''}`, sources, file: flags.file };
}

/** The definition fields a flag gave, in place of the job file's. */
function flaggedFields(flags: DefinitionFlags): Set<string> {
  const given: [string, unknown][] = [['name', flags.name], ['schedule', flags.schedule], ['timezone', flags.timezone], ['tools', flags.tools],
    ['payload', flags.steps ?? flags.prompt ?? flags.model]];
  return new Set(given.filter(([, v]) => v !== undefined).map(([k]) => k));
}

/** The job's grant after a create or update (null when none is live or nothing was done). */
async function grantAfter(database: Database, outcome: Awaited<ReturnType<typeof attendedCronjob>>): Promise<unknown> {
  const jobId = (outcome.result.output as { job?: { id?: unknown } } | undefined)?.job?.id;
  if (!outcome.result.success || typeof jobId !== 'string') return null;
  return (await import('../jobs-authorization.ts')).liveGrantShown(database.db, jobId);
}

export function registerJobsCommands(program: Command): void {
  const jobs = program.command('jobs').description('scheduled jobs: create and change them (through the gate), list, pause, run');
  const definitionOptions = (c: Command) => c
    .option('--file <file>', 'job definition (YAML), e.g. jobs/nightly-report.yaml; a flag beside it replaces the field the file gives (with a warning)')
    .option('--name <name>', 'job name')
    .option('--schedule <schedule>', 'cron (5/6 fields), "every 5m" or "at 2026-12-24T18:00:00Z"')
    .option('--timezone <tz>', 'IANA time zone for cron schedules')
    .option('--steps <file>', 'YAML/JSON list of {tool, args}')
    .option('--prompt <text>', 'agent prompt (agent payload)')
    .option('--model <model>', 'model for the agent payload')
    .option('--tools <list>', 'comma-separated tool subset the runs may use')
    .option('--as <user>', 'who you are (default: the OS account)')
    .option('--yes', 'refused, with the reason: only a person\'s answer approves a job')
    .option('--json', 'print JSON: the outcome; a refused job as {ok: false, file, problems}; a request that waits as a JSON line {"approval_pending": …} on stderr');

  definitionOptions(jobs.command('create').description('create a job; a human approval of this call makes it cron_authorized'))
    .action(async (flags: DefinitionFlags, cmd: Command) => withJsonProblems(flags, async () => {
      const config = configOf(cmd);
      const args = cronjobArgs('create', flags);
      const given = jobGiven(flags, 'jobs create');
      await checkJobShape(given.subject, args, given.sources);
      await reportCall('created', await withStore(config, async (db) => {
        const tools = await toolsOf(config, db);
        // a job that is refused gets its problems only, not warnings about runs it will never have
        if (await passesToolChecks(tools, args)) {
          warnOverrides(flags.file, flaggedFields(flags), given.subject);
          await warnDefinition(config, db, args, null, given.subject, given.sources);
          await warnToolsNotOffered(config, db, args, null);
          await warnBeforeCreate(config, db, args);
        }
        const outcome = await attendedCronjob(config, db, tools, args, flags);
        return { ...outcome, grant: flags.json ? await grantAfter(db, outcome) : null };
      }), flags.json, given);
    }));

  definitionOptions(jobs.command('update').argument('<job>', 'job id or name').description('change a job through the gate, as jobs create: an approved change of the definition gets a grant of its own; a refused or unanswered one changes nothing'))
    .action(async (ref: string, flags: DefinitionFlags, cmd: Command) => withJsonProblems(flags, async () => {
      const config = configOf(cmd);
      const args = cronjobArgs('update', flags, ref);
      const given = jobGiven(flags, `jobs update ${ref}`);
      const { jobByRef } = await import('../job-ref.ts');
      await reportCall('updated', await withStore(config, async (db) => {
        const job = await jobByRef(db.db, ref);
        // a model alone changes an agent payload; on a steps job it would replace the steps with no prompt
        const payload = args.payload as { kind?: string; prompt?: string } | undefined;
        if (flags.model !== undefined && payload?.kind === 'agent' && !payload.prompt && job.payload.kind !== 'agent') {
          throw new CliError(`--model is for agent jobs; ${ref}${ref === job.id ? '' : ` (${job.id})`} is a ${job.payload.kind} job`);
        }
        await checkJobShape(given.subject, args, given.sources, job);
        const tools = await toolsOf(config, db);
        const call = { ...args, id: job.id };
        if (await passesToolChecks(tools, call)) {
          const kept = flags.file !== undefined ? await settingsKeptFromJob(config, args, job) : [];
          if (kept.length > 0) process.stderr.write(redactText(`echo-agent: note: job file ${flags.file} leaves out settings the job has, and the update keeps them: ${kept.join(', ')}; write them in the file to change them\n`));
          warnOverrides(flags.file, flaggedFields(flags), given.subject);
          await warnDefinition(config, db, call, job, given.subject, given.sources);
          await warnToolsNotOffered(config, db, call, job);
          const live = args.name === undefined ? [] : await liveNamesakes(db, args.name, job.id);
          if (live.length > 0) process.stderr.write(`echo-agent: warning: ${namesakeText(String(args.name), live)}\n`);
        }
        const outcome = await attendedCronjob(config, db, tools, call, flags);
        return { ...outcome, grant: flags.json ? await grantAfter(db, outcome) : null };
      }), flags.json, given);
    }));

  jobs.command('list').description('jobs and their next fire time').option('--all', 'include removed jobs').option('--json', 'print JSON')
    .action(async (opts: { all?: boolean; json?: boolean }, cmd: Command) => {
      const [{ listJobs }, { listedAuthorizations, authorisedCell }, { pausesOf, pauseFields }] = await Promise.all([import('../../store/jobs.ts'), import('../jobs-authorization.ts'), import('../job-pause.ts')]);
      const { jobs: listed, auth, pauses } = await withStore(configOf(cmd), async (db) => {
        const jobs = await listJobs(db.db, { includeRemoved: Boolean(opts.all) });
        // whether each job's runs hold cron_authorized tonight, as they would judge it: a revoked or outdated grant shows here
        return { jobs, auth: await listedAuthorizations(db.db, jobs), pauses: await pausesOf(db.db, jobs) };
      });
      const rows = listed.map(shownJob);
      // added beside the row's own fields: the authorisation as jobs show --json gives it, the grant ended if none is live
      // (last_grant, as jobs show and grants show name it; grant_ended, its older name, stays for scripts), who paused it
      if (opts.json) printJson(rows.map((j) => ({ ...j, ...jobHashes(j), ...pauseFields(j, pauses), authorization: auth.get(j.id)?.authorization ?? null, last_grant: auth.get(j.id)?.last_grant ?? null, grant_ended: auth.get(j.id)?.grant_ended ?? null })));
      else printTable(['ID', 'NAME', 'SCHEDULE', 'TZ', 'STATE', 'NEXT FIRE', 'AUTHORISED'], rows.map((j) => [...jobLine(j, pauses.get(j.id)), authorisedCell(auth.get(j.id))]));
    });

  jobs.command('show').argument('<job>', 'job id or name').description('a job, its authorisation and its recent runs').option('--json', 'print JSON')
    .action(async (ref: string, opts: { json?: boolean }, cmd: Command) => {
      const [{ jobByRef }, { jobAuthorization }, { listRuns }, { liveGrant }, { errorText }, { lastEndedGrant, grantWithRequest }, { pausesOf, pauseFields }] = await Promise.all([
        import('../job-ref.ts'), import('../jobs-authorization.ts'), import('../../store/runs.ts'), import('../../store/grants.ts'), import('../run-table.ts'),
        import('../grant-report.ts'), import('../job-pause.ts'),
      ]);
      const config = configOf(cmd);
      const found = await withStore(config, async (db) => {
        const job = await jobByRef(db.db, ref, { includeRemoved: true });
        const grant = job.origin === 'cronjob' ? await liveGrant(db.db, job.id) : null;
        return {
          // the grant with who asked and answered, as grants show gives it (self_approved, same_os_account)
          job: { ...shownJob(job), ...jobHashes(job), ...pauseFields(job, await pausesOf(db.db, [job])) },
          authorization: await jobAuthorization(db.db, job, { liveGrant: grant }), grant: await grantWithRequest(db.db, grant),
          // added: who ended the grant a job without one had, and the model an agent job's runs use (outside the grant where from config)
          last_grant: grant ? null : await lastEndedGrant(db.db, job), model: jobModel(job.payload, config.model),
          runs: await listRuns(db.db, { job_id: job.id, limit: 10 }),
        };
      });
      if (opts.json) printJson(found);
      else {
        const { job } = found;
        printTable(['ID', 'NAME', 'SCHEDULE', 'TZ', 'STATE', 'NEXT FIRE'], [jobLine(job, job.paused_at ? { by: job.paused_by, at: job.paused_at } : undefined)]);
        process.stdout.write(printableLines([
          `payload: ${JSON.stringify(job.payload)}`, ...(found.model ? [modelLine(found.model)] : []), `tools: ${job.tools.join(', ') || '(default set)'}`,
          deliveryLine(deliveryTarget(job.delivery), found.authorization.cron_authorized), `policies: ${policiesLine(job)}`,
          `authorisation: ${found.authorization.rule} — ${found.authorization.reason}`, grantLine(job, found.grant, found.last_grant),
        ]).join('\n') + '\n\nrecent runs:\n');
        printTable(['RUN', 'NOMINAL', 'TRIGGER', 'STATE', 'DENIALS', 'ERROR'], found.runs.map((r) => [r.id, r.nominal_at.toISOString(), r.trigger, r.state, r.denials, errorText(r)]));
      }
    });

  // each sub-command takes only the options it records, so none is silently dropped
  const simple = (name: string, description: string, own: readonly [flags: string, about: string][], run: (db: Database, id: string, actor: string, opts: { note?: string; why?: string }) => Promise<unknown>) =>
    own.reduce((c, [flags, about]) => c.option(flags, about), jobs.command(name).argument('<job>', 'job id or name').description(description))
      .option('--as <user>', 'who you are (default: the OS account)').option('--json', 'print JSON')
      .action(async (ref: string, opts: { note?: string; why?: string; as?: string; json?: boolean }, cmd: Command) => {
        refuseEmptyText(opts, ['note', 'why']);
        const actor = await actorName(opts.as);
        const { jobByRef } = await import('../job-ref.ts');
        let id = ref;
        const result = await withStore(configOf(cmd), async (db) => run(db, (id = (await jobByRef(db.db, ref)).id), actor, opts));
        if (!result) throw new CliError(`no job with id ${id}`, EXIT.failure);
        // pause, resume and remove answer with the job row: shown as jobs show shows it
        if (opts.json) printJson(shownJob(result as JobRow));
        else {
          const { unchanged, warning, said } = result as { unchanged?: string; warning?: string; said?: string };
          process.stdout.write(`${name}: ${id}${id === ref ? '' : ` (${ref})`} ${said ?? (unchanged ? `nothing to do (${unchanged})` : 'ok')}\n`);
          if (warning) process.stderr.write(`echo-agent: jobs ${name}: ${warning}\n`);
        }
      });
  simple('pause', 'stop running a job: its instants are recorded as skipped until resumed (its grant stays)', [['--note <text>', 'why it is paused (shown in jobs list; a second pause without one keeps it)']], async (db, id, actor, o) => {
    const [{ pauseJob }, { instantsDueAtPause, storedSchedule }, { pausesOf, pauseText }] = await Promise.all([import('../../store/jobs.ts'), import('../../jobs/next-fire.ts'), import('../job-pause.ts')]);
    const r = await pauseJob(db.db, id, { actor, ...(o.note ? { note: o.note } : {}) }, instantsDueAtPause);
    // already paused: by whom and since when, from the record of the pause
    const said = r && r.was_paused ? pauseText({ ...r, note: r.job.pause_note && redactText(r.job.pause_note) }, (await pausesOf(db.db, [r.job])).get(id)) : undefined;
    // a one-shot's only instant does not come again after a resume
    const oneShot = r && r.job.next_fire_at && storedSchedule(r.job)?.kind === 'at'
      ? { warning: `this one-shot job's instant (${r.job.next_fire_at.toISOString()}) does not run if it passes while the job is paused` } : {};
    return r && { ...r.job, ...oneShot, ...(said ? { said } : {}), ...(r.changed ? {} : { unchanged: `already paused${r.job.pause_note ? `: ${r.job.pause_note}` : ''}` }) };
  });
  simple('resume', 'fire a paused job again from its next instant (instants missed while paused do not run)', [], async (db, id, actor) => {
    const [{ resumeJob }, { instantsMissedWhilePaused }] = await Promise.all([import('../../store/jobs.ts'), import('../../jobs/next-fire.ts')]);
    const r = await resumeJob(db.db, id, { actor }, instantsMissedWhilePaused);
    return r && { ...r.job, ...(r.changed ? {} : { unchanged: 'not paused' }) };
  });
  simple('remove', 'remove a job (history stays; its grant ends)', [['--why <text>', 'reason (recorded in the audit log)']], async (db, id, actor, o) => {
    const [{ removeJob }, { instantsDroppedByRemoval }] = await Promise.all([import('../../store/jobs.ts'), import('../../jobs/next-fire.ts')]);
    return removeJob(db.db, id, { actor, why: o.why ?? 'removed from the command line' }, instantsDroppedByRemoval);
  });
  jobs.command('run').argument('<job>', 'job id or name').description('run a job now (trigger manual), through the same queue the daemon works')
    .option('--as <user>', 'who you are (default: the OS account)').option('--json', 'print JSON')
    .action(async (ref: string, opts: { as?: string; json?: boolean }, cmd: Command) => {
      const config = configOf(cmd);
      const actor = await actorName(opts.as);
      const [{ manualRun, RunRefusedError }, { configuredQueueBackend }, { openRunQueue, runQueueName }, { jobByRef }, { deploymentOf, otherDaemons }, { queueHandOff, closeQueueWithin }] = await Promise.all([
        import('../../jobs/service.ts'), import('../../daemon/daemon.ts'), import('../../queue/run-queue.ts'), import('../job-ref.ts'), import('../../store/db.ts'), import('../queue-handoff.ts'),
      ]);
      let id = ref;
      let handOff: ReturnType<typeof queueHandOff> | undefined;
      const run = await withStore(config, async (db, url) => {
        const job = await jobByRef(db.db, ref);
        id = job.id;
        // the run commits first: a queue that does not answer leaves it to a daemon's reconciler, said so (exit 0, see queue-handoff.ts)
        const backend = configuredQueueBackend(config, url), hand = (handOff = queueHandOff(backend));
        const queue = openRunQueue(backend, config.queue.prefix, { name: runQueueName(await deploymentOf(db.db)), onError: hand.heard });
        try {
          const queued = await manualRun({ db: db.db, enqueue: (runId) => hand.enqueue(queue, runId) }, id, actor);
          if (queued && hand.missed()) warn(hand.warning(queued.id)!);
          // queued all the same (its refusals are worth seeing), but said now rather than found out from the run
          const unauthorised = queued ? await (await import('../jobs-authorization.ts')).notAuthorisedWarning(db.db, job) : null;
          if (unauthorised) warn(unauthorised);
          // "queued" alone reads as "running soon": with no daemon connected, nothing takes it until one starts
          if (queued && !(await daemonSeen(db.db, queued.id, otherDaemons))) {
            warn(`no daemon serving this database and schema is connected now: the run waits in the ${hand.missed() ? 'database' : 'queue'} until one starts (npm start, or the service)`);
          }
          return queued;
        } catch (err) {
          if (err instanceof RunRefusedError) throw new CliError(`jobs run ${id}: not queued, ${err.message}`, EXIT.failure);
          throw err;
        } finally {
          await closeQueueWithin(queue);
        }
      });
      if (!run) throw new CliError(`no job with id ${id}`, EXIT.failure);
      if (opts.json) printJson(run);
      else process.stdout.write(`run ${run.id} of ${id} queued${handOff?.missed() ? ' (in the database only: the queue did not answer)' : ''}\n`);
    });

  jobs.command('runs').argument('<job>', 'job id or name').description('runs of a job, newest first').option('--limit <n>', 'how many', '20').option('--json', 'print JSON')
    .action(async (ref: string, opts: { limit: string; json?: boolean }, cmd: Command) => {
      const limit = parseLimit('--limit', opts.limit);
      const [{ listRuns }, { jobByRef }, { runsShown, printRuns, jobNames, runsJson }] = await Promise.all([import('../../store/runs.ts'), import('../job-ref.ts'), import('../run-table.ts')]);
      const { fetched, shown, names } = await withStore(configOf(cmd), async (db) => {
        // one more than shown: exactly `limit` runs is no cut
        const fetched = await listRuns(db.db, { job_id: (await jobByRef(db.db, ref, { includeRemoved: true })).id, limit: limit + 1 });
        return { fetched, shown: await runsShown(db.db, fetched), names: await jobNames(db.db, fetched) };
      });
      const rows = noteIfCut(fetched, limit, 'newest');
      if (opts.json) printJson(runsJson(rows, names, shown));
      else printRuns(rows, shown);
    });
}
