import { printableLines } from '../../util/printable.ts';
import type { Command } from 'commander';
import type { Config } from '../../config/schema.ts';
import { configFor } from '../config-option.ts';
import { CliError, EXIT } from '../errors.ts';
import { refuseEmptyText } from '../option-values.ts';
import { printJson, printTable } from '../output.ts';
import { deliveryTarget, instantIn } from '../job-display.ts';
import { actorName, withStore } from '../store-session.ts';
import { redactText } from '../../util/redact.ts';
import type { Executor } from '../../store/db.ts';
import { shownJob } from './jobs.ts';

const configOf = (cmd: Command): Config => configFor(cmd).config;

/** The account and host a grant's ending record names (a CLI revoke records them), or null. */
async function endingOrigin(
  exec: Executor, listAudit: typeof import('../../store/audit.ts').listAudit, jobId: string, grantId: string,
): Promise<{ os_account: string; host: string } | null> {
  for (const kind of ['grant.revoked', 'grant.cleared', 'grant.superseded']) {
    const found = (await listAudit(exec, { job_id: jobId, kind, limit: 20 })).find((r) => r.data.grant_id === grantId);
    const from = found?.data.from as { os_account?: unknown; host?: unknown } | undefined;
    if (found) return typeof from?.os_account === 'string' && typeof from.host === 'string' ? { os_account: from.os_account, host: from.host } : null;
  }
  return null;
}

/** Why a live grant authorises no run, in a table cell; the rule's sentence is in grants show. */
const NOT_AUTHORISING: Readonly<Record<string, string>> = {
  'grant.definition_changed': 'definition changed', 'grant.not_authorized': 'not a human approval', 'grant.job_removed': 'job removed',
};

