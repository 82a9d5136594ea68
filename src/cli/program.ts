import { Command, CommanderError } from 'commander';
import { registerCheckCallCommand } from './commands/check-call.ts';
import { registerConfigCommands } from './commands/config-validate.ts';
import { registerToolsCommands } from './commands/tools-list.ts';
import { registerCheckGuardCommands } from './commands/check-guard.ts';
import { registerDaemonCommands } from './commands/daemon.ts';
import { registerJobsCommands } from './commands/jobs.ts';
import { registerRunsCommands } from './commands/runs.ts';
import { registerRunCommand } from './commands/run.ts';
import { registerGrantCommands } from './commands/admin.ts';
import { registerAuditCommands } from './commands/audit.ts';
import { registerApprovalCommands } from './commands/approvals.ts';
import { registerRulesCommands } from './commands/rules.ts';
import { CliError, EXIT } from './errors.ts';
import { redactText } from '../util/redact.ts';
import { packageVersion } from '../util/package-version.ts';

export function buildProgram(): Command {
  const program = new Command('echo-agent')
    .description('Echo Agent tool & permission runtime, and the unattended job daemon')
    .version(packageVersion(), '-V, --version', 'print the version')
    .option('-c, --config <file>', 'config file (default: $ECHO_AGENT_CONFIG, then config/echo-agent.yaml)')
    // `echo-agent daemon --help` lists --config too: operators write `daemon --config X`, which works
    .configureHelp({ showGlobalOptions: true })
    .showHelpAfterError()
    .exitOverride();
  registerConfigCommands(program);
  registerToolsCommands(program);
  const check = program.command('check').description('judge calls, commands and URLs without running anything');
  registerCheckCallCommand(check);
  registerCheckGuardCommands(check);
  registerDaemonCommands(program);
  registerJobsCommands(program);
  registerRunsCommands(program);
  registerRunCommand(program);
  registerGrantCommands(program);
  registerApprovalCommands(program);
  registerAuditCommands(program);
  registerRulesCommands(program);
  return program;
}

export async function main(argv: readonly string[]): Promise<number> {
  const program = buildProgram();
  try {
    await program.parseAsync([...argv], { from: 'user' });
    return typeof process.exitCode === 'number' ? process.exitCode : EXIT.ok;
  } catch (err) {
    return reportError(err);
  }
}

/** One line on stderr and an exit code; a stack only with ECHO_AGENT_DEBUG=1. */
function reportError(err: unknown): number {
  if (err instanceof CommanderError) {
    // commander has already printed its message; help asked for is success, help for a missing sub-command is not
    if (err.code === 'commander.helpDisplayed' || err.code === 'commander.version') return EXIT.ok;
    if (err.code === 'commander.help') return err.exitCode === 0 ? EXIT.ok : EXIT.usage;
    return EXIT.usage;
  }
  if (err instanceof CliError) {
    process.stderr.write(`echo-agent: ${err.opts.redacted ? err.message : redactText(err.message)}\n`);
    return err.exitCode;
  }
  const message = err instanceof Error ? err.message : String(err);
  process.stderr.write(`echo-agent: internal error: ${redactText(message)}\n`);
  if (process.env.ECHO_AGENT_DEBUG === '1' && err instanceof Error) process.stderr.write(`${err.stack}\n`);
  return EXIT.software;
}
