import type { LateAgentHost } from '../agent/host.ts';
import type { AgentOutcome } from '../agent/loop.ts';
import type { ChatClient } from '../agent/model-client.ts';
import { createAgentRuntime, type AgentRuntime } from '../agent/runtime.ts';
import type { HumanApprover, SmartReviewer } from '../approval/ports.ts';
import type { Config } from '../config/schema.ts';
import type { Guard } from '../guard/types.ts';
import type { TranscriptMessage } from '../store/catalog-schema.ts';
import type { Executor } from '../store/db.ts';
import { endingUnanswered } from './attended-call.ts';
import { saveTranscript } from '../store/transcripts.ts';
import { buildContext, restrictedTo, type ToolExecutionContext } from '../tools/context.ts';
import type { ToolRegistry } from '../tools/registry.ts';

export interface AttendedSessionDeps {
  readonly config: Config;
  readonly db: Executor;
  readonly tools: ToolRegistry;
  readonly guard: Guard;
  readonly chat: ChatClient | null;
  readonly approver: HumanApprover | null;
  readonly smartReviewer: SmartReviewer | null;
  /** The delegate_task host inside `tools`, bound to this session's runtime. */
  readonly agentHost?: LateAgentHost;
}

export interface SessionTurn {
  readonly ctx: ToolExecutionContext;
  readonly outcome: AgentOutcome;
  readonly transcript_id: string | null;
}

/** An attended context: a person is at the other end of `channel` and can approve (step 11). */
export function attendedContext(user: string, channel: string): ToolExecutionContext {
  return buildContext({ channel, user_id: user, memory_scope: user, session_key: `${channel}:${user}`, unattended: false, agent_id: 'session' });
}

export function attendedRuntime(deps: AttendedSessionDeps): AgentRuntime {
  const runtime = createAgentRuntime({
    config: deps.config, tools: deps.tools, guard: deps.guard, db: deps.db, chat: deps.chat,
    humanApprover: deps.approver, smartReviewer: deps.smartReviewer,
    // a request nobody answered ends in the store with the decision (see endingUnanswered)
    wrapSink: (sink) => endingUnanswered(deps.db, sink),
  });
  deps.agentHost?.bind(runtime);
  return runtime;
}

/** One agent turn with a person present; the transcript is kept for session_search. */
export async function attendedTurn(deps: AttendedSessionDeps, prompt: string, given: ToolExecutionContext, signal: AbortSignal): Promise<SessionTurn> {
  const runtime = attendedRuntime(deps);
  // the session's tool set (its --profile, this config) travels with its context, so a child job it creates
  // (spawn_task, task) is held to it in the daemon, where another profile applies (I5)
  const ctx = given.allowed_tools.length > 0 ? given : restrictedTo(given, runtime.offered(given).map((t) => t.name));
  const outcome = await runtime.run(prompt, ctx, { signal });
  const transcript = outcome.messages.length > 0
    ? await saveTranscript(deps.db, {
      kind: 'session', session_key: ctx.session_key, memory_scope: ctx.memory_scope, execution_id: ctx.execution_id,
      prompt, messages: outcome.messages as unknown as TranscriptMessage[], secrets: Object.values(ctx.credentials),
    })
    : null;
  return { ctx, outcome, transcript_id: transcript?.id ?? null };
}
