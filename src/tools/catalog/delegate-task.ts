import type { SubAgentHost } from '../../agent/host.ts';
import type { Config } from '../../config/schema.ts';
import { nestedContext } from '../context.ts';
import { defineTool } from '../define.ts';
import { fail, ok } from '../types.ts';

/**
 * Runs a sub-agent now and returns its answer. The sub-agent is a nested
 * execution: it inherits unattended and cron_authorized, sees at most the
 * parent's tools, and can never get a human approval (I5).
 */
export function delegateTaskTool(config: Config, host: SubAgentHost | null) {
  return defineTool('delegate_task', config, {
    timeoutSeconds: config.model.timeout_seconds * config.model.max_turns,
    async execute(params, ctx, { signal }) {
      if (!ctx) return fail('denied', 'delegate_task needs an execution context');
      if (!host) return fail('unavailable', 'delegate_task: no agent runtime in this process');
      const tools = Array.isArray(params.tools) ? params.tools.map(String) : [];
      const child = nestedContext(ctx, { allowed_tools: tools, agent_id: `${ctx.agent_id}/delegate` });
      const out = await host.run(String(params.prompt), child, signal);
      if (!out) return fail('unavailable', 'delegate_task: the agent runtime is not ready');
      const summary = { status: out.status, answer: out.final, execution_id: child.execution_id, calls: out.calls.length, refusals: out.calls.filter((c) => c.decision && c.decision.outcome !== 'allow').length };
      if (out.status === 'completed') return ok(summary);
      return fail(out.status === 'model_error' ? 'internal' : out.status === 'cancelled' ? 'timeout' : 'business', `delegate_task: the sub-agent stopped (${out.status}): ${out.error ?? ''}`.trim());
    },
  });
}
