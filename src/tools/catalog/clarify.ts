import type { Config } from '../../config/schema.ts';
import type { ToolExecutionContext } from '../context.ts';
import { defineTool } from '../define.ts';
import { fail, ok } from '../types.ts';

/** Whoever can answer a clarifying question in an attended session; null = no answer (closed, cancelled). */
export interface Clarifier {
  ask(question: string, options: readonly string[], ctx: ToolExecutionContext, signal: AbortSignal): Promise<string | null>;
}

export const UNATTENDED_MESSAGE = 'clarify: no one to ask: this run is unattended';
export const NESTED_MESSAGE = 'clarify: a sub-agent does not ask the person (I5); return the question to the agent that started you';

/** Asks the person at the session. Unattended runs (or no clarifier) fail at once, never wait (I12). */
export function clarifyTool(config: Config, clarifier: Clarifier | null) {
  return defineTool('clarify', config, {
    // waiting for a person: as long as an approval prompt may wait
    timeoutSeconds: config.permissions.approval.wait_timeout_seconds,
    async execute(params, ctx, { signal }) {
      if (!ctx || ctx.unattended || !clarifier) return fail('business', UNATTENDED_MESSAGE);
      // a nested execution never waits on a person, as the gate refuses its calls that would (step 11)
      if (ctx.parent_execution_id !== null) return fail('business', NESTED_MESSAGE);
      const options = Array.isArray(params.options) ? params.options.map(String) : [];
      const answer = await clarifier.ask(String(params.question), options, ctx, signal);
      if (answer === null || answer.trim() === '') return fail('business', 'clarify: the question was not answered');
      return ok({ answer });
    },
  });
}
