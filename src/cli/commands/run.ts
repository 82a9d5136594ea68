import { printable } from '../../util/printable.ts';
import type { Command } from 'commander';
import { configFileOf, configFor } from '../config-option.ts';
import { CliError, EXIT } from '../errors.ts';
import { printJson } from '../output.ts';
import { parseSeconds, refuseEmptyText } from '../option-values.ts';
import { actorName, withStore } from '../store-session.ts';
import { TOOL_PROFILES } from '../../policy/tool-profiles.ts';
import { MAX_TIMER_SECONDS } from '../../config/schema.ts';
import { redactWith } from '../../util/redact.ts';
import { reasonForPeople } from '../../approval/decision.ts';
import { TYPE_AHEAD_MS } from '../../session/tty-approver.ts';
import { systemGuardDeps } from '../../util/system-ports.ts';
import { onStopSignals, signalExitCode } from '../stop-signals.ts';

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
    .argument('<prompt...>', 'what the agent should do (one quoted argument, or words joined by spaces)')
    .option('--channel <channel>', 'channel of this session (cli asks on the terminal; others wait for `approvals approve`)', 'cli')
    .option('--profile <profile>', `tool profile for this session: ${PROFILES.join(' | ')}`)
    .option('--as <user>', 'user id of this session (default: the OS account)')
    .option('--timeout <seconds>', 'stop the turn after this long', '900')
    .option('--json', 'print the outcome as JSON')
    .action(async (words: string[], flags: RunFlags, cmd: Command) => {
      // `echo-agent run list the files here` means what it says; only the shell's quoting is lost
      const prompt = words.join(' ');
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
      if (!chat || !config.model.name) {
        // which setting is missing, and in which file, since a forgotten --config is the usual way to land here
        const missing = [...(config.model.base_url ? [] : ['model.base_url']), ...(config.model.name ? [] : ['model.name'])];
        const file = configFileOf(loaded);
        throw new CliError(`run: no model configured: ${missing.join(' and ') || 'model.base_url'} not set in ${file ? `config ${file}` : 'the built-in defaults (no config file was read: give --config FILE or ECHO_AGENT_CONFIG)'}`, EXIT.config);
      }
      const actor = await actorName(flags.as);
      await withStore(config, async (database) => {
        const agentHost = new LateAgentHost();
        const clarifier = process.stdin.isTTY ? ttyClarifier({ input: process.stdin, output: process.stderr, typeAheadMs: TYPE_AHEAD_MS }) : null;
        const processes = new ProcessTable(16, config.tools.exec.max_output_bytes);
        const tools = builtinTools(config, { db: database.db, clarifier, agentHost, processes });
        const approver = await cliApprover(database, config, tools, actor, { channel: flags.channel });
        const deps = { config, db: database.db, tools, guard: createGuard(config, systemGuardDeps()), chat, approver, smartReviewer: smartReviewerFromConfig(config), agentHost };
        // Ctrl-C, SIGTERM or a closed terminal (SIGHUP: an ssh session that dropped): the turn stops as it does on
        // Ctrl-C, so a waiting request is withdrawn, the commands the model started are stopped and the transcript is kept
        const stops = onStopSignals();
        const controller = stops.controller;
        const timer = setTimeout(() => controller.abort(new Error(`timed out after ${timeout}s`)), timeout * 1000);
        try {
          const turn = await session.attendedTurn(deps, prompt, session.attendedContext(actor, flags.channel), controller.signal);
          report(turn, flags.json);
          // the shell's convention for a command ended by a signal, when the signal is what ended it
          const interrupted = stops.interrupted();
          if (interrupted && turn.outcome.status === 'cancelled') process.exitCode = signalExitCode(interrupted);
        } finally {
          await processes.closeAll();
          clearTimeout(timer);
          stops.release();
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
      // why a call failed or was refused is what the person needs next; the advice to the model is not theirs
      const why = c.success ? '' : ` -> ${c.errorKind ?? 'failed'}${c.error ? `: ${reasonForPeople(c.error)}` : ''}`;
      process.stderr.write(`  ${c.tool}: ${d ? `${d.outcome} (step ${d.step}, ${d.rule})` : 'invalid arguments'}${why}\n`);
    }
    // the model's words, on the person's terminal: its line breaks kept, no escape sequence of its own (printable)
    if (o.final) process.stdout.write(`${o.final.split(/\r?\n/).map((l) => printable(l)).join('\n')}\n`);
    if (o.status !== 'completed') process.stderr.write(`echo-agent: the turn stopped: ${o.status}${o.error ? `: ${o.error}` : ''}\n`);
  }
  process.exitCode = EXIT_OF[o.status] ?? EXIT.failure;
}
