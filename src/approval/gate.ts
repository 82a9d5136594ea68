import type { Config } from '../config/schema.ts';
import type { Guard, GuardVerdict } from '../guard/types.ts';
import { classifyRisk } from '../policy/classify-risk.ts';
import { isElevated, needsElevation } from '../policy/elevation.ts';
import { removalReason, removalRule, securityFor, selectionFrom, type ToolFacts } from '../policy/effective-tools.ts';
import { ruleReason, type RuleId } from '../policy/rules.ts';
import type { SecurityProfile } from '../policy/security-profiles.ts';
import type { ToolExecutionContext } from '../tools/context.ts';
import { canonicalJson, sha256 } from '../util/canonical-json.ts';
import { allow, deny, wouldAsk, type Decision, type DecisionBase } from './decision.ts';
import type { AllowlistStore, Clock, HumanApprover, RunGrant, SmartReviewer } from './ports.ts';
import { alwaysOffer, approvalScopes } from './scopes.ts';
import { askHuman } from './human-step.ts';
import { askSmartReviewer } from './smart-step.ts';
import { hiddenFromReviewer } from './unshowable.ts';
import { unattendedVerdict } from './unattended-step.ts';

export interface ToolCall {
  readonly tool: string;
  readonly args: Readonly<Record<string, unknown>>;
}

/** Every decision goes here (I8); the store's audit writer implements it. */
export interface DecisionSink {
  record(decision: Decision, call: ToolCall, ctx: ToolExecutionContext): Promise<void>;
}

export interface GateDeps {
  readonly guard: Guard;
  readonly allowlist: AllowlistStore;
  /** The tools that exist in this process: catalog rows or live Tool objects. */
  readonly lookupTool: (name: string) => ToolFacts | undefined;
  readonly smartReviewer?: SmartReviewer | null;
  readonly humanApprover?: HumanApprover | null;
  /** Waits of steps 10 and 11, and when a request expires. */
  readonly clock: Clock;
  readonly sink?: DecisionSink | null;
  /** A new approval request's id. */
  readonly newId: () => string;
  /** The daemon: the run's grant, asked before a call relies on cron_authorized. */
  readonly grant?: RunGrant;
}

export interface GateOptions {
  /**
   * Pins the security profile (tests of one profile). Left out, as every caller in src does, it is
   * securityFor(config, ctx): max(config, daemon) for an unattended call (I4), as the offered set is.
   */
  readonly securityProfile?: SecurityProfile;
  /** `check call`: report that a step would ask instead of asking (never waits). */
  readonly dryRun?: boolean;
}

export interface ApprovalGate {
  /** `signal`: the session or run was stopped; a person still being asked stops being asked. */
  check(call: ToolCall, ctx: ToolExecutionContext, opts?: { readonly signal?: AbortSignal }): Promise<Decision>;
  /**
   * Step 0 for a call that goes no further (its arguments are invalid, or it is over a per-response limit),
   * recorded as every decision is (I8). A tool not offered here is refused as such whatever its arguments (I10).
   */
  refuseBeforeSteps(call: ToolCall, ctx: ToolExecutionContext, refusal: StepZeroRefusal): Promise<Decision>;
}

/** Why a call never reached the steps; the caller can put it right, so the reason carries no "do not retry". */
export interface StepZeroRefusal {
  readonly rule: typeof ARGS_INVALID | typeof OVER_CALL_LIMIT;
  readonly reason: string;
}

export const ARGS_INVALID = 'args.invalid' satisfies RuleId;
export const OVER_CALL_LIMIT = 'model.max_tool_calls_per_turn' satisfies RuleId;

export function callHash(call: ToolCall, ctx: ToolExecutionContext): string {
  return sha256(canonicalJson({ tool: call.tool, args: call.args, execution_id: ctx.execution_id, key: ctx.idempotency_key }));
}

export function createApprovalGate(config: Config, deps: GateDeps, opts: GateOptions = {}): ApprovalGate {
  return {
    async check(call, ctx, callOpts = {}) {
      const decision = await decideCall(call, ctx, config, deps, opts, callOpts.signal);
      await deps.sink?.record(decision, call, ctx);
      return decision;
    },
    async refuseBeforeSteps(call, ctx, refusal) {
      const zero = stepZero(call, ctx, config, deps, opts);
      const refused = zero.refused ?? { ...zero.pre, outcome: 'deny', step: 0, rule: refusal.rule, reason: refusal.reason };
      await deps.sink?.record(refused, call, ctx);
      return refused;
    },
  };
}

interface StepZero {
  readonly facts: ToolFacts | undefined;
  /** What every decision of this call carries; a name the gate does not know gets the strictest risk. */
  readonly pre: DecisionBase;
  readonly refused: Decision | null;
}

/** Step 0 (I10): a tool that is not offered is refused too. */
function stepZero(call: ToolCall, ctx: ToolExecutionContext, config: Config, deps: GateDeps, opts: GateOptions): StepZero {
  const facts = deps.lookupTool(call.tool);
  const pre: DecisionBase = { tool: call.tool, call_hash: callHash(call, ctx), risk: facts ? classifyRisk(facts, call.args) : 'dangerous', flagged: [] };
  if (!facts) return { facts, pre, refused: deny(pre, 0, 'tools.unknown', `No tool named "${call.tool}" exists.`) };
  const removed = removalRule(facts, selectionFrom(config, { security: opts.securityProfile ?? securityFor(config, ctx), allowedTools: ctx.allowed_tools }));
  return { facts, pre, refused: removed ? deny(pre, 0, removed, `The tool "${call.tool}" is not available here: ${removalReason(removed, facts)}`) : null };
}

