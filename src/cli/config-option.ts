import type { Command } from 'commander';
import { ConfigError, EXIT_CONFIG, loadConfig, type LoadedConfig } from '../config/load.ts';
import { CliError } from './errors.ts';
import { byPosition, locatedLine } from '../config/locate.ts';

/** Loads the config the way every command does: problems stop with exit 78, warnings go to stderr. */
export function loadConfigOrExit(file: string | undefined, opts: { quietWarnings?: boolean } = {}): LoadedConfig {
  try {
    const loaded = loadConfig(file);
    sources.set(loaded.config, loaded.file);
    // compiler style (`file:line:col: warning: …`), as `config validate` prints them, so editors can jump
    if (!opts.quietWarnings) for (const w of byPosition(loaded.warnings)) process.stderr.write(`${locatedLine(loaded.file, w, 'warning')}\n`);
    return loaded;
  } catch (err) {
    if (err instanceof ConfigError) throw new CliError(err.message, EXIT_CONFIG, { redacted: true });
    throw err;
  }
}

const sources = new WeakMap<object, string | null>();

/** The file a loaded config came from; null for the built-in defaults (or a config not loaded here). */
export function configFileOf(config: object): string | null {
  return sources.get(config) ?? null;
}

/** The --config flag of any command, wherever on the line it was given. */
export function configFlag(cmd: Command): string | undefined {
  return cmd.optsWithGlobals().config as string | undefined;
}

/**
 * The commands that act on what the config's warnings are about (tool lists, auto_approve, the network policy,
 * notify targets): they print the warnings. The others (listing, showing, approving, pausing) only read the
 * store; a warning on every one of them is noise an operator learns to ignore. `config validate` prints them
 * itself, and the daemon logs them at its start.
 */
export const COMMANDS_WITH_CONFIG_WARNINGS: ReadonlySet<string> = new Set([
  'jobs create', 'jobs update', 'jobs run', 'run', 'check call', 'check command', 'check url', 'tools list',
]);

/** A command's words below the program (`jobs create`). */
export function commandPath(cmd: Command): string {
  const words: string[] = [];
  for (let c: Command | null = cmd; c?.parent; c = c.parent) words.unshift(c.name());
  return words.join(' ');
}

/** The loaded config for a command (exit 78 on problems; warnings only for the commands that act on them). */
export function configFor(cmd: Command, opts: { quietWarnings?: boolean } = {}): LoadedConfig {
  return loadConfigOrExit(configFlag(cmd), { quietWarnings: opts.quietWarnings ?? !COMMANDS_WITH_CONFIG_WARNINGS.has(commandPath(cmd)) });
}
