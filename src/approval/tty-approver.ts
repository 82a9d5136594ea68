import { createInterface } from 'node:readline/promises';
import type { ApprovalAnswer, ApprovalRequest, GivenAnswer, HumanApprover } from './ports.ts';

export interface TtyApproverOptions {
  readonly input: NodeJS.ReadableStream;
  readonly output: NodeJS.WritableStream;
  /** The person answering (the OS account at the terminal). */
  readonly approver: string;
  /** Persists the request before asking and records the answer, bound to id + call hash. */
  readonly persist: {
    create(req: ApprovalRequest): Promise<void>;
    answer(req: ApprovalRequest, answer: 'once' | 'always' | 'deny', by: string): Promise<boolean>;
    /**
     * The wait is over (no answer here in time, the session ended): expires the request so a late
     * answer elsewhere is refused, and returns the answer it holds if one was recorded first.
     */
    settle(req: ApprovalRequest): Promise<GivenAnswer | null>;
    /** Settles once someone answered the stored request elsewhere (`approvals approve`); null when `signal` aborts first. */
    answeredElsewhere(req: ApprovalRequest, signal: AbortSignal): Promise<GivenAnswer | null>;
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
      const local = new AbortController();
      const stop = () => local.abort();
      if (signal.aborted) stop();
      else signal.addEventListener('abort', stop, { once: true });
      const settled = async (): Promise<ApprovalAnswer> => (await opts.persist.settle(req).catch(() => null)) ?? { answer: 'timeout' };
      try {
        // the request is in the store: whoever answers first, here or in another shell, decides
        // a watch that ends without an answer (or fails) leaves the prompt to decide
        const elsewhere = opts.persist.answeredElsewhere(req, local.signal).then((a) => (a ? { elsewhere: a } : new Promise<never>(() => {})), () => new Promise<never>(() => {}));
        const typed = rl.question(`Allow? ${choices}: `, { signal: local.signal }).then((raw) => ({ raw }));
        typed.catch(() => {}); // aborted once the other side won: nobody waits for it then
        const first = await Promise.race([typed, elsewhere]);
        if ('elsewhere' in first) {
          opts.output.write(`\nanswered elsewhere: ${first.elsewhere.answer} by ${first.elsewhere.approver}\n`);
          return first.elsewhere;
        }
        const raw = first.raw.trim().toLowerCase();
        const answer = raw === 'a' || raw === 'always' ? (req.allow_always ? 'always' : 'deny')
          : raw === 'o' || raw === 'once' || raw === 'y' || raw === 'yes' ? 'once' : 'deny';
        if (await opts.persist.answer(req, answer, opts.approver)) return { answer, approver: opts.approver, request_id: req.request_id, call_hash: req.call_hash };
        // answered elsewhere a moment before, or expired: what the store holds is what happened
        const stored = await settled();
        if ('request_id' in stored) opts.output.write(`answered elsewhere first: ${stored.answer} by ${stored.approver}\n`);
        return stored;
      } catch {
        return await settled();
      } finally {
        signal.removeEventListener('abort', stop);
        local.abort();
        rl.close();
      }
    },
  };
}
