import type { ToolExecutionContext } from '../tools/context.ts';
import type { AgentOutcome } from './loop.ts';
import type { AgentRuntime } from './runtime.ts';

/** What delegate_task needs of the agent runtime: run a nested turn now. */
export interface SubAgentHost {
  run(prompt: string, ctx: ToolExecutionContext, signal: AbortSignal): Promise<AgentOutcome | null>;
}

/**
 * The tool registry is built before the runtime that uses it, so delegate_task
 * gets a host that is bound to the runtime afterwards.
 */
export class LateAgentHost implements SubAgentHost {
  private runtime: AgentRuntime | null = null;

  bind(runtime: AgentRuntime): this {
    this.runtime = runtime;
    return this;
  }

  async run(prompt: string, ctx: ToolExecutionContext, signal: AbortSignal): Promise<AgentOutcome | null> {
    return this.runtime ? this.runtime.run(prompt, ctx, { signal }) : null;
  }
}
