import type { Command } from 'commander';
import { configFor } from '../config-option.ts';
import { CliError, EXIT } from '../errors.ts';
import { clip, printJson, printTable, warn } from '../output.ts';
import { noteIfCut, parseLimit, parseSince, parseWhole, refuseEmptyText, sinceOn } from '../option-values.ts';
import { nearestName } from '../../util/nearest-name.ts';
import { MAX_RUN_RETENTION_DAYS } from '../../config/schema.ts';
import { actorName, withStore } from '../store-session.ts';
import { processIdentity } from '../../util/process-identity.ts';
import { printable } from '../../util/printable.ts';
import { toolCallText } from '../../util/tool-call-text.ts';
import { redactText } from '../../util/redact.ts';
import { toolCell } from './audit.ts';
import { actorCell, authorities, detailOf } from '../authority.ts';
import { instantIn } from '../job-display.ts';
import { CHILD_ORIGINS, endedGrantOf, errorText } from '../run-table.ts';
import type { TranscriptMessage } from '../../store/catalog-schema.ts';
import type { AuditRow, GrantRow, RunRow, RunState } from '../../store/schema.ts';


/** `--state failed,denied`: run states, each checked. */
function parseStates(value: string, known: readonly RunState[]): RunState[] {
  const given = value.split(',').map((v) => v.trim());
  const bad = given.find((v) => !(known as readonly string[]).includes(v));
  if (bad !== undefined) {
    const near = nearestName(bad, known);
    throw new CliError(`--state: unknown run state ${JSON.stringify(bad)}${near ? ` (did you mean "${near}"?)` : ''}; states: ${known.join(', ')}`, EXIT.usage);
  }
  return given as RunState[];
}

const OUTPUT_SHOWN = 2_000;
const redactOrNull = (text: string | null): string | null => (text === null ? null : redactText(text));
const clipped = (text: string) => (text.length > OUTPUT_SHOWN ? `${text.slice(0, OUTPUT_SHOWN)}… (${text.length} characters; --json for all)` : text);

/** One message of a transcript on one line: who spoke, what they said, the tools asked for. */
function transcriptLine(m: TranscriptMessage): string {
  const who = m.role === 'tool' ? `[tool${m.name ? ` ${m.name}` : ''}]` : `[${m.role}]`;
  const calls = (m.tool_calls ?? []).map(toolCallText);
  const text = [m.content ?? '', ...(calls.length ? [`calls: ${calls.join(', ')}`] : [])].filter(Boolean).join(' | ');
  // what a model wrote reaches the terminal: no escape sequence or bidi override of its own (printable)
  return printable(`${who} ${clipped(text.replace(/\s*\n\s*/g, ' ⏎ '))}`);
}

/** The grant a run started with, who approved it, and whether it has ended since (revoked, superseded, cleared). */
function grantText(
  g: (GrantRow & { answered_from: { os_account: string; host: string } | null }) | null, id: string | null, started: AuditRow | undefined,
): string {
  if (!g && !id) return endedGrantText(started);
  if (!g) return `${id} (not in the database)`;
  // the job's grant, found not covering this run (its definition changed since, or the grant was not a human's)
  if (started?.data.cron_authorized === false) return `${g.id}, which did not authorise this run (${started.rule ?? '-'}: ${started.reason ?? '-'})`;
  const from = g.answered_from ? `, answered from OS account ${g.answered_from.os_account} on ${g.answered_from.host}` : '';
  const ended = g.revoked_at ? `; ended ${g.revoked_at.toISOString()} by ${g.revoked_by ?? '-'}: ${g.revoked_why ?? '-'}` : '; still live';
  return `${g.id}, approved by ${g.approver ?? '-'} on ${g.channel ?? '-'} at ${g.approved_at?.toISOString() ?? '-'} (approval ${g.approval_id ?? '-'}${from})${ended}`;
}