/** SPEC §5, step by step; the first step that decides wins. */
async function decideCall(call: ToolCall, ctx: ToolExecutionContext, config: Config, deps: GateDeps, opts: GateOptions, signal?: AbortSignal): Promise<Decision> {
  const approval = config.permissions.approval;
  const zero = stepZero(call, ctx, config, deps, opts);
  if (zero.refused) return zero.refused;
  const facts = zero.facts!;
  const pre = zero.pre;

  // Step 1: static guard.
  const verdict: GuardVerdict = await deps.guard.inspect(call, ctx);
  const hard = verdict.findings.find((f) => f.severity === 'deny');
  // every finding goes on the record, with the one that refused the call
  if (hard) return deny({ ...pre, flagged: verdict.findings }, 1, hard.rule, `${hard.reason} (matched: ${hard.matched}).`);
  const flagged = verdict.findings;
  const isFlagged = flagged.length > 0;

  // Step 2: elevation.
  if (needsElevation(call.tool, config.tools.exec)
    && !isElevated(ctx, { ...config.permissions.elevated, admin_users: config.permissions.admin_users })) {
    return deny({ ...pre, flagged }, 2, 'elevation.required');
  }

  // Step 3: risk.
  const risk = classifyRisk(facts, call.args);
  const base: DecisionBase = { ...pre, risk, flagged };

  // Step 4: unattended; every unattended call ends here (I12).
  if (ctx.unattended) {
    const v = await unattendedVerdict({
      risk, flagged: isFlagged, cronAuthorized: ctx.cron_authorized, policy: approval.unattended_policy, writeScope: () => deps.guard.writeScope(call),
      ...(deps.grant ? { grantInForce: () => deps.grant!.inForce(), coveredByGrant: deps.grant.covers(call.tool) } : {}),
    });
    const grant = v.grantJudged && deps.grant?.id ? { grant_id: deps.grant.id } : {};
    if (v.outcome === 'allow') return allow(base, 4, v.rule, 'auto', grant);
    return v.rule === 'unattended.flagged'
      ? deny(base, 4, v.rule, `A flagged call cannot run unattended because nobody can approve it: ${flagged.map((f) => f.rule).join(', ')}.`)
      : deny(base, 4, v.rule, undefined, grant);
  }

  // Step 5: attended low risk.
  if ((risk === 'read_only' || risk === 'write') && !isFlagged) return allow(base, 5, 'attended.low_risk', 'auto');

  const dangerous = risk === 'dangerous';
  const nested = ctx.parent_execution_id !== null;
  const scopes = approvalScopes(call.tool, verdict);
  // Standing policies never pass a flagged call: a soft block always gets a fresh look.
  const policyMayPass = !dangerous && !isFlagged;

  if (approval.mode !== 'strict') {
    if (policyMayPass && approval.auto_approve.includes(call.tool)) return allow(base, 6, 'approval.auto_approve', 'auto');
    if (policyMayPass && approval.cli_auto_approve && ctx.channel === 'cli' && !nested) return allow(base, 7, 'approval.cli_auto_approve', 'auto');
    if (policyMayPass && risk === 'exec' && approval.trusted_channels.includes(ctx.channel)) return allow(base, 8, 'approval.trusted_channel', 'auto');
    if (policyMayPass && scopes.length > 0) {
      const records = await Promise.all(scopes.map((s) => deps.allowlist.find(call.tool, s)));
      if (records.every((r) => r !== null)) return allow(base, 9, 'approval.allowlist', 'auto', { approval_id: records[0]!.id, approver: records[0]!.created_by });
    }
    if (approval.mode === 'off' && policyMayPass) return allow(base, 10, 'approval.mode_off', 'auto');
  }
  // steps 10 and 11 show the call with credentials cut out: a reviewer must not approve text hidden as one
  const unseen = hiddenFromReviewer(call.args, Object.values(ctx.credentials ?? {}));
  if (approval.mode !== 'strict') {
    if (approval.mode === 'smart' && !dangerous && deps.smartReviewer && unseen === null) {
      if (opts.dryRun) return wouldAsk(base, 10, 'approval.would_ask_smart');
      const smart = await askSmartReviewer(deps.smartReviewer, call, base, approval.smart_timeout_seconds * 1000, deps.clock);
      if (smart === 'APPROVE') return allow(base, 10, 'approval.smart.approve', 'auto');
      if (smart === 'DENY') return deny(base, 10, 'approval.smart.deny');
    }
  }

  // Step 11: a human, or nobody.
  if (nested) return deny(base, 11, 'approval.nested');
  if (unseen !== null) return deny(base, 11, 'approval.unshowable', `${ruleReason('approval.unshowable')} Hidden: ${unseen}.`);
  if (opts.dryRun) return wouldAsk(base, 11, 'approval.would_ask');
  return askHuman({
    call, ctx, base, scopes, allowAlways: alwaysOffer(risk, flagged, scopes).offered,
    approver: deps.humanApprover ?? null, allowlist: deps.allowlist,
    clock: deps.clock, timeoutMs: approval.wait_timeout_seconds * 1000,
    requestId: deps.newId(),
    ...(signal ? { signal } : {}),
  });
}
