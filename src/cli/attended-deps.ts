import { printable } from '../util/printable.ts';
import { setTimeout as sleep } from 'node:timers/promises';
import type { HumanApprover } from '../approval/ports.ts';
import type { Config } from '../config/schema.ts';
import type { Database } from '../store/db.ts';
import type { ApprovalRow, JobRow } from '../store/schema.ts';
import { pairSafeEnd } from '../tools/spill.ts';
import type { ToolRegistry } from '../tools/registry.ts';
import { resolve } from 'node:path';
import { configFileOf } from './config-option.ts';
import { answerOrigin } from './store-session.ts';

/** How often a prompt on the terminal looks for an answer given in another shell. */
const ELSEWHERE_POLL_MS = 500;

/** What the waiting line shows of the call's arguments: enough to tell two requests apart; `approvals show` has the rest. */
const ARGS_SHOWN_CHARS = 160;

/**
 * The human approver for a CLI session: a terminal prompt when the session's channel is `cli` and the
 * person can both read the prompt and answer it (stdin and stderr are terminals); otherwise the request
 * waits in the database for `echo-agent approvals approve` (SPEC §5 step 11: other channels answer
 * through the approvals CLI). Both persist the request first.
 */
export async function cliApprover(database: Database, config: Config, tools: ToolRegistry, actor: string, opts: { readonly channel?: string; readonly json?: boolean } = {}): Promise<HumanApprover> {
  const { storeApprover } = await import('../store/approver.ts');
  const toolScope = (req: ScopedCall) => grantScopeOf(database, config, tools, req);
  // a prompt on a redirected stderr would leave the person waiting blind
  const atTerminal = (opts.channel ?? 'cli') === 'cli' && process.stdin.isTTY && process.stderr.isTTY;
  if (!atTerminal) {
    const cli = approvalsCommand(config);
    return storeApprover(database.db, {
      toolScope,
      onPending: (row, code) => process.stderr.write(
        // --json: the request's id as a JSON line first, for a script (never the code: that is for the person told below)
        (opts.json ? `${JSON.stringify({ approval_pending: { id: row.id, tool: row.tool, expires_at: row.expires_at.toISOString() } })}\n` : '')
        + `approval ${row.id} is waiting (expires ${row.expires_at.toISOString()}): ${waitingCall(row)}\n`
        + `  run  ${cli} show ${row.id}  to see all of it, then  ${cli} approve ${row.id}  or  ${cli} deny ${row.id}\n`
        + `  and give it this code when asked: ${code}\n`
        + `  (shown only here, and typed at that prompt, never on a command line: the tools this session runs cannot answer without it)\n`,
      ),
    });
  }
  return terminalApprover(database, config, tools, actor, { input: process.stdin, output: process.stderr });
}

/**
 * The prompt on a terminal (`input`, `output`): the request is persisted first, answered here or by `approvals approve`
 * in another shell, whichever is recorded first. `typeAheadMs`: how long keys typed before the question are ignored.
 */