/** A run without a grant: the one the job lost before it, as its run.started record names it, or "none" alone. */
function endedGrantText(started: AuditRow | undefined): string {
  const e = endedGrantOf(started?.data.ended_grant as Record<string, unknown> | undefined);
  if (!e) return '- (none: judged under unattended_policy)';
  const at = e.ended_at ? new Date(e.ended_at) : null;
  const before = at && started ? ` ${Math.max(0, started.at.getTime() - at.getTime())} ms before the run started, at ${at.toISOString()},` : '';
  const how = e.ending === 'grant.revoked' ? 'revoked' : e.ending === 'grant.cleared' ? 'cleared' : 'ended';
  return `- (none: grant ${e.id} ${how}${before} by ${e.ended_by ?? '-'}: ${e.why ?? '-'}; ${started?.rule ?? '-'}, judged under unattended_policy)`;
}

/**
 * The runs row's answer, which the run records as it finishes; a run still going, or one ended for it (a lease
 * expiry, a cancel), has none there, so its run.started record answers.
 */
function cronAuthorizedText(r: { cron_authorized: boolean | null; state: string; finished_at: Date | null }, audit: readonly AuditRow[]): string {
  if (r.cron_authorized !== null) return String(r.cron_authorized);
  const started = [...audit].reverse().find((a) => a.kind === 'run.started');
  if (typeof started?.data.cron_authorized !== 'boolean') return '-';
  const why = r.finished_at ? `the run ended as ${r.state} before recording it` : 'the run has not finished';
  return `${started.data.cron_authorized} (from its run.started record: ${why})`;
}

/**
 * A child job's run: the tool that made the job and queued the run, as its run.queued record names it (data.job_origin;
 * data.origin in older records); the stored trigger is manual.
 */
function childOrigin(r: Pick<RunRow, 'trigger'>, audit: readonly AuditRow[]): string | null {
  const data = audit.find((a) => a.kind === 'run.queued')?.data;
  const origin = typeof data?.job_origin === 'string' ? data.job_origin : data?.origin;
  return r.trigger === 'manual' && typeof origin === 'string' && CHILD_ORIGINS.includes(origin) ? origin : null;
}

/** ` in a run of job P`, from the run.queued record of a child job's run. */
function parentOf(audit: readonly AuditRow[]): string {
  const parent = audit.find((a) => a.kind === 'run.queued')?.data.parent_job_id;
  return typeof parent === 'string' ? ` in a run of job ${parent}` : '';
}

