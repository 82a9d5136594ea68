import { verdictOf, type GuardFinding, type GuardVerdict, type NormalisedCommand } from '../types.ts';
import { shellChecks } from './checks/index.ts';
import { canonical, withDeploymentSecrets, type Canon } from './paths.ts';
import { shellFinding } from './rules.ts';
import { parseScript } from './syntax/lower.ts';
import { Walker } from './walk.ts';
import type { Reparse } from './walk-support.ts';

export { SHELL_RULES, SHELL_RULE_BY_ID, type ShellRule } from './rules.ts';

/** Inputs above this many UTF-8 bytes are not parsed (fail closed). */
export const DEFAULT_MAX_BYTES = 64 * 1024;

export interface CheckCommandOptions {
  readonly maxBytes?: number;
  /** The absolute directory the command starts in, so `rm -rf ..` is judged by where it lands. */
  readonly cwd?: string;
  /** Absolute paths of the deployment's own secrets (the embedded database's files, the config file): read like /etc/shadow. */
  readonly secrets?: readonly string[];
}

const HIDDEN = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f\u200b-\u200f\u202a-\u202e\u2060\u2066-\u2069\ufeff]/;

function reparser(): { reparse: Reparse; lastError: () => string } {
  let last = '';
  return {
    reparse(code) {
      try {
        return parseScript(code);
      } catch (e) {
        last = (e as Error).message;
        return null;
      }
    },
    lastError: () => last,
  };
}

/**
 * Judges one shell command line: deny (hard block), ask (soft block) or allow, with every command found.
 * The text the shell will run is what is judged. When Unicode normalisation (NFKC) changes it, the
 * normalised reading is judged too and its findings added: `ｒｍ -ｒｆ ／` is flagged for what it looks
 * like, and `echo ＂; rm -rf ~; echo ＂` for what the shell does (fullwidth quotes are not quotes to it).
 */
export async function checkCommand(command: string, opts: CheckCommandOptions = {}): Promise<GuardVerdict> {
  const maxBytes = opts.maxBytes ?? DEFAULT_MAX_BYTES;
  if (Buffer.byteLength(command, 'utf8') > maxBytes) {
    return verdictOf([shellFinding('shell.input.oversized', `${Buffer.byteLength(command, 'utf8')} bytes > ${maxBytes}`)], []);
  }
  const text = command.replace(/\r\n?/g, '\n');
  const start = opts.cwd?.startsWith('/') ? canonical(opts.cwd, null) : null;
  const secrets = (opts.secrets ?? []).filter((p) => p.startsWith('/'));
  const asRun = withDeploymentSecrets(secrets, () => analyse(text, start));
  const normalised = text.normalize('NFKC');
  if (normalised === text) return verdictOf(asRun.findings, asRun.commands);
  const seen = new Set(asRun.findings.map(findingKey));
  const lookalike = withDeploymentSecrets(secrets, () => analyse(normalised, start)).findings.filter((f) => !seen.has(findingKey(f)));
  return verdictOf([...asRun.findings, ...lookalike], asRun.commands);
}

const findingKey = (f: GuardFinding) => `${f.rule}\u0000${f.matched}`;

function analyse(text: string, cwd: Canon | null): { findings: GuardFinding[]; commands: NormalisedCommand[] } {
  const pre: GuardFinding[] = [];
  const hidden = HIDDEN.exec(text);
  if (hidden) {
    pre.push(shellFinding('shell.input.hidden_chars', `U+${hidden[0].codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`));
    if (text.includes('\u0000')) return { findings: pre, commands: [] };
  }
  const { reparse, lastError } = reparser();
  const stmts = reparse(text);
  if (!stmts) {
    const error = lastError();
    // a shell runs every complete command before the line that does not parse: those are judged too
    const before = parsedPrefix(text, error, reparse);
    const prefix = before ? walk(before, cwd, reparse) : { findings: [], commands: [] };
    return { findings: [...pre, ...prefix.findings, shellFinding('shell.input.unparseable', error)], commands: prefix.commands };
  }
  const walked = walk(stmts, cwd, reparse);
  return { findings: [...pre, ...walked.findings], commands: walked.commands };
}

/** How many shorter prefixes are tried before giving up on finding the commands before a syntax error. */
const MAX_PREFIX_TRIES = 64;

/** The longest run of whole lines before the syntax error that parses on its own. */
function parsedPrefix(text: string, error: string, reparse: Reparse) {
  const line = Number(/^(\d+):/.exec(error)?.[1] ?? 0);
  const lines = text.split('\n');
  for (let end = Math.min(line, lines.length) - 1, tries = 0; end >= 1 && tries < MAX_PREFIX_TRIES; end--, tries++) {
    const stmts = reparse(lines.slice(0, end).join('\n'));
    if (stmts) return stmts;
  }
  return null;
}

function walk(stmts: NonNullable<ReturnType<Reparse>>, cwd: Canon | null, reparse: Reparse): { findings: GuardFinding[]; commands: NormalisedCommand[] } {
  const walker = new Walker(reparse, shellChecks);
  try {
    walker.run(stmts, cwd);
  } catch (e) {
    // an input the walk cannot finish (e.g. nesting beyond the stack) is not allowed through
    return { findings: [...walker.findings, shellFinding('shell.input.too_complex', `not analysable: ${(e as Error).message}`)], commands: [...walker.commands] };
  }
  return { findings: [...walker.findings], commands: [...walker.commands] };
}