export async function terminalApprover(
  database: Pick<Database, 'db'>, config: Config, tools: ToolRegistry, actor: string,
  io: { readonly input: NodeJS.ReadableStream; readonly output: NodeJS.WritableStream; readonly typeAheadMs?: number },
): Promise<HumanApprover> {
  const [{ createApproval, answerApproval, endWait, getApproval }, { recordedAnswer, approvalRecordOf }, { ttyApprover }, { describeJobCall }, { newAnswerCode }] = await Promise.all([
    import('../store/approvals.ts'), import('../store/approver.ts'), import('../session/tty-approver.ts'), import('../session/job-preview.ts'), import('../store/answer-code.ts'),
  ]);
  const toolScope = (req: ScopedCall) => grantScopeOf(database, config, tools, req);
  // each request's code lives in this process only: answers given with it are the ones this session accepts
  const codes = new Map<string, string>();
  const codeOf = (req: { request_id: string }) => codes.get(req.request_id) ?? null;
  const cli = approvalsCommand(config);
  return ttyApprover({
    input: io.input, output: io.output, approver: actor, ...(io.typeAheadMs !== undefined ? { typeAheadMs: io.typeAheadMs } : {}),
    describe: async (req) => (req.tool === 'cronjob' ? describeJobCall(config, tools, { ...req.args }, await storedJob(database, req.args)) : []),
    persist: {
      async create(req) {
        const code = newAnswerCode();
        codes.set(req.request_id, code.text);
        await createApproval(database.db, approvalRecordOf(req, await toolScope(req), code));
        return [`  or answer from another shell:  ${cli} approve ${req.request_id}  (or deny), giving this code when asked: ${code.text}`];
      },
      async answer(req, answer, by) {
        const code = codeOf(req) ?? undefined;
        return (await answerApproval(database.db, { id: req.request_id, call_hash: req.call_hash, answer, answered_by: by, origin: answerOrigin(), ...(code ? { code } : {}) })).ok;
      },
      async settle(req, ending) {
        const row = await endWait(database.db, req.request_id, ending);
        const answer = row && recordedAnswer(row, codeOf(req));
        codes.delete(req.request_id);
        return answer;
      },
      async answeredElsewhere(req, signal) {
        while (!signal.aborted) {
          const row = await getApproval(database.db, req.request_id);
          const answer = row && recordedAnswer(row, codeOf(req));
          if (answer) return answer;
          if (!row || row.state !== 'pending') return null;
          // ends early on abort, and leaves no listener behind on the signal
          await sleep(ELSEWHERE_POLL_MS, undefined, { signal }).catch(() => {});
        }
        return null;
      },
    },
  });
}

/** Which call waits, in one line: its tool, risk, arguments (stored redacted, I11) and the guard's flags. */
export function waitingCall(row: Pick<ApprovalRow, 'tool' | 'risk' | 'args' | 'flags'>): string {
  const args = JSON.stringify(row.args);
  const shown = args.length > ARGS_SHOWN_CHARS ? `${args.slice(0, pairSafeEnd(args, ARGS_SHOWN_CHARS))}…` : args;
  const flags = (row.flags as { rule?: string }[]).flatMap((f) => (f.rule ? [f.rule] : []));
  // JSON escapes ESC but not C1 controls or bidi overrides: the line is made printable as a whole
  return printable(`${row.tool} [risk ${row.risk}] ${shown}${flags.length > 0 ? ` (flagged: ${flags.join(', ')})` : ''}`);
}

type ScopedCall = { readonly tool: string; readonly args: Readonly<Record<string, unknown>> };

/** What a cronjob call's grant would cover, from this process's configuration: the prompt lists the same tools. */
async function grantScopeOf(database: Pick<Database, 'db'>, config: Config, tools: ToolRegistry, req: ScopedCall): Promise<string[] | null> {
  if (req.tool !== 'cronjob') return null;
  const { jobToolScope } = await import('../session/job-preview.ts');
  return jobToolScope(config, tools, { ...req.args }, await storedJob(database, req.args));
}

/** The job an update call names, as stored now: what the person is really asked to authorise. */
export async function storedJob(database: Pick<Database, 'db'>, args: Readonly<Record<string, unknown>>): Promise<JobRow | null> {
  if (args.action !== 'update' || typeof args.id !== 'string') return null;
  const { getJob } = await import('../store/jobs.ts');
  return getJob(database.db, args.id);
}

/** The approvals command another shell types: the answer must go to this database, and that shell may not have this one's ECHO_AGENT_CONFIG. */
function approvalsCommand(config: Config): string {
  const file = configFileOf(config);
  return `echo-agent${file ? ` --config ${shellQuoted(resolve(file))}` : ''} approvals`;
}

/** A path as one shell word: quoted only when it needs to be. */
function shellQuoted(p: string): string {
  return /^[\w@%+=:,./-]+$/.test(p) ? p : `'${p.replace(/'/g, `'\\''`)}'`;
}
