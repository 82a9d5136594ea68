import type { Config } from '../../config/schema.ts';
import { splitCommandLine } from '../command-line.ts';
import { defineTool } from '../define.ts';
import { runProcess, type RunOutcome } from '../process-runner.ts';
import { fail, ok, type ToolResult } from '../types.ts';
import { confine, inWorkspace } from './workspace-files.ts';

/** argv for a command line: as it is when plain, through /bin/sh only when the call asks for a shell. */
export function commandArgv(tool: string, command: string, shell: boolean): { argv: string[] } | { failure: ToolResult } {
  if (shell) return { argv: ['/bin/sh', '-c', command] };
  const line = splitCommandLine(command);
  if (line.kind === 'argv') return { argv: line.argv };
  if (line.kind === 'invalid') return { failure: fail('validation', `command: ${line.why}`) };
  return { failure: fail('validation', `command: needs a shell because ${line.why}; set shell: true to run it with /bin/sh`) };
}

/** The working directory: inside the workspace policy, default the workspace itself. */
export async function workingDir(config: Config, cwd: unknown): Promise<{ dir: string } | { failure: ToolResult }> {
  const path = typeof cwd === 'string' && cwd !== '' ? cwd : '.';
  const refused = await confine(config, { read: [path] });
  return refused ? { failure: refused } : { dir: inWorkspace(config, path) };
}

/** The call's timeout: what it asks for, never more than tools.exec.timeout_seconds. */
export function timeoutMs(config: Config, asked: unknown): number {
  const cap = config.tools.exec.timeout_seconds;
  return (typeof asked === 'number' && asked > 0 ? Math.min(asked, cap) : cap) * 1000;
}

const TAIL = 2_000;
const tail = (s: string) => (s.length > TAIL ? `…${s.slice(-TAIL)}` : s);

/** A finished process as a result: exit 0 succeeds; anything else fails with what it printed. */
export function processResult(tool: string, program: string, o: RunOutcome): ToolResult {
  const output = { exit_code: o.exit_code, signal: o.signal, stdout: o.stdout, stderr: o.stderr, truncated: o.truncated, duration_ms: o.duration_ms };
  if (o.spawnError) {
    const missing = o.spawnError.code === 'ENOENT';
    return fail(missing ? 'unavailable' : 'internal', `${tool}: cannot start ${program}: ${missing ? 'no such program' : o.spawnError.code ?? o.spawnError.message}`);
  }
  if (o.stopped === 'timeout') return fail('timeout', `${tool}: ${program} was killed after its timeout (${o.duration_ms} ms); output so far: ${tail(o.stdout)} ${tail(o.stderr)}`.trim());
  if (o.stopped === 'cancelled') return fail('timeout', `${tool}: ${program} was cancelled`);
  if (o.exit_code === 0) return ok(output);
  return fail('business', `${tool}: ${program} exited with ${o.exit_code ?? `signal ${o.signal}`}; stderr: ${tail(o.stderr) || '(empty)'}; stdout: ${tail(o.stdout) || '(empty)'}`);
}

/**
 * exec: a command in the workspace, without a shell unless asked, its process
 * group killed at the timeout, output capped, and none of our environment's secrets.
 */
export function execTool(config: Config) {
  return defineTool('exec', config, {
    // the executor's deadline is a backstop; the call's own timeout kills the process first
    timeoutSeconds: config.tools.exec.timeout_seconds + 5,
    async execute(params, _ctx, { signal }) {
      const how = commandArgv('exec', String(params.command), params.shell === true);
      if ('failure' in how) return how.failure;
      const where = await workingDir(config, params.cwd);
      if ('failure' in where) return where.failure;
      const outcome = await runProcess({
        argv: how.argv, cwd: where.dir, timeoutMs: timeoutMs(config, params.timeout_seconds), maxOutputBytes: config.tools.exec.max_output_bytes, signal,
      });
      return processResult('exec', how.argv[0]!, outcome);
    },
  });
}