export function registerGrantCommands(program: Command): void {
  const grants = program.command('grants').description('which jobs hold cron authorisation, and who approved it');
  grants.command('list').description('live grants (all with --all)').option('--job <job>', 'one job (id or name)').option('--all', 'include revoked and cleared grants').option('--json', 'print JSON')
    .action(async (opts: { job?: string; all?: boolean; json?: boolean }, cmd: Command) => {
      refuseEmptyText(opts, ['job']); // empty would list every job's grants
      const [{ authorization, listGrants }, { jobByRef }, { jobsById }, { childJobsCovered }] = await Promise.all([
        import('../../store/grants.ts'), import('../job-ref.ts'), import('../../store/jobs.ts'), import('../../jobs/run-authorization.ts'),
      ]);
      const rows = await withStore(configOf(cmd), async (db) => {
        const job = opts.job ? await jobByRef(db.db, opts.job, { includeRemoved: true }) : null;
        const grants = await listGrants(db.db, { ...(job ? { job_id: job.id } : {}), includeRevoked: Boolean(opts.all) });
        // an id alone does not tell an admin which job holds the grant
        const jobs = await jobsById(db.db, grants.map((g) => g.job_id));
        // child jobs run under their parent's grant: an admin counting what holds cron authority must see them
        const children = await childJobsCovered(db.db, grants.filter((g) => !g.revoked_at).map((g) => g.id));
        return grants.map((g) => {
          const held = jobs.get(g.job_id) ?? null;
          // as a run judges it (a grant row says what was approved, not whether it still covers the job)
          const now = held && !g.revoked_at ? authorization(held, g) : null;
          // names and reasons are free text: shown redacted, as jobs show shows them (I11)
          return {
            ...g, job_name: redactOrNull(held?.name ?? null), revoked_why: redactOrNull(g.revoked_why),
            authorizes_now: now?.cron_authorized ?? false, authorization_rule: now?.rule ?? (g.revoked_at ? 'grant.none' : 'grant.job_removed'),
            child_jobs: (children.get(g.id) ?? []).map((c) => ({ id: c.id, name: redactOrNull(c.name), origin: c.origin })),
          };
        });
      });
      if (opts.json) printJson(rows);
      else printTable(['GRANT', 'JOB', 'NAME', 'AUTHORISED', 'CHILD JOBS', 'APPROVER', 'CHANNEL', 'APPROVED AT', 'TOOLS', 'ENDED'], rows.map((g) => [
        // an ended grant authorises nothing any more, whatever it once did
        g.id, g.job_id, g.job_name ?? '-', g.revoked_at ? 'no (ended)' : g.authorizes_now ? 'yes' : `no (${NOT_AUTHORISING[g.authorization_rule] ?? g.authorization_rule})`,
        g.child_jobs.length > 0 ? String(g.child_jobs.length) : '-',
        g.approver ?? '-', g.channel ?? '-', g.approved_at?.toISOString() ?? '-',
        g.tool_scope === null ? '(every tool offered)' : g.tool_scope.join(',') || '(none)',
        g.revoked_at ? `${g.revoked_at.toISOString()} by ${g.revoked_by}: ${g.revoked_why}` : '',
      ]));
    });

  grants.command('show').argument('<job>', 'job id or name').description('what may this job do tonight, and who said so').option('--json', 'print JSON')
    .action(async (ref: string, opts: { json?: boolean }, cmd: Command) => {
      if (ref.trim() === '') throw new CliError('grants show: the job is empty; give a job id or name', EXIT.usage);
      const config = configOf(cmd);
      const [{ jobByRef }, { liveGrant, listGrants }, { definitionHash }, { getApproval }, { runAuthorization, childJobsCovered }, { builtinTools }, { jobModelMissing, jobToolSet, toolOutlook }, { listAudit }] = await Promise.all([
        import('../job-ref.ts'), import('../../store/grants.ts'), import('../../store/definition-hash.ts'), import('../../store/approvals.ts'), import('../../jobs/run-authorization.ts'),
        import('../../daemon/daemon-tools.ts'), import('../../session/job-preview.ts'), import('../../store/audit.ts'),
      ]);
      const report = await withStore(config, async (db) => {
        const job = await jobByRef(db.db, ref, { includeRemoved: true });
        // a child job (task, workflow, spawn_task) has no grant of its own: it runs under its parent's
        const grant = job.origin === 'cronjob' ? await liveGrant(db.db, job.id) : null;
        // the approver is the name the answerer gave; the approval row knows the account it came from
        const answeredFrom = grant?.approval_id ? (await getApproval(db.db, grant.approval_id))?.answered_from ?? null : null;
        const auth = await runAuthorization(db.db, job);
        const children = grant ? (await childJobsCovered(db.db, [grant.id])).get(grant.id) ?? [] : [];
        // no live grant: who ended the last one, and why, is the rest of "who said so"
        const ended = grant || job.origin !== 'cronjob' ? null : (await listGrants(db.db, { job_id: job.id, includeRevoked: true, limit: 1 }))[0] ?? null;
        // the OS account behind the name that ended it (`--as` is only what the caller says), from the ending record
        const endedFrom = ended ? await endingOrigin(db.db, listAudit, job.id, ended.id) : null;
        // a change approved after the grant that kept it (a timeout, a name): the grant's approver did not make it
        // after the grant's own record, not its approval: the approved change itself is recorded between the two
        const [update] = grant ? await listAudit(db.db, { job_id: job.id, kind: 'job.updated', limit: 1 }) : [];
        const issued = grant && update ? (await listAudit(db.db, { job_id: job.id, kind: 'grant.issued', limit: 50 })).find((r) => r.data.grant_id === grant.id) : undefined;
        const after = update && grant && (issued ? update.seq > issued.seq : update.at > grant.issued_at);
        const changedSince = after ? { at: update.at, by: update.actor, fields: ((update.data as { changed?: string[] }).changed ?? []) } : null;
        const set = jobToolSet(config, builtinTools(config, { db: db.db }), job.tools, job.payload);
        const target = deliveryTarget(job.delivery);
        const modelMissing = jobModelMissing(config, job.payload);
        const shown = shownJob(job);
        return {
          job: {
            // the stored row decides (its hash, its tools); only its text is shown redacted
            id: job.id, name: shown.name, schedule: job.schedule, timezone: job.timezone, paused: job.paused, pause_note: shown.pause_note, removed_at: job.removed_at,
            next_fire_at: job.next_fire_at, definition_hash: job.definition_hash, origin: job.origin, parent_job_id: job.parent_job_id, payload_kind: job.payload.kind, tools: job.tools,
          },
          /** Where each finished run's outcome goes: part of what the human approved. */
          delivery: target ? { notify: target, configured: Object.hasOwn(config.notify.targets, target), delivers: auth.cron_authorized } : null,
          /** The model settings its agent runs need and this configuration lacks: each such run fails. */
          model_missing: modelMissing,
          /** Why the job fires nothing tonight, or null when it fires on schedule. */
          will_not_fire: job.removed_at ? 'removed' : job.paused ? 'paused until resumed' : job.next_fire_at ? null : 'its schedule has no instant left',
          authorization: auth,
          last_grant: ended ? { id: ended.id, approver: ended.approver, approved_at: ended.approved_at, ended_at: ended.revoked_at, ended_by: ended.revoked_by, ended_from: endedFrom, why: redactOrNull(ended.revoked_why) } : null,
          grant: grant ? { id: grant.id, approver: grant.approver, channel: grant.channel, approved_at: grant.approved_at, approval_id: grant.approval_id, answered_from: answeredFrom, definition_matches: grant.definition_hash === definitionHash(job), changed_since: changedSince } : null,
          /** Live child jobs (task, workflow, spawn_task) made by its runs, which run under this grant too; revoking it stops them (I5). */
          child_jobs: children.map((c) => ({ id: c.id, name: redactOrNull(c.name), origin: c.origin, schedule: c.schedule, next_fire_at: c.next_fire_at })),
          unattended_policy: config.permissions.approval.unattended_policy,
          tools: await toolOutlook(config, set.offered, auth.cron_authorized, auth.tool_scope), removed: set.removed,
        };
      });
      const warnings = reportWarnings(report);
      if (opts.json) {
        printJson({ ...report, warnings });
        return;
      }
      const g = report.grant;
      const d = report.delivery;
      const policy = `unattended_policy=${report.unattended_policy}; any call the guard flags is refused; an agent run's model is not offered the refused tools`;
      // a job's name and the reasons given are anyone's text: no escape sequence of theirs reaches the terminal
      process.stdout.write(printableLines([
        `job ${report.job.id} (${report.job.name}), ${report.job.schedule} ${report.job.timezone}, ${firesLine(report.job)}`,
        `cron_authorized: ${report.authorization.cron_authorized ? 'yes' : 'no'} (${report.authorization.rule}: ${report.authorization.reason})`,
        g ? `grant ${g.id}: approved by ${g.approver} on ${g.channel} at ${g.approved_at?.toISOString()} (approval ${g.approval_id}${g.answered_from ? `, answered from OS account ${g.answered_from.os_account} on ${g.answered_from.host}` : ''}); definition ${g.definition_matches ? 'still matches' : 'CHANGED since approval'}`
          : report.job.parent_job_id ? `grant: none of its own; a ${report.job.origin} child of job ${report.job.parent_job_id}, runs under that job's grant (see: grants show ${report.job.parent_job_id})`
            : report.last_grant ? `grant: none; the last one, ${report.last_grant.id} (approved by ${report.last_grant.approver ?? '-'} at ${report.last_grant.approved_at?.toISOString() ?? '-'}), ended at ${report.last_grant.ended_at?.toISOString()} by ${report.last_grant.ended_by}${report.last_grant.ended_from ? ` (OS account ${report.last_grant.ended_from.os_account} on ${report.last_grant.ended_from.host})` : ''}: ${report.last_grant.why}`
              : 'grant: none (never approved by a human)',
        ...(g?.changed_since ? [`  changed since, keeping the grant: ${g.changed_since.fields.join(', ') || 'nothing'} by ${g.changed_since.by ?? '-'} at ${g.changed_since.at.toISOString()} (audit list --job ${report.job.id} --kind job.updated)`] : []),
        ...(report.authorization.cron_authorized ? [scopeLine(report.authorization.tool_scope)] : []),
        ...(report.child_jobs.length > 0 ? [`also authorises ${report.child_jobs.length} child job(s) its runs made (revoking the grant stops them): ${report.child_jobs.map((c) => `${c.id} (${c.origin} ${c.name ?? '-'})`).join(', ')}`] : []),
        !d ? 'delivery: none' : d.delivers ? `delivery: each finished run's outcome is posted to notify target ${d.notify}`
          : `delivery: notify target ${d.notify}, but nothing is posted while the job has no live grant`,
        ...warnings.map((w) => `WARNING: ${w}`),
        // one heading either way: "tonight" is only true of a job that fires
        report.will_not_fire ? `it will not fire (${report.will_not_fire}); if it ran, per tool:` : 'tonight, per tool:',
        `  (${policy})`,
      ]).join('\n') + '\n');
      printTable(['TOOL', 'RISK', report.will_not_fire ? 'IF IT RAN' : 'TONIGHT', 'RULE'], report.tools.map((t) => [t.name, t.risk, t.tonight, t.rule]));
      // a tool the job does not name is not a refusal worth a row each: the job chose its list (empty: the default set)
      const named = (t: { name: string }) => report.job.tools.length === 0 || report.job.tools.includes(t.name);
      const unnamed = report.removed.filter((t) => !named(t));
      const refused = report.removed.filter(named);
      if (refused.length === 0) process.stdout.write('\nnot available to its runs: none of the tools it names\n');
      else {
        process.stdout.write('\nnot available to its runs:\n');
        printTable(['TOOL', 'RULE'], refused.map((t) => [t.name, t.rule]));
      }
      if (unnamed.length > 0) process.stdout.write(`(and ${unnamed.length} tools its tools list does not name; --json lists them)\n`);
    });

  grants.command('revoke').argument('<job>', 'job id or name').description('take a job\'s grant back').requiredOption('--why <reason>', 'why (recorded in the audit log)')
    .option('--as <user>', 'who you are (default: the OS account)').option('--json', 'print JSON')
    .action(async (ref: string, opts: { why: string; as?: string; json?: boolean }, cmd: Command) => {
      if (!opts.why.trim()) throw new CliError('--why: a reason is required');
      const [{ revokeGrant }, { listRuns }, { jobByRef }] = await Promise.all([import('../../store/grants.ts'), import('../../store/runs.ts'), import('../job-ref.ts')]);
      const by = await actorName(opts.as);
      let jobId = ref;
      const result = await withStore(configOf(cmd), async (db) => {
        jobId = (await jobByRef(db.db, ref, { includeRemoved: true })).id;
        const revoked = await revokeGrant(db.db, { job_id: jobId, by, why: opts.why });
        return revoked ? { revoked, running: (await listRuns(db.db, { job_id: jobId, states: ['running'] })).map((r) => r.id) } : null;
      });
      if (!result) throw new CliError(`job ${jobId} has no live grant`, EXIT.failure);
      if (opts.json) printJson({ ...result.revoked, running_runs: result.running });
      else {
        process.stdout.write(`revoked grant ${result.revoked.id} of ${jobId}\n`);
        // what the revocation does to work already under way, so nobody has to guess
        if (result.running.length) process.stdout.write(`${result.running.length} run(s) of this job are running now (${result.running.join(', ')}): their next write or exec call is refused (unattended.grant_withdrawn)\n`);
      }
    });
}

