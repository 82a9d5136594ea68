import { printableLines } from '../../util/printable.ts';
import type { Command } from 'commander';
import type { Config } from '../../config/schema.ts';
import { configFor } from '../config-option.ts';
import { CliError, EXIT } from '../errors.ts';
import { refuseEmptyText } from '../option-values.ts';
import { printJson, printTable } from '../output.ts';
import { deliveryLine, endedGrantLine, instantIn, modelLine } from '../job-display.ts';
import { actorName, withStore } from '../store-session.ts';
import type { Executor } from '../../store/db.ts';
import type { JobRow } from '../../store/schema.ts';
import type { GrantReport } from '../grant-report.ts';
import type { Origin, RecordedChange } from '../grant-history.ts';

const configOf = (cmd: Command): Config => configFor(cmd).config;

/** Why a live grant authorises no run, in a table cell; the rule's sentence is in grants show. */
const NOT_AUTHORISING: Readonly<Record<string, string>> = {
  'grant.definition_changed': 'definition changed', 'grant.not_authorized': 'not a human approval', 'grant.job_removed': 'job removed',
};

export function registerGrantCommands(program: Command): void {
  const grants = program.command('grants').description('which jobs hold cron authorisation, and who approved it');
  grants.command('list').description('live grants (all with --all)').option('--job <job>', 'one job (id or name)').option('--all', 'include revoked and cleared grants').option('--json', 'print JSON')
    .action(async (opts: { job?: string; all?: boolean; json?: boolean }, cmd: Command) => {
      refuseEmptyText(opts, ['job']); // empty would list every job's grants
      const { grantListRows } = await import('../grant-report.ts');
      const rows = await withStore(configOf(cmd), (db) => grantListRows(db.db, opts));
      // cron_authorized is what a grant was issued with, true of a revoked one too: named for what it means (in_force beside it)
      if (opts.json) printJson(rows.map(({ cron_authorized, ...g }) => ({ ...g, authorized_when_in_force: cron_authorized, in_force: g.revoked_at === null })));
      else printTable(['GRANT', 'JOB', 'NAME', 'AUTHORISED', 'CHILD JOBS', 'APPROVER', 'CHANNEL', 'APPROVED AT', 'TOOLS', 'REQUESTED BY', 'ENDED'], rows.map((g) => [
        // an ended grant authorises nothing any more, whatever it once did
        g.id, g.job_id, g.job_name ?? '-', g.revoked_at ? 'no (ended)' : g.authorizes_now ? 'yes' : `no (${NOT_AUTHORISING[g.authorization_rule] ?? g.authorization_rule})`,
        // finished one-shot children (no instant left, no run under way) are counted apart: they are not what runs tonight
        `${g.child_jobs.length > 0 ? g.child_jobs.length : '-'}${g.finished_child_jobs > 0 ? ` (${g.finished_child_jobs} finished)` : ''}`,
        g.approver ?? '-', g.channel ?? '-', g.approved_at?.toISOString() ?? '-',
        g.tool_scope === null ? '(every tool offered)' : g.tool_scope.join(',') || '(none)',
        requesterCell(g.requested_by, g.approver, g.same_os_account),
        g.revoked_at ? `${g.revoked_at.toISOString()} by ${g.revoked_by}${g.revoked_from ? ` (${g.revoked_from.os_account}@${g.revoked_from.host})` : ''}: ${g.revoked_why}` : '',
      ]));
    });

  grants.command('show').argument('<job>', 'job id or name').description('what may this job do tonight, and who said so').option('--json', 'print JSON')
    .action(async (ref: string, opts: { json?: boolean }, cmd: Command) => {
      if (ref.trim() === '') throw new CliError('grants show: the job is empty; give a job id or name', EXIT.usage);
      const config = configOf(cmd);
      const { grantReport } = await import('../grant-report.ts');
      const report = await withStore(config, (db) => grantReport(config, db.db, ref));
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
        g ? `grant ${g.id}: approved by ${g.approver} on ${g.channel} at ${g.approved_at?.toISOString()} (approval ${g.approval_id}${g.answered_from ? `, answered from OS account ${g.answered_from.os_account} on ${g.answered_from.host}` : ''}${g.answered_via_text ? `, ${g.answered_via_text}` : ''})${requestedText(g)}; definition ${g.definition_matches ? 'still matches' : 'CHANGED since approval'}`
          : report.job.parent_job_id ? `grant: none of its own; a ${report.job.origin} child of job ${report.job.parent_job_id}, runs under that job's grant (see: grants show ${report.job.parent_job_id})`
            : report.last_grant ? endedGrantLine(report.last_grant)
              : 'grant: none (never approved by a human)',
        ...(g && g.same_os_account && g.requested_by !== g.approver ? [sameAccountNote(g)] : []),
        ...(g ? grantHistoryLines(g, report.job.id) : []),
        ...(report.authorization.cron_authorized ? [scopeLine(report.authorization.tool_scope)] : []),
        ...childLines(report),
        ...(report.model ? [modelLine(report.model)] : []),
        deliveryLine(d?.notify ?? null, d?.delivers ?? false),
        ...warnings.map((w) => `WARNING: ${w}`),
        // one heading either way: "tonight" is only true of a job that fires
        report.will_not_fire ? `it will not fire (${report.will_not_fire}); if it ran, per tool:` : 'tonight, per tool:',
        `  (${policy})`,
      ]).join('\n') + '\n');
      printTable(['TOOL', 'RISK', report.will_not_fire ? 'IF IT RAN' : 'TONIGHT', 'RULE'], report.tools.map((t) => [t.name, t.risk, t.tonight, t.rule]));
      // a tool the job does not name is not a refusal worth a row each: the job chose its list (empty: the default set);
      // a tool its steps call is, whatever the list says: every run hits it
      const named = (t: { name: string }) => report.job.tools.length === 0 || report.job.tools.includes(t.name) || report.job.step_tools.includes(t.name);
      const unnamed = report.removed.filter((t) => !named(t));
      const refused = report.removed.filter(named);
      if (refused.length === 0) process.stdout.write('\nnot available to its runs: none of the tools it names\n');
      else {
        process.stdout.write('\nnot available to its runs:\n');
        printTable(['TOOL', 'RULE'], refused.map((t) => [t.name, t.rule]));
      }
      if (unnamed.length > 0) process.stdout.write(`(and ${unnamed.length} ${unnamed.length === 1 ? 'tool' : 'tools'} its tools list does not name; --json lists ${unnamed.length === 1 ? 'it' : 'them'})\n`);
    });

  grants.command('revoke').argument('<job>', 'job id or name').description('take a job\'s grant back').requiredOption('--why <reason>', 'why (recorded in the audit log)')
    .option('--as <user>', 'who you are (default: the OS account)').option('--json', 'print JSON')
    .action(async (ref: string, opts: { why: string; as?: string; json?: boolean }, cmd: Command) => {
      if (!opts.why.trim()) throw new CliError('--why: a reason is required');
      const [{ revokeGrant }, { listRuns }, { jobByRef }] = await Promise.all([import('../../store/grants.ts'), import('../../store/runs.ts'), import('../job-ref.ts')]);
      const by = await actorName(opts.as);
      let jobId = ref;
      const result = await withStore(configOf(cmd), async (db) => {
        const job = await jobByRef(db.db, ref, { includeRemoved: true });
        jobId = job.id;
        // a child job holds no grant to revoke: say whose it runs under, rather than "no live grant" as if it had none
        if (job.origin !== 'cronjob') throw new CliError(await childRevokeText(db.db, job), EXIT.failure);
        const revoked = await revokeGrant(db.db, { job_id: jobId, by, why: opts.why });
        return revoked ? { revoked, running: (await listRuns(db.db, { job_id: jobId, states: ['running'] })).map((r) => r.id) } : null;
      });
      if (!result) throw new CliError(`job ${jobId} has no live grant`, EXIT.failure);
      // the row's cron_authorized is what the grant was issued with: named for that, beside in_force: false
      if (opts.json) {
        const { cron_authorized, ...revoked } = result.revoked;
        printJson({ ...revoked, authorized_when_in_force: cron_authorized, running_runs: result.running });
      }
      else {
        process.stdout.write(`revoked grant ${result.revoked.id} of ${jobId}\n`);
        // what the revocation does to work already under way, so nobody has to guess
        if (result.running.length) process.stdout.write(`${result.running.length} run(s) of this job are running now (${result.running.join(', ')}): their next call that relies on the grant (a write) is refused (unattended.grant_withdrawn)\n`);
      }
    });
}

