import type { Command } from 'commander';
import type { Config } from '../../config/schema.ts';
import type { ApprovalRow } from '../../store/schema.ts';
import type { AnswerStanding } from '../../store/approvals.ts';
import { configFor } from '../config-option.ts';
import { CliError, EXIT } from '../errors.ts';
import { noteIfCut, parseLimit, refuseEmptyText } from '../option-values.ts';
import { printJson, printTable } from '../output.ts';
import { actorName, answerOrigin, withStore } from '../store-session.ts';
import { jsonLines, printableLines } from '../../util/printable.ts';
import { redactText } from '../../util/redact.ts';
import { alwaysCovers } from '../../session/tty-approver.ts';
import { noAlwaysReason } from '../../approval/scopes.ts';
import { storedJob } from '../attended-deps.ts';
import { liveNamesakes, namesakeText } from '../job-warnings.ts';

const configOf = (cmd: Command): Config => configFor(cmd).config;

/** The request as the person answering it should read it: all of the call (stored redacted, I11), its flags and scope. */
function describeRequest(a: ApprovalRow, standing?: AnswerStanding): string[] {
  const flags = a.flags as { rule?: string; reason?: string; matched?: string }[];
  return [
    `request ${a.id}: ${a.tool}  [risk ${a.risk}]  ${stateText(a, standing)}`,
    ...(standing?.answered_via ? [`  ${standing.answered_via_text} (answered_via ${standing.answered_via})`] : []),
    `  asked by ${a.user_id || '(unknown)'} on ${a.channel}; call hash ${a.call_hash}`,
    ...jsonLines('  arguments: ', a.args),
    ...(JSON.stringify(a.args).includes('[REDACTED]') ? ['  note: [REDACTED] stands for a credential in the call; it is not shown or stored'] : []),
    ...flags.map((f) => `  guard: ${f.rule}: ${f.reason} (${f.matched})`),
    alwaysLine(a),
    ...(a.state === 'pending' && a.code_hash !== null ? [`  answering asks for the code printed where the request was asked (approvals approve|deny ${a.id})`] : []),
  ];
}

/** Where the request stands: until when it waits, or who answered it and when. */
function stateText(a: ApprovalRow, standing?: AnswerStanding): string {
  if (a.state === 'pending') return `pending, expires ${a.expires_at.toISOString()}`;
  if (a.state === 'approved' || a.state === 'denied') return `${answeredBy(a)}${standing ? notCounted(standing) : ''}`;
  if (a.state === 'expired') return `expired at ${a.expires_at.toISOString()}: nobody answered in time`;
  return 'withdrawn: the session that asked stopped waiting';
}

/** ` (not counted: no approval.answered record, …)` where the chain does not back the row's answer; empty where it does. */
const notCounted = (s: AnswerStanding): string => (s.counted ? '' : ` (not counted: ${s.not_counted.join(', ')})`);

/** The STATE cell of an answered row: its state, and whether its answer counted. */
const stateCell = (a: ApprovalRow, s: AnswerStanding | undefined): string => `${a.state}${s ? notCounted(s) : ''}`;

/** What "always" does for this request: offered, recorded, or why not offered. */
function alwaysLine(a: ApprovalRow): string {
  const covers = alwaysCovers(a.tool, a.scopes.map((s) => redactText(s)));
  if (a.state === 'approved' && a.answer === 'always') {
    return `  answered "always": once the waiting session takes the answer, this runs without asking: ${covers} (${ALWAYS_HINT})`;
  }
  if (a.allow_always) return `  --always would also allow, from now on and without asking: ${covers}`;
  return `  --always is not offered for this call: ${noAlwaysReason(a)}`;
}

const ALWAYS_HINT = 'echo-agent approvals always lists such approvals; echo-agent approvals always revoke ID takes one back';

/** Why an answer was refused, in the terms of this request: who answered first, or why it was withdrawn or not offered. */
function refusalText(result: { refusal: string; reason: string; approval: ApprovalRow | null }): string {
  const a = result.approval;
  if (result.refusal === 'already_answered' && a) return `${result.reason.replace(/\.$/, '')}: ${answeredBy(a)}`;
  if (result.refusal === 'always_not_allowed' && a) return `${alwaysLine(a).trim().replace(/^--always/, '"always"')}; approve without --always to allow this one call.`;
  return result.reason;
}

/** Who answered: the name given, and the OS account and host the answer came from (the name is only a claim). */
function answererCell(a: ApprovalRow): string {
  if (!a.answered_by) return '';
  return `${a.answered_by}${a.answered_from ? ` (${a.answered_from.os_account}@${a.answered_from.host})` : ''}`;
}

/** How an answered request was answered, for a second answer that came too late. */
function answeredBy(a: ApprovalRow): string {
  const from = a.answered_from ? ` from ${a.answered_from.os_account}@${a.answered_from.host}` : '';
  const how = a.state === 'approved' ? `approved ${a.answer ?? ''}`.trim() : a.state;
  return `${how} by ${a.answered_by ?? '(unknown)'}${from} at ${a.answered_at?.toISOString() ?? '?'}`;
}

