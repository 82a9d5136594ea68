import { createInterface } from 'node:readline/promises';
import type { ApprovalAnswer, ApprovalRequest, HumanApprover } from './ports.ts';

export interface TtyApproverOptions {
  readonly input: NodeJS.ReadableStream;
  readonly output: NodeJS.WritableStream;
  /** The person answering (the OS account at the terminal). */
  readonly approver: string;
  /** Persists the request before asking and records the answer, bound to id + call hash. */
  readonly persist: {
    create(req: ApprovalRequest): Promise<void>;
    answer(req: ApprovalRequest, answer: 'once' | 'always' | 'deny', by: string): Promise<boolean>;
    /** Nobody answered here in time (or the session ended): a late answer elsewhere must be refused. */
    expire(req: ApprovalRequest): Promise<void>;
  };
  /** Extra lines shown before the question (e.g. what a job may do). */
  readonly describe?: (req: ApprovalRequest) => Promise<string[]> | string[];
}

/** Step 11 on a terminal: shows the call and its guard findings, asks once / always / deny. */
export function ttyApprover(opts: TtyApproverOptions): HumanApprover {
  return {
    async ask(req: ApprovalRequest, signal: AbortSignal): Promise<ApprovalAnswer> {
      await opts.persist.create(req);
      const lines = [
        '',
        `Approval needed (${req.request_id}): ${req.tool}  [risk ${req.risk}]`,
        `  arguments: ${JSON.stringify(req.args, null, 2).split('\n').join('\n  ')}`,
        ...req.flags.map((f) => `  guard: ${f.rule}: ${f.reason} (${f.matched})`),
        ...(await (opts.describe?.(req) ?? [])),
        ...(req.allow_always ? [`  "always" would also allow, from now on, every ${req.tool} call of: ${req.scopes.join(', ')}`] : []),
        `  expires: ${req.expires_at.toISOString()}`,
      ];
      opts.output.write(`${lines.join('\n')}\n`);
      const choices = req.allow_always ? '[o]nce / [a]lways / [d]eny' : '[y]es once / [N]o';
      const rl = createInterface({ input: opts.input, output: opts.output, terminal: false });
      try {
        const raw = (await rl.question(`Allow? ${choices}: `, { signal })).trim().toLowerCase();
        const answer = raw === 'a' || raw === 'always' ? (req.allow_always ? 'always' : 'deny')
          : raw === 'o' || raw === 'once' || raw === 'y' || raw === 'yes' ? 'once' : 'deny';
        const recorded = await opts.persist.answer(req, answer, opts.approver);
        if (!recorded) return { answer: 'timeout' };
        return { answer, approver: opts.approver, request_id: req.request_id, call_hash: req.call_hash };
      } catch {
        await opts.persist.expire(req).catch(() => {});
        return { answer: 'timeout' };
      } finally {
        rl.close();
      }
    },
  };
}
