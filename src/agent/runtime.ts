import type { Logger } from 'pino';
import { createApprovalGate, type ApprovalGate, type DecisionSink } from '../approval/gate.ts';
import type { HumanApprover, RunGrant, SmartReviewer } from '../approval/ports.ts';
import type { Config } from '../config/schema.ts';
import type { Capability } from '../policy/capabilities.ts';
import { writesFiles } from '../guard/index.ts';
import type { Guard } from '../guard/types.ts';
import { friendliestVerdict } from '../approval/unattended-step.ts';
import { effectiveTools, selectionFor, type OfferedTool } from '../policy/effective-tools.ts';
import { allowlistStore } from '../store/allowlist.ts';
import type { Executor } from '../store/db.ts';
import type { AuditAppend } from '../store/audit-writer.ts';
import { auditDecisionSink } from '../store/decision-sink.ts';
import { gatedCall } from '../session/gated-call.ts';
import { pgSpillStore } from '../store/spills.ts';
import { contextForCall, runTrace, type ToolExecutionContext } from '../tools/context.ts';
import type { EffectLedger } from '../tools/effects.ts';
import type { ToolRegistry } from '../tools/registry.ts';
import { runAgentLoop, type RunSpending, type AgentOutcome } from './loop.ts';
import type { ChatClient, OfferedFunction } from './model-client.ts';
import { systemPrompt } from './system-prompt.ts';
import { systemGatePorts } from '../util/system-ports.ts';

export interface AgentRuntimeDeps {
  readonly config: Config;
  readonly tools: ToolRegistry;
  readonly guard: Guard;
  readonly db: Executor;
  /** null: no model configured; agent turns fail with a clear error. */
  readonly chat: ChatClient | null;
  /** Attended contexts only; unattended ones never ask anyone (I12). */
  readonly humanApprover?: HumanApprover | null;
  readonly smartReviewer?: SmartReviewer | null;
  readonly ledger?: EffectLedger;
  readonly logger?: Logger;
  /** How decision records are appended (the daemon batches them); default one transaction each. */
  readonly audit?: AuditAppend;
  /** Wraps the audit sink, e.g. to count decisions in metrics. */
  readonly wrapSink?: (sink: DecisionSink) => DecisionSink;
}

/** The run a call belongs to: whom its records name, and what authorises it. Sub-agents share their run's. */
export interface RunScope {
  readonly job_id?: string;
  readonly run_id?: string;
  /** This run's writer, when it is not the runtime's own. */
  readonly audit?: AuditAppend;
  /** A daemon run: its grant (see GateDeps.grant). */
  readonly grant?: RunGrant;
}

export interface AgentRunOptions {
  readonly signal: AbortSignal;
  readonly scope?: RunScope;
  /** Counts a refusal against the run and returns the run's total. */
  readonly onDenial?: () => Promise<number>;
  readonly model?: string;
}

/**
 * Capabilities whose tools need a person at the session to answer them (clarify's `message.ask`): left out of what
 * an unattended run's or a sub-agent's model is offered. Here, not in the catalog table: the capability already says it.
 */
export const NEEDS_A_PERSON: ReadonlySet<string> = new Set<Capability>(['message.ask']);

/** How deep delegate_task may nest sub-agents. */
export const MAX_NESTING = 3;

export interface AgentRuntime {
  gateFor(ctx: ToolExecutionContext, scope?: RunScope): ApprovalGate;
  /** The tools offered to the model in this context: its effective set, nothing else (I10). */
  offered(ctx: ToolExecutionContext): OfferedFunction[];
  /**
   * What a run's model is offered: `offered`, less, in an unattended run, the tools that step 4 refuses
   * whatever the call (DANGEROUS ones, or writes the run's grant or unattended_policy does not let through)
   * and, there and in a sub-agent, the tools that need a person to answer (NEEDS_A_PERSON: clarify).
   */
  offeredToRun(ctx: ToolExecutionContext, scope?: RunScope): Promise<OfferedFunction[]>;
  run(prompt: string, ctx: ToolExecutionContext, opts: AgentRunOptions): Promise<AgentOutcome>;
  /**
   * Runs `fn` as the run of `ctx` without a model (a steps payload): sub-agents that its calls start
   * (delegate_task) share its scope, model, token budget and refusal count, as an agent turn's do.
   */
  hosting<T>(ctx: ToolExecutionContext, opts: AgentRunOptions, fn: () => Promise<T>): Promise<T>;
}

interface RunHooks {
  readonly opts: AgentRunOptions;
  readonly depth: number;
  /** Shared with every sub-agent of the run: one token budget, one refusal count. */
  readonly spent: RunSpending;
}

