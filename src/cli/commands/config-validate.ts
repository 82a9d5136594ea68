import type { Command } from 'commander';
import { ConfigError, EXIT_CONFIG, loadConfig } from '../../config/load.ts';
import { byPosition, locatedLine } from '../../config/locate.ts';
import { directoryWarnings } from '../../config/path-checks.ts';
import type { ConfigWarning } from '../../config/warnings.ts';
import { configFlag } from '../config-option.ts';
import { printJson } from '../output.ts';

export function registerConfigCommands(program: Command): void {
  const config = program.command('config').description('inspect the configuration file');
  config
    .command('validate')
    .description('check a config file: every problem by path (exit 78), and warnings such as tool names that match no tool, or a data_dir or workspace that cannot be made here')
    .argument('[file]', 'config file (default: --config, $ECHO_AGENT_CONFIG, then config/echo-agent.yaml)')
    .option('--json', 'print the result as JSON')
    .action((file: string | undefined, opts: { json?: boolean }, cmd: Command) => {
      const target = file ?? configFlag(cmd);
      try {
        const loaded = loadConfig(target);
        const where = loaded.file ?? '(no file: built-in defaults)';
        // the directories are checked on this machine, here only: other commands need not touch them
        const all: ConfigWarning[] = byPosition([...loaded.warnings, ...directoryWarnings(loaded.config, loaded.locate)]);
        // what stops the daemon whoever runs it is a problem, not a warning: a deploy check must fail on it
        const problems = all.filter((w) => w.fatal).map(({ fatal: _, ...problem }) => problem);
        const warnings = all.filter((w) => !w.fatal);
        const warningLines = warnings.map((w) => `${locatedLine(loaded.file, w, 'warning')}\n`).join('');
        if (problems.length > 0) {
          if (opts.json) printJson({ ok: false, file: loaded.file, problems, warnings });
          process.stderr.write(`${new ConfigError(where, problems).message}\n${warningLines}`);
          process.exitCode = EXIT_CONFIG;
          return;
        }
        if (opts.json) printJson({ ok: true, file: loaded.file, problems: [], warnings });
        else process.stdout.write(`${where}: ok\n${warningLines}`);
      } catch (err) {
        if (!(err instanceof ConfigError)) throw err;
        // the JSON is for tools; the error always reaches stderr too, as every other failing command's does
        if (opts.json) printJson({ ok: false, file: err.file, problems: err.problems, warnings: [] });
        process.stderr.write(`${err.message}\n`);
        process.exitCode = EXIT_CONFIG;
      }
    });
}
