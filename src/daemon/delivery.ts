import type { Config } from '../config/schema.ts';
import type { AuditAppend } from '../store/audit-writer.ts';
import type { JobRow, RunRow } from '../store/schema.ts';
import { postToTarget } from '../tools/catalog/notify.ts';
import type { NetDeps } from '../tools/net-deps.ts';
import { redact, redactText } from '../util/redact.ts';
import { linkedSignal } from '../util/linked-signal.ts';
import type { PayloadOutcome } from './payload.ts';

/** Every outcome of a delivery, with the sentence shown to people. */
export const DELIVERY_RULES = {
  'delivery.posting': 'The run\'s outcome is being posted to the job\'s delivery target; a record of how it went follows, and its absence means the post may or may not have arrived.',
  'delivery.sent': 'The run\'s outcome was posted to the job\'s delivery target.',
  'delivery.failed': 'Posting the run\'s outcome to the job\'s delivery target failed; the run\'s own state stands.',
  'delivery.not_authorized': 'Only a run under a live human grant delivers its outcome; the grant covers the delivery target, and this run had none.',
  'delivery.shutdown': 'The daemon was stopping, so the run\'s outcome was not posted; the run\'s own state stands.',
} as const;

export type DeliveryRule = keyof typeof DELIVERY_RULES;

/** How a delivery went: the target's name (never its URL or headers) and, for a failure, why. */
export interface DeliveryResult {
  readonly rule: DeliveryRule;
  readonly target: string;
  readonly reason: string | null;
}

/** How long one delivery may take; it runs after the run's state is final, so it never holds the run. */
const DELIVERY_TIMEOUT_MS = 15_000;
const FINAL_TEXT_MAX = 4_000;

export interface DeliveryDeps {
  readonly config: Config;
  readonly audit: AuditAppend;
  readonly net?: NetDeps;
}

/** What the target receives: which job and run, how it ended, and a short, redacted account of it. */
export function deliveryBody(job: JobRow, run: RunRow, outcome: PayloadOutcome): Record<string, unknown> {
  const output = outcome.output as { steps?: { tool: string; decision: { outcome: string; rule: string }; result?: { success: boolean } }[]; agent?: { status?: string; final?: string | null } };
  const summary = output.agent
    ? { kind: 'agent', status: output.agent.status ?? null, final: (output.agent.final ?? '').slice(0, FINAL_TEXT_MAX) }
    : { kind: 'steps', steps: (output.steps ?? []).map((s) => ({ tool: s.tool, decision: s.decision.outcome, rule: s.decision.rule, success: s.result?.success ?? null })) };
  return redact({
    job: { id: job.id, name: job.name },
    run: { id: run.id, state: run.state, trigger: run.trigger, nominal_at: run.nominal_at, attempt: run.attempt, denials: run.denials, error: run.error },
    summary,
  });
}

/**
 * Sends a finished run's outcome to `delivery.notify`, through the guarded
 * fetch, and records what happened. Only under a live human grant: the
 * target is part of the definition the human approved (I2).
 */
export async function deliverOutcome(deps: DeliveryDeps, job: JobRow, run: RunRow, outcome: PayloadOutcome, cronAuthorized: boolean, shutdown?: AbortSignal): Promise<DeliveryResult | null> {
  const target = (job.delivery as { notify?: string } | null)?.notify;
  if (!target) return null;
  const result = (rule: DeliveryRule, reason: string | null = null): DeliveryResult => ({ rule, target, reason });
  const record = (rule: DeliveryRule, detail?: string) => deps.audit({
    kind: 'run.delivery', actor: 'daemon', job_id: job.id, run_id: run.id, outcome: rule.slice('delivery.'.length), rule,
    reason: detail ? `${DELIVERY_RULES[rule]} ${detail}` : DELIVERY_RULES[rule], data: { target, state: run.state },
  });
  if (!cronAuthorized) {
    await record('delivery.not_authorized');
    return result('delivery.not_authorized', DELIVERY_RULES['delivery.not_authorized']);
  }
  // stopping: a post would be cut off at once, and recorded as a failure it was not
  if (shutdown?.aborted) {
    await record('delivery.shutdown');
    return result('delivery.shutdown', DELIVERY_RULES['delivery.shutdown']);
  }
  // recorded before the effect, like every other step: a crash mid-post leaves this line, not silence
  await record('delivery.posting');
  const limit = linkedSignal([shutdown], DELIVERY_TIMEOUT_MS);
  const sent = await postToTarget(deps.config, 'delivery', target, deliveryBody(job, run, outcome), limit.signal, deps.net ?? {}).finally(limit.dispose);
  const rule: DeliveryRule = sent.success ? 'delivery.sent' : 'delivery.failed';
  const why = sent.success ? null : withoutTargetSecrets(sent.error ?? sent.errorKind ?? 'unknown error', deps.config.notify.targets[target]);
  await record(rule, why ?? undefined);
  return result(rule, why);
}

/**
 * A failure's text as logged and audited: redacted, and with the target's URL, its userinfo and its header
 * values cut out, whatever a lower layer's message quoted (I11).
 */
function withoutTargetSecrets(text: string, t: { url: string; headers: Record<string, string> } | undefined): string {
  if (!t) return redactText(text);
  const parts: string[] = [t.url, ...Object.values(t.headers)];
  try {
    const u = new URL(t.url);
    parts.push(u.href, decodeURIComponent(u.password), u.password, u.search.length > 1 ? u.search : '', u.pathname.length > 1 ? u.pathname : '');
  } catch { /* the config checked the URL; nothing more to cut */ }
  // longest first, so no part leaves a piece of another; short ones would cut ordinary words
  const cut = parts.filter((p) => p.length >= 4).sort((a, b) => b.length - a.length).reduce((out, p) => out.split(p).join('[REDACTED]'), text);
  return redactText(cut);
}