export function createAgentRuntime(deps: AgentRuntimeDeps): AgentRuntime {
  const { config } = deps;
  // nested runs find their parent's audit scope and refusal count by execution id
  const live = new Map<string, RunHooks>();

  const sinkFor = (scope: RunScope): DecisionSink => {
    const sink = auditDecisionSink(deps.db, scope, scope.audit ?? deps.audit);
    return deps.wrapSink ? deps.wrapSink(sink) : sink;
  };

  // the gate's step 0 and the offered set both read selectionFor(config, ctx): max(config, daemon) unattended (I4, I10)
  const gateFor = (ctx: ToolExecutionContext, scope: RunScope = {}): ApprovalGate => {
    return createApprovalGate(config, {
      guard: deps.guard, allowlist: allowlistStore(deps.db), lookupTool: (n) => deps.tools.facts(n),
      sink: sinkFor(scope),
      humanApprover: ctx.unattended ? null : deps.humanApprover ?? null,
      smartReviewer: ctx.unattended ? null : deps.smartReviewer ?? null,
      ...systemGatePorts,
      ...(scope.grant ? { grant: scope.grant } : {}),
    });
  };

  const effective = (ctx: ToolExecutionContext): readonly OfferedTool[] => effectiveTools(deps.tools.allFacts(), selectionFor(config, ctx)).offered;

  const asFunctions = (tools: readonly OfferedTool[]): OfferedFunction[] => tools.flatMap((t) => {
    const tool = deps.tools.get(t.name);
    return tool ? [{ name: tool.name, description: tool.description, parameters: tool.parameters }] : [];
  });

  const offered = (ctx: ToolExecutionContext): OfferedFunction[] => asFunctions(effective(ctx));

  const offeredToRun = async (ctx: ToolExecutionContext, scope: RunScope = {}): Promise<OfferedFunction[]> => {
    // no one answers an unattended run (I12) or a sub-agent (I5): a tool that asks a person could only fail and waste a turn
    const noOneToAsk = ctx.unattended || ctx.parent_execution_id !== null;
    const all = effective(ctx).filter((t) => !noOneToAsk || !t.capabilities.some((c) => NEEDS_A_PERSON.has(c)));
    if (!ctx.unattended) return asFunctions(all);
    const verdicts = await Promise.all(all.map((t) => friendliestVerdict({
      risk: t.risk, writesFiles: writesFiles(t.name), cronAuthorized: ctx.cron_authorized, policy: config.permissions.approval.unattended_policy,
      ...(scope.grant ? { coveredByGrant: scope.grant.covers(t.name) } : {}),
    })));
    return asFunctions(all.filter((_, i) => verdicts[i]!.outcome === 'allow'));
  };

  const registered = async <T>(ctx: ToolExecutionContext, hooks: RunHooks, fn: () => Promise<T>): Promise<T> => {
    live.set(ctx.execution_id, hooks);
    try {
      return await fn();
    } finally {
      live.delete(ctx.execution_id);
    }
  };

  const spills = pgSpillStore(deps.db);

  return {
    gateFor, offered, offeredToRun,
    hosting: (ctx, opts, fn) => registered(ctx, { opts, depth: 0, spent: { tokens: 0, denials: 0 } }, fn),
    async run(prompt, ctx, runOpts) {
      // a delegated sub-agent shares its parent's scope and refusal count; a run that brings its own
      // scope (a child job's run) is a run of its own, even while the run that created it still works here
      const parent = ctx.parent_execution_id && !runOpts.scope ? live.get(ctx.parent_execution_id) : undefined;
      const depth = parent ? parent.depth + 1 : 0;
      const hooks: RunHooks = { opts: parent?.opts ?? runOpts, depth, spent: parent?.spent ?? { tokens: 0, denials: 0 } };
      const opts = hooks.opts;
      // an unattended sub-agent whose run is unknown here would lose the run's grant check and refusal count
      if (ctx.parent_execution_id && ctx.unattended && !parent && !runOpts.scope) return failed('a sub-agent of an unattended run needs that run to be known to this runtime');
      if (depth > MAX_NESTING) return failed(`sub-agents nest at most ${MAX_NESTING} deep`);
      const chat = deps.chat;
      if (!chat) return failed('agent turns need a model: set model.base_url and model.name in the config');
      // a sub-agent works with its run's model
      const model = opts.model || config.model.name;
      if (!model) return failed('agent turns need a model name: set model.name in the config or model in the payload');
      const gate = gateFor(ctx, opts.scope);
      const tools = await offeredToRun(ctx, opts.scope);
      const offeredNames = new Set(tools.map((t) => t.name));
      return registered(ctx, hooks, () => runAgentLoop({
          prompt, model, chat, tools, system: systemPrompt(ctx),
          signal: runOpts.signal,
          limits: {
            maxTurns: config.model.max_turns, maxTokens: config.model.max_tokens, tokenBudget: config.model.token_budget,
            maxDenials: config.permissions.approval.max_denials_per_run, temperature: config.model.temperature,
            maxToolCallsPerTurn: config.model.max_tool_calls_per_turn,
          },
          spent: hooks.spent,
          spill: { store: spills, execution_id: ctx.execution_id, run: runTrace(ctx) },
          // what the run's output says of a call the loop refuses itself is on the record too (I8)
          refuse: (call, index, refusal) => gate.refuseBeforeSteps(call, contextForCall(ctx, { tool: call.tool, callIndex: index, params: call.args }), refusal),
          // the daemon counts refusals in the run's row (its total includes sub-agents'); attended runs count here
          onDenial: opts.onDenial ?? (async () => hooks.spent.denials + 1),
          call: (call, index, signal) => gatedCall(gate, deps.tools, call, ctx, index, {
            signal, offered: offeredNames.has(call.tool), ...(deps.ledger ? { ledger: deps.ledger } : {}),
          }),
        }));
    },
  };
}

function failed(error: string): AgentOutcome {
  return { status: 'model_error', final: null, messages: [], calls: [], denials: 0, turns: 0, tokens: 0, error };
}
