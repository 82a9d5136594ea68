import type { EffectLedger } from './effects.ts';
import { redactText } from '../util/redact.ts';
import { nextAttempt, type ToolExecutionContext } from './context.ts';
import { fail, type CallApproval, type ToolResult, type Tool } from './types.ts';
import { validateParams } from './validate.ts';

/** How long a tool gets after its AbortSignal fires before we stop waiting for it. */
export const HARD_STOP_GRACE_MS = 1_000;

const RETRYABLE = new Set(['internal', 'timeout']);

export interface ExecuteToolOptions {
  /** Cancels the whole call (run timeout, shutdown). */
  readonly signal?: AbortSignal;
  /** Where side-effecting tools record results; a replay returns the recorded one. */
  readonly ledger?: EffectLedger;
  /** The gate's decision for this call, passed on to the tool. */
  readonly approval?: CallApproval;
  readonly graceMs?: number;
}

/**
 * Validates, runs with the tool's timeout, and retries internal/timeout failures
 * up to maxRetries with the same idempotency key and attempt_index + 1.
 * Successes and effectful failures go to the ledger; a replay returns them.
 * Never throws: every failure is a ToolResult.
 */
export async function executeTool(
  tool: Tool, params: Record<string, unknown>, ctx: ToolExecutionContext, opts: ExecuteToolOptions = {},
): Promise<ToolResult> {
  const invalid = validateParams(tool.parameters, params);
  if (invalid) return fail('validation', `invalid arguments for ${tool.name}: ${invalid}`);
  // cancelled while the call waited (on the gate, the database): a listener added now would never fire
  if (opts.signal?.aborted) return fail('timeout', `${tool.name} was not started: its run was cancelled (${errorText(opts.signal.reason)})`);
  const sideEffects = tool.riskLevel !== 'read_only' && opts.ledger !== undefined;
  if (sideEffects && ctx.is_replay) {
    const recorded = await opts.ledger!.recall(ctx.idempotency_key);
    if (recorded) return recorded;
  }
  let attemptCtx = ctx;
  let result = await runOnce(tool, params, attemptCtx, opts);
  // an effectful failure is not retried: the effect already (partly) happened
  for (let retry = 0; retry < tool.maxRetries && !result.success && !result.effectful && RETRYABLE.has(result.errorKind ?? '') && !opts.signal?.aborted; retry++) {
    attemptCtx = nextAttempt(attemptCtx);
    result = await runOnce(tool, params, attemptCtx, opts);
  }
  if (sideEffects && (result.success || result.effectful)) await opts.ledger!.remember(ctx.idempotency_key, tool.name, result);
  return result;
}

async function runOnce(tool: Tool, params: Record<string, unknown>, ctx: ToolExecutionContext, opts: ExecuteToolOptions): Promise<ToolResult> {
  const controller = new AbortController();
  const timeoutMs = tool.timeoutSeconds * 1000;
  const grace = opts.graceMs ?? HARD_STOP_GRACE_MS;
  let timer: NodeJS.Timeout | undefined;
  let hardStop: NodeJS.Timeout | undefined;
  // one listener on the run's signal, removed when the call ends: a run makes many calls on one signal
  let onOuterAbort: (() => void) | undefined;
  // The signal asks the tool to stop; the hard stop stops waiting if it does not.
  const stopped = new Promise<ToolResult>((resolve) => {
    // a tool that did not stop may still do its effect: never retried, and recorded so a replay does not repeat it
    const hard = (why: string) => {
      hardStop = setTimeout(() => resolve(tool.riskLevel === 'read_only' ? fail('timeout', why)
        : { ...fail('timeout', `${why}; it did not stop within ${grace} ms, so what it does may still happen`), effectful: true }), grace);
    };
    timer = setTimeout(() => {
      controller.abort(new Error('timeout'));
      hard(`${tool.name} timed out after ${tool.timeoutSeconds}s`);
    }, timeoutMs);
    if (opts.signal?.aborted) {
      controller.abort(opts.signal.reason);
      hard(`${tool.name} was cancelled`);
    } else {
      onOuterAbort = () => {
        controller.abort(opts.signal?.reason);
        hard(`${tool.name} was cancelled`);
      };
      opts.signal?.addEventListener('abort', onOuterAbort, { once: true });
    }
  });
  try {
    const run = tool.execute(params, ctx, { signal: controller.signal, ...(opts.approval ? { approval: opts.approval } : {}) }).then(
      // an effect that happened before the stop stays recorded as one, so a replay does not repeat it
      (r) => (controller.signal.aborted && !r.success && r.errorKind !== 'timeout'
        ? { ...fail('timeout', `${tool.name} stopped after its deadline: ${r.error ?? ''}`.trim()), ...(r.effectful ? { effectful: true as const } : {}) }
        : r),
      (err: unknown) => {
        if (controller.signal.aborted) return fail('timeout', redactText(`${tool.name} failed: ${errorText(err)}`));
        const db = databaseCause(err);
        // text the database cannot store (NUL) is the caller's to fix, not a failure worth a retry
        if (db && UNSTORABLE_TEXT.has(db.code)) return fail('validation', `${tool.name}: an argument holds a character the database cannot store (such as NUL)`);
        return fail('internal', redactText(`${tool.name} failed: ${db ? `database error: ${db.message}` : errorText(err)}`));
      },
    );
    return await Promise.race([run, stopped]);
  } finally {
    clearTimeout(timer);
    clearTimeout(hardStop);
    if (onOuterAbort) opts.signal?.removeEventListener('abort', onOuterAbort);
  }
}

function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/** untranslatable_character, character_not_in_repertoire: e.g. "\u0000 cannot be converted to text". */
const UNSTORABLE_TEXT = new Set(['22P05', '22021']);

/**
 * The PostgreSQL error behind a failure, if any. drizzle wraps it in an error whose message quotes the
 * whole statement and its parameters, which is no text for a model or a run's output.
 */
function databaseCause(err: unknown): { code: string; message: string } | null {
  let e: unknown = err;
  for (let depth = 0; e instanceof Error && depth < 3; depth++, e = e.cause) {
    // pg's DatabaseError carries the server's severity; a Node errno (EPERM, EROFS) is five capitals too
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code) && typeof (e as { severity?: unknown }).severity === 'string') return { code, message: e.message };
    if (e.name !== 'DrizzleQueryError' && !('query' in e)) return null;
  }
  return null;
}
