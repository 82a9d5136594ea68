import { stat } from 'node:fs/promises';
import type { Config } from '../../config/schema.ts';
import { ShellSyntaxError, type Stmt, type Word, type WordPart } from '../../guard/shell/syntax/ast.ts';
import { parseScript } from '../../guard/shell/syntax/lower.ts';
import { redactText } from '../../util/redact.ts';
import { defineTool } from '../define.ts';
import { runLimited, type RunOutcome } from '../spawn-limits.ts';
import { fail, ok, type ToolResult } from '../types.ts';
import { confine, inWorkspace } from './workspace-files.ts';

/** What the command-running tools give the executor on top of their own deadline, to kill and report first. */
export const DEADLINE_SLACK_SECONDS = 5;
const STDERR_TAIL = 4_000;
const STDOUT_TAIL = 2_000;

export interface Launch {
  readonly file: string;
  readonly args: readonly string[];
}

/** Tells a refusal from the value a helper below returns. */
export const isFailure = (v: unknown): v is ToolResult => typeof v === 'object' && v !== null && 'success' in v;

/**
 * A command line as a program and its arguments. Without `shell` the line must
 * be one plain command (the shell parser tells); anything the shell would
 * interpret is refused rather than passed on literally.
 */
export function launchFor(command: string, shell: boolean): Launch | ToolResult {
  // bash, the dialect the guard parses: /bin/sh (dash on Debian) reads some text differently, e.g. $'…'.
  // --norc: with a socket for stdin and no SHLVL, bash -c takes itself for an ssh session and sources the
  // daemon user's ~/.bashrc, code nobody judged that runs before the command (and may hang it)
  if (shell) return { file: 'bash', args: ['--norc', '-c', command] };
  let stmts: Stmt[];
  try {
    stmts = parseScript(command);
  } catch (err) {
    if (err instanceof ShellSyntaxError) return fail('validation', `command: does not parse as a command line (${redactText(err.message)})`);
    throw err;
  }
  // blanks or only a comment: nothing to run
  if (stmts.length === 0) return fail('validation', 'command: names no program');
  const syntax = shellSyntax(stmts);
  if (syntax) return fail('validation', `command: uses shell syntax (${syntax}); set shell: true to run it with bash -c`);
  const cmd = stmts[0]!.cmd;
  const argv = cmd.kind === 'simple' ? cmd.words.map(wordText) : [];
  if (argv.length === 0 || argv[0] === '') return fail('validation', 'command: names no program');
  return { file: argv[0]!, args: argv.slice(1) };
}

/** What in the line needs a shell, or null for one plain command. */
function shellSyntax(stmts: readonly Stmt[]): string | null {
  if (stmts.length === 0) return null;
  if (stmts.length > 1) return 'a list of commands';
  const s = stmts[0]!;
  if (s.background) return 'a background `&`';
  if (s.negated) return 'a `!`';
  if (s.redirs.length > 0) return 'a redirection';
  const c = s.cmd;
  if (c.kind === 'pipe') return 'a pipe';
  if (c.kind === 'andor') return `\`${c.op}\``;
  if (c.kind !== 'simple') return `a shell construct (${c.kind})`;
  if (c.assigns.length > 0) return 'a variable assignment';
  for (const w of c.words) {
    const found = wordSyntax(w.parts, true);
    if (found) return found;
  }
  return null;
}

const GLOB = /[*?]|\[.*\]/;
const BRACES = /\{[^{}]*(,|\.\.)[^{}]*\}/;

function wordSyntax(parts: readonly WordPart[], unquoted: boolean): string | null {
  for (const [i, p] of parts.entries()) {
    switch (p.kind) {
      case 'lit':
        if (!unquoted) break;
        if (GLOB.test(p.value)) return 'a glob';
        if (BRACES.test(p.value)) return 'a brace expansion';
        if (i === 0 && p.value.startsWith('~')) return 'a `~`';
        break;
      case 'sq':
      case 'ansi':
        break;
      case 'dq': {
        const inner = wordSyntax(p.parts, false);
        if (inner) return inner;
        break;
      }
      case 'param': return 'a variable';
      case 'cmd': return 'a command substitution';
      case 'proc': return 'a process substitution';
      case 'arith': return 'an arithmetic expansion';
    }
  }
  return null;
}

