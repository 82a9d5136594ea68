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

/** The loaded config for a command (exit 78 on problems). */
export function configFor(cmd: Command, opts: { quietWarnings?: boolean } = {}): LoadedConfig {
  return loadConfigOrExit(configFlag(cmd), opts);
}