export function registerRunsCommands(program: Command): void {
  const runs = program.command('runs').description('the run history of every job');
  runs.command('prune').description('delete ended runs older than the retention now (the daemon does it hourly); each job\'s newest run stays')
    .option('--older-than-days <n>', 'the cutoff in days (default: daemon.run_retention_days)')
    .option('--dry-run', 'count what would be deleted, change nothing')
    .option('--as <user>', 'who you are (default: the OS account)').option('--json', 'print JSON')
    .action(async (opts: { olderThanDays?: string; dryRun?: boolean; as?: string; json?: boolean }, cmd: Command) => {
      const { config } = configFor(cmd);
      const days = opts.olderThanDays !== undefined ? parseWhole('--older-than-days', opts.olderThanDays, MAX_RUN_RETENTION_DAYS, 'days') : config.daemon.run_retention_days;
      if (days === 0) throw new CliError('run retention is off (daemon.run_retention_days is 0); give --older-than-days N to prune anyway');
      const actor = await actorName(opts.as);
      const [{ pruneRuns }, { databaseNow }] = await Promise.all([import('../../store/retention.ts'), import('../../store/db.ts')]);
      const report = await withStore(config, async (db) => {
        const before = new Date((await databaseNow(db.db)).getTime() - days * 86_400_000);
        return pruneRuns(db.db, { before, actor, from: processIdentity(), dryRun: Boolean(opts.dryRun) });
      });
      // snake_case like every other --json output; the store's field stays dryRun
      const { dryRun, ...rest } = report;
      if (opts.json) { printJson({ dry_run: dryRun, ...rest }); return; }
      const verb = dryRun ? 'would delete' : 'deleted';
      process.stdout.write(`${verb} ${report.runs} ended run(s) of ${report.jobs.length} job(s) with instants before ${report.before.toISOString()}, ${report.transcripts} agent run transcript(s) with them, and ${report.effects} recorded tool effect(s)\n`);
      if (report.jobs.length > 0) printTable(['JOB', 'RUNS', 'TRANSCRIPTS', 'OLDEST', 'NEWEST'], report.jobs.map((j) => [j.job_id, j.runs, j.transcripts, j.oldest.toISOString(), j.newest.toISOString()]));
    });

  runs.command('list').description('runs of every job, newest instant first: what failed or was refused tonight (skipped instants are counted, not listed, unless --state names skipped)')
    .option('--job <job>', 'one job (id or name)').option('--state <states>', 'one or more states, comma-separated: failed,denied,timed_out,skipped,…')
    .option('--since <when>', 'instants from then on: ISO date or instant, or a time ago: 90m, 24h, 2d, 1w')
    .option('--refused', 'only runs that had a call or step refused, in any state, as audit list --outcome deny counts them: DENIALS above 0, or bad arguments refused at gate step 0 (args.invalid; not counted in DENIALS); an agent run can succeed with calls refused')
    .option('--problems', 'only runs that went wrong: ended failed, denied, timed_out, interrupted or cancelled, or succeeded with an ERROR (an agent run whose calls failed, had bad arguments or were refused)')
    .option('--limit <n>', 'how many', '50').option('--json', 'print JSON')
    .action(async (opts: { job?: string; state?: string; since?: string; refused?: boolean; problems?: boolean; limit: string; json?: boolean }, cmd: Command) => {
      refuseEmptyText(opts, ['job', 'state']);
      const limit = parseLimit('--limit', opts.limit);
      const since = parseSince('--since', opts.since);
      const { RUN_STATES } = await import('../../store/schema.ts');
      // a paused job records an instant every time one falls due: thousands a day would bury the runs that ran
      const states = opts.state === undefined ? RUN_STATES.filter((s) => s !== 'skipped') : parseStates(opts.state, RUN_STATES);
      const [{ skippedByRule, listRuns }, { jobByRef }, { runsShown, printRuns, jobNames, runsJson }] = await Promise.all([
        import('../../store/runs.ts'), import('../job-ref.ts'), import('../run-table.ts'),
      ]);
      const found = await withStore(configFor(cmd).config, async (db) => {
        const job = opts.job ? await jobByRef(db.db, opts.job, { includeRemoved: true }) : null;
        const from = await sinceOn(db.db, since);
        // one more than shown: exactly `limit` runs is no cut
        const filter = { ...(job ? { job_id: job.id } : {}), ...(from ? { since: from } : {}) };
        const fetched = await listRuns(db.db, { ...filter, states, limit: limit + 1, refused: Boolean(opts.refused), problems: Boolean(opts.problems) });
        // a skipped instant refuses nothing and is no problem: with --refused or --problems there is none to count
        const skipped = opts.state === undefined && !opts.refused && !opts.problems ? await skippedByRule(db.db, filter) : new Map<string, number>();
        return { fetched, names: await jobNames(db.db, fetched), shown: await runsShown(db.db, fetched), skipped };
      });
      const rows = noteIfCut(found.fetched, limit, 'newest');
      // a bare array, as before: scripts read it; skipped instants are listed with --state skipped
      if (opts.json) { printJson(runsJson(rows, found.names, found.shown)); return; }
      printRuns(rows, found.shown, found.names);
      const skipped = [...found.skipped.values()].reduce((a, b) => a + b, 0);
      if (skipped > 0) {
        process.stdout.write(`\n${skipped} skipped instant(s) not listed (${[...found.skipped].map(([rule, n]) => `${rule} ${n}`).join(', ')}): --state skipped lists them\n`);
      }
    });

  runs.command('show').argument('<run>', 'run id').description('one run: its state, output and error, and every audit record that names it')
    .option('--transcript', 'an agent run\'s conversation too: what the model was told, asked for and got back (credentials redacted)')
    .option('--json', 'print JSON')
    .action(async (id: string, opts: { json?: boolean; transcript?: boolean }, cmd: Command) => {
      refuseEmptyText({ run: id }, ['run']);
      const [{ getRun }, { listAudit }, { getJob }, { transcriptOfRun }, { getGrant }, { getApproval }] = await Promise.all([
        import('../../store/runs.ts'), import('../../store/audit.ts'), import('../../store/jobs.ts'), import('../../store/transcripts.ts'),
        import('../../store/grants.ts'), import('../../store/approvals.ts'),
      ]);
      const found = await withStore(configFor(cmd).config, async (db) => {
        const run = await getRun(db.db, id);
        const audit = await listAudit(db.db, { run_id: id, limit: 10_000, order: 'asc' });
        const jobId = run?.job_id ?? audit.find((a) => a.job_id)?.job_id;
        const job = jobId ? await getJob(db.db, jobId, { includeRemoved: true }) : null;
        const transcript = opts.transcript ? await transcriptOfRun(db.db, id) : undefined;
        // on whose authority: the grant the run started with, who approved it and whether it has ended since
        const grantId = run?.grant_id ?? (audit.find((a) => a.kind === 'run.started')?.data.grant_id as string | undefined) ?? null;
        const grant = grantId ? await getGrant(db.db, grantId) : null;
        const answeredFrom = grant?.approval_id ? (await getApproval(db.db, grant.approval_id))?.answered_from ?? null : null;
        const authority = await authorities(db.db, audit);
        return {
          run, job: job ? { id: job.id, name: job.name, timezone: job.timezone, removed_at: job.removed_at } : null, trigger_origin: run ? childOrigin(run, audit) : null,
          // who ended it and why are free text: redacted, as jobs show and grants show give an ended grant (I11)
          grant: grant ? { ...grant, revoked_by: redactOrNull(grant.revoked_by), revoked_why: redactOrNull(grant.revoked_why), answered_from: answeredFrom } : null,
          // no grant: the one the job lost before the run started (revoked, cleared), as its start recorded it
          ended_grant: grantId ? null : endedGrantOf([...audit].reverse().find((a) => a.kind === 'run.started')?.data.ended_grant as Record<string, unknown> | undefined),
          audit: audit.map((a) => ({ ...a, authority: authority.get(a.seq) ?? null })), ...(transcript !== undefined ? { transcript } : {}),
        };
      });
      if (!found.run && found.audit.length === 0) throw new CliError(`no run with id ${id}, and no audit record names it`, EXIT.failure);
      // a pruned run: the audit log still answers for it
      if (!found.run) warn(`run ${id} is no longer in the runs table (deleted under daemon.run_retention_days); its audit records follow`);
      if (opts.json) { printJson(found); return; }
      const r = found.run;
      const lines: [string, unknown][] = [
        ['job', found.job ? `${found.job.id} (${found.job.name})${found.job.removed_at ? ', removed' : ''}` : '-'],
        ...(r ? [
          ['nominal', found.job ? instantIn(r.nominal_at, found.job.timezone) : r.nominal_at.toISOString()], ['trigger', found.trigger_origin ? `${found.trigger_origin} (a child job's run, made by a ${found.trigger_origin} call${parentOf(found.audit)}; stored as manual)` : r.trigger], ['state', r.state], ['attempt', r.attempt],
          ['started', r.started_at?.toISOString() ?? '-'], ['finished', r.finished_at?.toISOString() ?? '-'],
          ['cron_authorized', cronAuthorizedText(r, found.audit)], ['grant', grantText(found.grant, r.grant_id ?? found.grant?.id ?? null, [...found.audit].reverse().find((a) => a.kind === 'run.started'))],
          ['denials', r.denials], ['error', errorText(r) || '-'], ['output', r.output === null ? '-' : clipped(JSON.stringify(r.output))],
        ] as [string, unknown][] : []),
      ];
      for (const [k, v] of lines) process.stdout.write(`${k}: ${printable(String(v))}\n`);
      process.stdout.write('\naudit:\n');
      printTable(['SEQ', 'AT', 'KIND', 'ACTOR', 'STEP', 'OUTCOME', 'TOOL', 'RULE', 'AUTHORITY', 'REASON'], found.audit.map((a) => [
        a.seq, a.at.toISOString(), a.kind, actorCell(a), a.step ?? '', a.outcome ?? '', toolCell(a.data), a.rule ?? '', a.authority?.text ?? '', clip(detailOf(a), 100),
      ]));
      if (found.transcript === null) process.stdout.write('\ntranscript: none (a steps run, a run that ended before the model answered, or one pruned)\n');
      if (found.transcript) {
        process.stdout.write(`\ntranscript ${found.transcript.id}:\n`);
        for (const m of found.transcript.messages) process.stdout.write(`${transcriptLine(m)}\n`);
      }
    });
}