/** Why `grants revoke` of a child job revokes nothing, and what would stop it. */
async function childRevokeText(db: Executor, job: JobRow): Promise<string> {
  const [{ runAuthorization }, { getGrant }] = await Promise.all([import('../../jobs/run-authorization.ts'), import('../../store/grants.ts')]);
  const auth = await runAuthorization(db, job);
  const grant = auth.cron_authorized && auth.grant_id ? await getGrant(db, auth.grant_id) : null;
  const under = grant ? `runs under grant ${grant.id} of job ${grant.job_id}; to stop it and every job under that grant, revoke that one: grants revoke ${grant.job_id} --why "..."`
    : `runs under no grant now (${auth.rule})`;
  return `job ${job.id} has no grant of its own: it is a ${job.origin} child of job ${job.parent_job_id ?? '-'} and ${under}; to stop only this job: jobs remove ${job.id}`;
}

const originText = (o: Origin | null, lead: string) => (o ? `${lead}OS account ${o.os_account} on ${o.host}` : '');

/** Who asked for the grant's approval, beside its approver: a person approving their own request shows here. */
function requestedText(g: { requested_by: string | null; requested_from: Origin | null; approver: string | null }): string {
  if (!g.requested_by) return '';
  return `, requested by ${g.requested_by}${originText(g.requested_from, ' from ')}${g.requested_by === g.approver ? ' too (self-approved)' : ''}`;
}