/** --json: how the answer came and whether it counted (null fields on a row not answered). */
const answerJson = (s: AnswerStanding | undefined) => ({
  answered_via: s?.answered_via ?? null, answer_counted: s ? s.counted : null, answer_not_counted: s?.not_counted ?? [], answered_record_seq: s?.answered_record_seq ?? null,
});

export function registerApprovalCommands(program: Command): void {
  const approvals = program.command('approvals').description('human approval requests waiting for an answer');
  approvals.command('list').description('pending requests (all with --all), newest first').option('--all', 'every state').option('--limit <n>', 'how many', '100').option('--json', 'print JSON')
    .action(async (opts: { all?: boolean; limit: string; json?: boolean }, cmd: Command) => {
      const limit = parseLimit('--limit', opts.limit);
      const { listApprovals, answerStandings } = await import('../../store/approvals.ts');
      const found = await withStore(configOf(cmd), async (db) => {
        const fetched = await listApprovals(db.db, { ...(opts.all ? {} : { state: 'pending' as const }), limit: limit + 1 });
        // an answered row is only what its approval.answered record says: the row alone can be written with SQL
        return { fetched, standing: await answerStandings(db.db, fetched) };
      });
      const rows = noteIfCut(found.fetched, limit);
      const standing = (a: ApprovalRow) => found.standing.get(a.id);
      if (opts.json) printJson(rows.map((a) => ({ ...a, ...answerJson(standing(a)) })));
      else if (rows.length === 0) process.stdout.write(opts.all ? 'no approval requests\n' : 'no pending approval requests: nothing waits for an answer (--all lists answered and expired ones)\n');
      else {
        // who answered each one, and when: what "who approved that?" asks of an answered request
        const answered = opts.all ? ['ANSWERED BY', 'ANSWERED AT', 'VIA'] : [];
        printTable(['ID', 'TOOL', 'RISK', 'CHANNEL', 'USER', 'STATE', 'EXPIRES', ...answered, 'ARGS'], rows.map((a) => [
          a.id, a.tool, a.risk, a.channel, a.user_id, stateCell(a, standing(a)), a.expires_at.toISOString(),
          ...(opts.all ? [answererCell(a), a.answered_at?.toISOString() ?? '', standing(a)?.answered_via ?? ''] : []), JSON.stringify(a.args).slice(0, 80),
        ]));
        if (rows.some((a) => a.state === 'pending')) process.stdout.write('\nsee a request in full before answering it:  echo-agent approvals show ID\n');
      }
    });
  approvals.command('show').argument('<id>').description('a request in full: the call, its guard findings, what "always" would allow, what a job would do').option('--json', 'print JSON')
    .action(async (id: string, opts: { json?: boolean }, cmd: Command) => {
      const config = configOf(cmd);
      const [{ getApproval, answerStandings }, { builtinTools }, { describeJobCall }] = await Promise.all([
        import('../../store/approvals.ts'), import('../../daemon/daemon-tools.ts'), import('../../session/job-preview.ts'),
      ]);
      const shown = await withStore(config, async (db) => {
        const row = await getApproval(db.db, id);
        const stored = row?.tool === 'cronjob' && row.state === 'pending' ? await storedJob(db, row.args) : null;
        // read against the job as it is now: true of a waiting request only, not of one answered before later changes
        const job = row?.tool !== 'cronjob' ? [] : row.state === 'pending' ? describeJobCall(config, builtinTools(config, { db: db.db }), row.args, stored, row.tool_scope)
          : [`  the job as this call would change it is shown while the request waits; what was granted: grants show JOB, audit list --job JOB --kind grant.issued`];
        // the asking terminal was warned of a name taken already; the approver, in another shell, reads this instead
        const namesakes = row?.tool === 'cronjob' && row.state === 'pending' && (row.args.action === 'create' || row.args.action === 'update')
          ? await liveNamesakes(db, row.args.name, typeof row.args.id === 'string' ? row.args.id : null) : [];
        if (namesakes.length > 0) job.push(`  warning: ${namesakeText(String(row!.args.name), namesakes)}`);
        return row ? { row, job, standing: (await answerStandings(db.db, [row])).get(row.id) } : null;
      });
      if (!shown) throw new CliError(`no approval request ${id}`, EXIT.failure);
      if (opts.json) {
        printJson({ ...shown.row, ...answerJson(shown.standing) });
        return;
      }
      process.stdout.write(`${printableLines(describeRequest(shown.row, shown.standing).concat(shown.job)).join('\n')}\n`);
    });
  registerAlwaysCommands(approvals);
  for (const [name, answer] of [['approve', 'once'], ['deny', 'deny']] as const) {
    const c = approvals.command(name).argument('<id>').description(name === 'approve' ? 'approve a pending request (as a human, for that one call)' : 'refuse a pending request')
      .option('--code <code>', 'refused: the code is asked for (or read from standard input), never taken from the command line')
      .option('--as <user>', 'who you are (default: the OS account)').option('--json', 'print JSON');
    if (name === 'approve') c.option('--always', 'also record a persistent approval (not for dangerous calls)');
    c.action(async (id: string, opts: { code?: string; as?: string; always?: boolean; json?: boolean }, cmd: Command) => {
      if (opts.code !== undefined) {
        throw new CliError('--code: give the code at the prompt, or on standard input without a terminal; never on the command line, where every local process can read it (ps, /proc)', EXIT.usage);
      }
      const [{ answerApproval, getApproval }, { readAnswerCode }] = await Promise.all([import('../../store/approvals.ts'), import('../answer-code-input.ts')]);
      const by = await actorName(opts.as);
      const result = await withStore(configOf(cmd), async (db) => {
        const row = await getApproval(db.db, id);
        if (!row) return null;
        // asked only of a request that waits for one: a closed or stale request says so without asking
        const code = row.code_hash !== null && row.state === 'pending' ? await readAnswerCode() : undefined;
        return answerApproval(db.db, {
          id, call_hash: row.call_hash, answer: opts.always ? 'always' : answer, answered_by: by, origin: answerOrigin(), via: 'approvals_command', ...(code !== undefined ? { code } : {}),
        });
      });
      if (!result) throw new CliError(`no approval request ${id}`, EXIT.failure);
      if (!result.ok) throw new CliError(`${id}: ${refusalText(result)}`, EXIT.failure);
      if (opts.json) printJson(result.approval);
      else process.stdout.write(`${id}: ${result.approval.answer} by ${by}\n${printableLines(describeRequest(result.approval)).join('\n')}\n`);
    });
  }
}

