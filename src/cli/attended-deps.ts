import { setTimeout as sleep } from 'node:timers/promises';
import type { HumanApprover } from '../approval/ports.ts';
import type { Config } from '../config/schema.ts';
import type { Database } from '../store/db.ts';
import type { JobRow } from '../store/schema.ts';
import type { ToolRegistry } from '../tools/registry.ts';
import { resolve } from 'node:path';
import { configFileOf } from './config-option.ts';
import { answerOrigin } from './store-session.ts';

/** How often a prompt on the terminal looks for an answer given in another shell. */
const ELSEWHERE_POLL_MS = 500;

/**
 * The human approver for a CLI session: a terminal prompt when there is one;
 * otherwise the request waits in the database for `echo-agent approvals approve`.
 * Both persist the request first.
 */
export async function cliApprover(database: Database, config: Config, tools: ToolRegistry, actor: string): Promise<HumanApprover> {
  const [{ createApproval, answerApproval, expireApproval, getApproval }, { storeApprover, recordedAnswer, approvalRecordOf }, { ttyApprover }, { describeJobCall, jobToolScope }] = await Promise.all([
    import('../store/approvals.ts'), import('../store/approver.ts'), import('../approval/tty-approver.ts'), import('../session/job-preview.ts'),
  ]);
  // what the prompt lists is what the grant covers: both come from this process's configuration
  const toolScope = async (req: { tool: string; args: Readonly<Record<string, unknown>> }) =>
    (req.tool === 'cronjob' ? jobToolScope(config, tools, { ...req.args }, await storedJob(database, req.args)) : null);
  if (!process.stdin.isTTY) {
    // the answer must go to this database: another shell may not have the ECHO_AGENT_CONFIG this one has
    const file = configFileOf(config);
    const cli = `echo-agent${file ? ` --config ${shellQuoted(resolve(file))}` : ''} approvals`;
    return storeApprover(database.db, {
      toolScope,
      onPending: (row) => process.stderr.write(
        `approval ${row.id} is waiting (expires ${row.expires_at.toISOString()}): run  ${cli} approve ${row.id}  or  ${cli} deny ${row.id}\n`,
      ),
    });
  }
  return ttyApprover({
    input: process.stdin, output: process.stderr, approver: actor,
    describe: async (req) => (req.tool === 'cronjob' ? describeJobCall(config, tools, { ...req.args }, await storedJob(database, req.args)) : []),
    persist: {
      async create(req) {
        await createApproval(database.db, approvalRecordOf(req, await toolScope(req)));
      },
      async answer(req, answer, by) {
        return (await answerApproval(database.db, { id: req.request_id, call_hash: req.call_hash, answer, answered_by: by, origin: answerOrigin() })).ok;
      },
      async settle(req) {
        const row = await expireApproval(database.db, req.request_id);
        return row && recordedAnswer(row);
      },
      async answeredElsewhere(req, signal) {
        while (!signal.aborted) {
          const row = await getApproval(database.db, req.request_id);
          const answer = row && recordedAnswer(row);
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

/** The job an update call names, as stored now: what the person is really asked to authorise. */
export async function storedJob(database: Database, args: Readonly<Record<string, unknown>>): Promise<JobRow | null> {
  if (args.action !== 'update' || typeof args.id !== 'string') return null;
  const { getJob } = await import('../store/jobs.ts');
  return getJob(database.db, args.id);
}

/** A path as one shell word: quoted only when it needs to be. */
function shellQuoted(p: string): string {
  return /^[\w@%+=:,./-]+$/.test(p) ? p : `'${p.replace(/'/g, `'\\''`)}'`;
}
