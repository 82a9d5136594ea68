import type { Command } from 'commander';
import type { Config } from '../../config/schema.ts';
import type { ApprovalRow } from '../../store/schema.ts';
import { configFor } from '../config-option.ts';
import { CliError, EXIT } from '../errors.ts';
import { noteIfCut, parseLimit } from '../option-values.ts';
import { printJson, printTable } from '../output.ts';
import { actorName, answerOrigin, withStore } from '../store-session.ts';
import { storedJob } from '../attended-deps.ts';

const configOf = (cmd: Command): Config => configFor(cmd).config;

/** The request as the person answering it should read it: all of the call (stored redacted, I11), its flags and scope. */
function describeRequest(a: ApprovalRow): string[] {
  const flags = a.flags as { rule?: string; reason?: string; matched?: string }[];
  return [
    `request ${a.id}: ${a.tool}  [risk ${a.risk}]  ${a.state}, expires ${a.expires_at.toISOString()}`,
    `  asked by ${a.user_id || '(unknown)'} on ${a.channel}; call hash ${a.call_hash}`,
    `  arguments: ${JSON.stringify(a.args, null, 2).split('\n').join('\n  ')}`,
    ...(JSON.stringify(a.args).includes('[REDACTED]') ? ['  note: [REDACTED] stands for a credential in the call; it is not shown or stored'] : []),
    ...flags.map((f) => `  guard: ${f.rule}: ${f.reason} (${f.matched})`),
    a.allow_always ? `  --always would also allow, from now on, every ${a.tool} call of: ${a.scopes.join(', ')}` : '  --always is not offered for this call',
  ];
}

/** An expired request whose time has not come was withdrawn: its asker stopped waiting (Ctrl-C, a closed terminal, the process gone). */
function shownState(a: ApprovalRow, now: number): string {
  return a.state === 'expired' && a.expires_at.getTime() > now ? 'withdrawn' : a.state;
}

/** How an answered request was answered, for a second answer that came too late. */
function answeredBy(a: ApprovalRow): string {
  const from = a.answered_from ? ` from ${a.answered_from.os_account}@${a.answered_from.host}` : '';
  const how = a.state === 'approved' ? `approved ${a.answer ?? ''}`.trim() : a.state;
  return `${how} by ${a.answered_by ?? '(unknown)'}${from} at ${a.answered_at?.toISOString() ?? '?'}`;
}

export function registerApprovalCommands(program: Command): void {
  const approvals = program.command('approvals').description('human approval requests waiting for an answer');
  approvals.command('list').description('pending requests (all with --all), newest first').option('--all', 'every state').option('--limit <n>', 'how many', '100').option('--json', 'print JSON')
    .action(async (opts: { all?: boolean; limit: string; json?: boolean }, cmd: Command) => {
      const limit = parseLimit('--limit', opts.limit);
      const { listApprovals } = await import('../../store/approvals.ts');
      const rows = noteIfCut(await withStore(configOf(cmd), (db) => listApprovals(db.db, { ...(opts.all ? {} : { state: 'pending' as const }), limit: limit + 1 })), limit);
      if (opts.json) printJson(rows);
      else {
        const now = Date.now();
        printTable(['ID', 'TOOL', 'RISK', 'CHANNEL', 'USER', 'STATE', 'EXPIRES', 'ARGS'], rows.map((a) => [a.id, a.tool, a.risk, a.channel, a.user_id, shownState(a, now), a.expires_at.toISOString(), JSON.stringify(a.args).slice(0, 80)]));
        if (rows.some((a) => a.state === 'pending')) process.stdout.write('\nsee a request in full before answering it:  echo-agent approvals show ID\n');
      }
    });
  approvals.command('show').argument('<id>').description('a request in full: the call, its guard findings, what "always" would allow, what a job would do').option('--json', 'print JSON')
    .action(async (id: string, opts: { json?: boolean }, cmd: Command) => {
      const config = configOf(cmd);
      const [{ getApproval }, { builtinTools }, { describeJobCall }] = await Promise.all([
        import('../../store/approvals.ts'), import('../../daemon/daemon-tools.ts'), import('../../session/job-preview.ts'),
      ]);
      const shown = await withStore(config, async (db) => {
        const row = await getApproval(db.db, id);
        const stored = row?.tool === 'cronjob' ? await storedJob(db, row.args) : null;
        return row ? { row, job: row.tool === 'cronjob' ? describeJobCall(config, builtinTools(config, { db: db.db }), row.args, stored, row.tool_scope) : [] } : null;
      });
      if (!shown) throw new CliError(`no approval request ${id}`, EXIT.failure);
      if (opts.json) {
        printJson(shown.row);
        return;
      }
      process.stdout.write(`${describeRequest(shown.row).concat(shown.job).join('\n')}\n`);
    });
  for (const [name, answer] of [['approve', 'once'], ['deny', 'deny']] as const) {
    const c = approvals.command(name).argument('<id>').description(name === 'approve' ? 'approve a pending request (as a human, for that one call)' : 'refuse a pending request')
      .option('--as <user>', 'who you are (default: the OS account)').option('--json', 'print JSON');
    if (name === 'approve') c.option('--always', 'also record a persistent approval (not for dangerous calls)');
    c.action(async (id: string, opts: { as?: string; always?: boolean; json?: boolean }, cmd: Command) => {
      const { answerApproval, getApproval } = await import('../../store/approvals.ts');
      const by = await actorName(opts.as);
      const result = await withStore(configOf(cmd), async (db) => {
        const row = await getApproval(db.db, id);
        if (!row) return null;
        return answerApproval(db.db, { id, call_hash: row.call_hash, answer: opts.always ? 'always' : answer, answered_by: by, origin: answerOrigin() });
      });
      if (!result) throw new CliError(`no approval request ${id}`, EXIT.failure);
      if (!result.ok) {
        const how = result.refusal === 'already_answered' && result.approval ? `: ${answeredBy(result.approval)}` : '';
        throw new CliError(`${id}: ${how ? result.reason.replace(/\.$/, '') : result.reason}${how}`, EXIT.failure);
      }
      if (opts.json) printJson(result.approval);
      else process.stdout.write(`${id}: ${result.approval.answer} by ${by}\n${describeRequest(result.approval).join('\n')}\n`);
    });
  }
}