const redactOrNull = (text: string | null): string | null => (text === null ? null : redactText(text));

/** Whether and when the job fires, for the first line of `grants show`. */
function firesLine(job: { paused: boolean; pause_note: string | null; removed_at: Date | null; next_fire_at: Date | null; timezone: string }): string {
  if (job.removed_at) return `REMOVED at ${job.removed_at.toISOString()}: fires never`;
  if (job.paused) return `PAUSED${job.pause_note ? ` (${job.pause_note})` : ''}: fires nothing until resumed`;
  return `next ${job.next_fire_at ? instantIn(job.next_fire_at, job.timezone) : 'never (its schedule has no instant left)'}`;
}

/** What makes tonight's runs fail or deliver nowhere although the table says "allowed". */
function reportWarnings(report: { job: { payload_kind: string }; model_missing: readonly string[]; delivery: { notify: string; configured: boolean } | null }): string[] {
  const warnings: string[] = [];
  if (report.model_missing.length > 0) {
    const which = report.job.payload_kind === 'agent' ? 'every run of this agent job fails' : 'each step of it that starts an agent fails';
    warnings.push(`no model is configured (${report.model_missing.join(', ')} empty): ${which} with "agent turns need a model", whatever the table below allows, unless the daemon's configuration sets them`);
  }
  if (report.delivery && !report.delivery.configured) warnings.push(`notify target ${report.delivery.notify} is not in this configuration's notify.targets: its deliveries fail unless the daemon's configuration has it`);
  return warnings;
}

/** What the human approval behind the grant authorised, in the words of `grants show`. */
function scopeLine(scope: readonly string[] | null): string {
  if (scope === null) return 'the grant covers every tool its runs are offered (it predates recorded tool scopes)';
  return `the approval covered these tools, and the grant covers no others: ${scope.join(', ') || '(none)'}`;
}