/** The REQUESTED BY cell of `grants list`: one name, or one OS account, on both sides is a self-approval. */
const requesterCell = (requester: string | null, approver: string | null, sameAccount: boolean) =>
  (requester ? `${requester}${requester === approver ? ' (self)' : sameAccount ? ' (self: same OS account)' : ''}` : '-');

/** Two --as names from one OS account: nothing shows they are two people. */
function sameAccountNote(g: { requested_by: string | null; approver: string | null; requested_from: Origin | null }): string {
  const account = g.requested_from ? `${g.requested_from.os_account} on ${g.requested_from.host}` : '-';
  return `  note: self-approved: requested (as ${g.requested_by ?? '-'}) and answered (as ${g.approver ?? '-'}) from the same OS account, ${account}; the --as names are not verified`;
}

/** At most this many differing fields are named in text; --json has them all. */
const FIELDS_SHOWN = 8;

/** A recorded change since the grant, with who asked for it and who approved it (the grant's approver did not). */
function changeText(c: RecordedChange, jobId: string): string {
  const fields = c.fields.join(', ') || 'nothing';
  const at = c.at.toISOString();
  const approval = c.approved_by
    ? `, requested by ${c.requested_by ?? '-'} at ${at}, approved by ${c.approved_by} (approval ${c.approval_id ?? '-'}${originText(c.answered_from, ', answered from ')})${c.approved_by === c.requested_by ? ', self-approved' : ''}`
    : c.approval_rule ? ` by ${c.by ?? '-'} at ${at}, let through by ${c.approval_rule} (no person approved it)` : ` by ${c.by ?? '-'} at ${at}, with no approval on record`;
  return `${fields}${approval}; see: audit list ${c.trace_id ? `--trace ${c.trace_id}` : `--job ${jobId} --kind job.updated`}`;
}

/** Under the grant line: why the definition no longer matches, if it does not, and each change since that kept the grant. */
function grantHistoryLines(g: NonNullable<GrantReport['grant']>, jobId: string): string[] {
  const lines: string[] = [];
  const d = g.definition_change;
  if (d) {
    const fields = d.fields === null ? 'the approved definition is not in the audit log, so which fields differ is not known'
      : `it differs from the approved one in: ${d.fields.slice(0, FIELDS_SHOWN).join(', ')}${d.fields.length > FIELDS_SHOWN ? `, and ${d.fields.length - FIELDS_SHOWN} more (--json lists them)` : ''}`;
    lines.push(d.recorded_by ? `  definition changed by ${d.recorded_by.by ?? '-'} at ${d.recorded_by.at.toISOString()} (audit seq ${d.recorded_by.seq}); ${fields}`
      : `  changed outside echo-agent: no recorded update made it what it is; ${fields}`);
  }
  // a recorded change that kept the grant lies outside the definition: beside a mismatch it must not read as its cause
  const label = d ? 'changed since, keeping the grant (outside the definition, not what no longer matches)' : 'changed since, keeping the grant';
  for (const c of g.changes_since) lines.push(`  ${label}: ${changeText(c, jobId)}`);
  return lines;
}

/** The child jobs a grant covers: the live ones by id, the finished one-shots counted (they run nothing tonight). */
function childLines(report: Pick<GrantReport, 'child_jobs' | 'finished_child_jobs'>): string[] {
  const finished = report.finished_child_jobs;
  const done = `${finished} finished (no instant left, no run under way)`;
  if (report.child_jobs.length > 0) {
    return [`also authorises ${report.child_jobs.length} child job(s) its runs made (revoking the grant stops them): ${report.child_jobs.map((c) => `${c.id} (${c.origin} ${c.name ?? '-'})`).join(', ')}${finished > 0 ? `; and ${done}` : ''}`];
  }
  return finished > 0 ? [`child jobs its runs made: ${done}; none runs tonight`] : [];
}

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