function wordText(w: Word): string {
  const text = (parts: readonly WordPart[]): string => parts
    .map((p) => (p.kind === 'dq' ? text(p.parts) : 'value' in p ? p.value : ''))
    .join('');
  return text(w.parts);
}

/** The working directory: in the workspace (policy), a directory, default the workspace. */
export async function resolveCwd(config: Config, tool: string, cwd: unknown): Promise<string | ToolResult> {
  const path = cwd === undefined ? '.' : String(cwd);
  if (cwd !== undefined) {
    const refused = await confine(config, { read: [path] });
    if (refused) return fail('denied', `cwd: ${refused.error ?? 'refused'}`);
  }
  const dir = inWorkspace(config, path);
  // checked here: a missing cwd would come back from spawn as ENOENT, like a missing program
  const info = await stat(dir).catch(() => null);
  if (!info?.isDirectory()) return fail('business', `cwd: ${path} is not a directory (${tool})`);
  return dir;
}

/** `timeout_seconds`, capped by the configured limit. */
export function deadlineMs(config: Config, requested: unknown): number {
  const cap = config.tools.exec.timeout_seconds;
  const asked = typeof requested === 'number' && requested > 0 ? requested : cap;
  return Math.min(asked, cap) * 1000;
}

const tail = (text: string, max: number) => (text.length <= max ? text : `…${text.slice(-max)}`);

/**
 * The tool result of a run. A non-zero exit is a `business` failure; the model
 * sees only `error`, so it carries the exit and the tail of stderr and stdout,
 * while `output` keeps the whole (capped) result for code callers.
 */
export function runResult(tool: string, launch: Launch, r: RunOutcome, missing: 'business' | 'unavailable'): ToolResult {
  if (r.spawnError) {
    const e = r.spawnError;
    if (e.code === 'ENOENT') {
      return missing === 'unavailable'
        ? fail('unavailable', `${tool}: interpreter ${launch.file} is not installed or not on PATH`)
        : fail('business', `command: program ${redactText(launch.file)} was not found on PATH`);
    }
    if (e.code === 'EACCES') return fail('business', `command: ${redactText(launch.file)} is not executable`);
    return fail('internal', `${tool}: could not start ${redactText(launch.file)}: ${redactText(e.message)}`);
  }
  const output = {
    exit_code: r.exit_code,
    signal: r.signal,
    stdout: redactText(r.stdout),
    stderr: redactText(r.stderr),
    truncated: r.truncated,
    duration_ms: r.duration_ms,
  };
  const streams = () => [
    output.stderr ? `\nstderr:\n${tail(output.stderr, STDERR_TAIL)}` : '',
    output.stdout ? `\nstdout:\n${tail(output.stdout, STDOUT_TAIL)}` : '',
  ].join('');
  // the process ran: whatever it did is done, so a failure is effectful
  if (r.stopped === 'timeout') return { ...fail('timeout', `${tool}: timed out after ${r.deadline_ms / 1000}s; its process group was killed${streams()}`), output, effectful: true };
  if (r.stopped === 'aborted') return { ...fail('timeout', `${tool}: cancelled; its process group was killed${streams()}`), output, effectful: true };
  if (r.exit_code === 0) return ok(output);
  const how = r.signal ? `was killed by ${r.signal}` : `exited with code ${r.exit_code}`;
  return { ...fail('business', `${tool}: ${how}${streams()}`), output, effectful: true };
}

export function execTool(config: Config) {
  return defineTool('exec', config, {
    timeoutSeconds: config.tools.exec.timeout_seconds + DEADLINE_SLACK_SECONDS,
    async execute(params, _ctx, { signal }) {
      const launch = launchFor(String(params.command), params.shell === true);
      if (isFailure(launch)) return launch;
      const cwd = await resolveCwd(config, 'exec', params.cwd);
      if (typeof cwd !== 'string') return cwd;
      const run = await runLimited({
        ...launch, cwd, signal,
        timeoutMs: deadlineMs(config, params.timeout_seconds),
        maxOutputBytes: config.tools.exec.max_output_bytes,
      });
      return runResult('exec', launch, run, 'business');
    },
  });
}
