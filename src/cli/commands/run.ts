import type { Command } from 'commander';
import { configFor } from '../config-option.ts';
import { CliError, EXIT } from '../errors.ts';
import { printJson } from '../output.ts';
import { parseSeconds, refuseEmptyText } from '../option-values.ts';
import { actorName, withStore } from '../store-session.ts';
import { TOOL_PROFILES } from '../../policy/tool-profiles.ts';
import { MAX_TIMER_SECONDS } from '../../config/schema.ts';
import { redactWith } from '../../util/redact.ts';

interface RunFlags {
  channel: string;
  profile?: string;
  as?: string;
  timeout: string;
  json?: boolean;
}

const PROFILES: readonly string[] = TOOL_PROFILES;

/** Exit codes of an agent turn: refusals are a failure of the run, an unreachable model is "unavailable". */
const EXIT_OF: Record<string, number> = { completed: EXIT.ok, denied: EXIT.failure, max_turns: EXIT.failure, token_budget: EXIT.failure, cancelled: EXIT.failure, model_error: EXIT.unavailable };

export function registerRunCommand(program: Command): void {
  program.command('run')
    .description('an attended agent turn on this terminal: the model works with your tools; calls that need a human ask you here')
    .argument('<prompt>', 'what the agent should do')
    .option('--channel <channel>', 'channel of this session (cli asks on the terminal; others wait for `approvals approve`)', 'cli')
    .option('--profile <profile>', `tool profile for this session: ${PROFILES.join(' | ')}`)
    .option('--as <user>', 'user id of this session (default: the OS account)')
    .option('--timeout <seconds>', 'stop the turn after this long', '900')
    .option('--json', 'print the outcome as JSON')
    .action(async (prompt: string, flags: RunFlags, cmd: Command) => {
      const timeout = parseSeconds('--timeout', flags.timeout, MAX_TIMER_SECONDS);
      refuseEmptyText(flags, ['channel', 'profile', 'as']);
      if (prompt.trim() === '') throw new CliError('run: the prompt is empty');
      if (flags.profile && !PROFILES.includes(flags.profile)) throw new CliError(`--profile: expected one of ${PROFILES.join(', ')}, got "${flags.profile}"`);
      const loaded = configFor(cmd).config;
      const config = flags.profile ? { ...loaded, tools: { ...loaded.tools, profile: flags.profile as typeof loaded.tools.profile } } : loaded;
      const [{ agentChatClient, smartReviewerFromConfig }, { LateAgentHost }, { builtinTools }, { createGuard }, session, { cliApprover }, { ttyClarifier }, { ProcessTable }] = await Promise.all([
        import('../../agent/model-config.ts'), import('../../agent/host.ts'), import('../../daemon/daemon-tools.ts'), import('../../guard/index.ts'),
        import('../../session/attended-session.ts'), import('../attended-deps.ts'), import('../../session/tty-clarifier.ts'), import('../../tools/process-table.ts'),
      ]);
      const chat = agentChatClient(config);
      if (!chat || !config.model.name) throw new CliError('run: no model configured; set model.base_url and model.name in the config', EXIT.config);
      const actor = await actorName(flags.as);
      await withStore(config, async (database) => {
        const agentHost = new LateAgentHost();
        const clarifier = process.stdin.isTTY ? ttyClarifier({ input: process.stdin, output: process.stderr }) : null;
        const processes = new ProcessTable(16, config.tools.exec.max_output_bytes);
        const tools = builtinTools(config, { db: database.db, clarifier, agentHost, processes });
        const approver = await cliApprover(database, config, tools, actor);
        const deps = { config, db: database.db, tools, guard: createGuard(config), chat, approver, smartReviewer: smartReviewerFromConfig(config), agentHost };
        const controller = new AbortController();
        const stop = () => controller.abort(new Error('interrupted'));
        process.once('SIGINT', stop);
        const timer = setTimeout(() => controller.abort(new Error(`timed out after ${timeout}s`)), timeout * 1000);
        try {
          const turn = await session.attendedTurn(deps, prompt, session.attendedContext(actor, flags.channel), controller.signal);
          report(turn, flags.json);
        } finally {
          await processes.closeAll();
          clearTimeout(timer);
          process.off('SIGINT', stop);
        }
      });
    });
}

function report(turn: Awaited<ReturnType<typeof import('../../session/attended-session.ts').attendedTurn>>, json?: boolean): void {
  // what the turn printed is its run output: redacted as the daemon stores a run's (I11), the session's credentials too
  const o = redactWith({
    status: turn.outcome.status, final: turn.outcome.final, error: turn.outcome.error, calls: turn.outcome.calls,
    denials: turn.outcome.denials, turns: turn.outcome.turns, tokens: turn.outcome.tokens,
  }, Object.values(turn.ctx.credentials));
  if (json) {
    printJson({ ...o, transcript_id: turn.transcript_id, execution_id: turn.ctx.execution_id });
  } else {
    for (const c of o.calls) {
      const d = c.decision;
      process.stderr.write(`  ${c.tool}: ${d ? `${d.outcome} (step ${d.step}, ${d.rule})` : 'invalid arguments'}${c.success ? '' : ` -> ${c.errorKind ?? 'failed'}`}\n`);
    }
    if (o.final) process.stdout.write(`${o.final}\n`);
    if (o.status !== 'completed') process.stderr.write(`echo-agent: the turn stopped: ${o.status}${o.error ? `: ${o.error}` : ''}\n`);
  }
  process.exitCode = EXIT_OF[o.status] ?? EXIT.failure;
}