/**
 * The persistent approvals a person made by answering "always" (gate step 9): what each lets through
 * without asking, who made it and when, and how to take one back (SPEC §5: listed and revocable).
 */
function registerAlwaysCommands(approvals: Command): void {
  const always = approvals.command('always').description('the persistent "always" approvals (gate step 9): list them, revoke one');
  always.command('list', { isDefault: true }).description('live "always" approvals (revoked ones too with --all), oldest first')
    .option('--tool <name>', 'only this tool\'s').option('--all', 'include revoked ones').option('--json', 'print JSON')
    .action(async (opts: { tool?: string; all?: boolean; json?: boolean }, cmd: Command) => {
      refuseEmptyText(opts, ['tool']); // empty would list every tool's
      const { listAllowlist } = await import('../../store/allowlist.ts');
      const rows = (await withStore(configOf(cmd), (db) => listAllowlist(db.db, { ...(opts.tool ? { tool: opts.tool } : {}), includeRevoked: Boolean(opts.all) })))
        // scopes are command text, and reasons free text: shown redacted (I11)
        .map((r) => ({ ...r, scope: redactText(r.scope), reason: redactText(r.reason), revoked_why: r.revoked_why === null ? null : redactText(r.revoked_why) }));
      if (opts.json) {
        printJson(rows);
        return;
      }
      if (rows.length === 0) {
        process.stdout.write(`no ${opts.all ? '' : 'live '}"always" approvals${opts.tool ? ` for ${opts.tool}` : ''}: every call that needs a human asks one\n`);
        return;
      }
      printTable(['ID', 'TOOL', 'SCOPE', 'BY', 'AT', 'APPROVAL', 'REVOKED'], rows.map((r) => [
        r.id, r.tool, r.scope, r.created_by, r.created_at.toISOString(), r.approval_id ?? '-',
        r.revoked_at ? `${r.revoked_at.toISOString()} by ${r.revoked_by}: ${r.revoked_why}` : '',
      ]));
      if (rows.some((r) => !r.revoked_at)) process.stdout.write("\nthe calls of each live approval's scope run without asking; take one back with:  echo-agent approvals always revoke ID\n");
    });
  always.command('revoke').argument('<id>', 'the approval\'s id (alw_…), from approvals always list').description('take an "always" back: its calls ask a human again')
    .requiredOption('--why <reason>', 'why (recorded in the audit log)').option('--as <user>', 'who you are (default: the OS account)').option('--json', 'print JSON')
    .action(async (id: string, opts: { why: string; as?: string; json?: boolean }, cmd: Command) => {
      if (!opts.why.trim()) throw new CliError('--why: a reason is required');
      const { revokeAllowlist, listAllowlist } = await import('../../store/allowlist.ts');
      const by = await actorName(opts.as);
      const result = await withStore(configOf(cmd), async (db) => {
        const revoked = await revokeAllowlist(db.db, { id, by, why: opts.why });
        return { revoked, known: revoked ? null : (await listAllowlist(db.db, { includeRevoked: true })).find((r) => r.id === id) ?? null };
      });
      if (!result.revoked) {
        if (result.known?.revoked_at) throw new CliError(`${id}: already revoked at ${result.known.revoked_at.toISOString()} by ${result.known.revoked_by}`, EXIT.failure);
        throw new CliError(`no "always" approval ${id} (echo-agent approvals always lists them)`, EXIT.failure);
      }
      if (opts.json) printJson({ ...result.revoked, scope: redactText(result.revoked.scope) });
      else process.stdout.write(`revoked ${id}: ${result.revoked.tool} calls of ${redactText(result.revoked.scope)} ask a human again\n`);
    });
}
