import { spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const BIN = fileURLToPath(new URL('../../bin/echo-agent.js', import.meta.url));
export const ROOT = fileURLToPath(new URL('../..', import.meta.url));

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs the real `echo-agent` binary, as an operator would; `onStderr` sees its error output so far, as it comes. */
export function runCli(
  args: readonly string[], opts: { env?: NodeJS.ProcessEnv; cwd?: string; input?: string; timeoutMs?: number; onStderr?: (soFar: string) => void } = {},
): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], {
      cwd: opts.cwd ?? ROOT,
      env: { ...process.env, ECHO_AGENT_CONFIG: '', ...opts.env },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => {
      stderr += d;
      opts.onStderr?.(stderr);
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), opts.timeoutMs ?? 30_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
    child.stdin.end(opts.input ?? '');
  });
}

/**
 * The request a command without a terminal (or a prompt, for another shell) says it waits on, with the code
 * an answer needs: shown there only, so a test answers as a person who read it.
 */
export function waitingApproval(text: string): { id: string; code: string } | null {
  const m = /approvals approve (apr_\w+)[\s\S]*?code when asked: ([0-9A-Z]{4}(?:-[0-9A-Z]{4}){4})/.exec(text);
  return m ? { id: m[1]!, code: m[2]! } : null;
}

/**
 * A scratch directory for commands that must not reach a database: its config points at a closed port,
 * so a command that went on would fail differently. `file` writes an input file into it.
 */
export function offlineCli(prefix: string): { dir: string; env: NodeJS.ProcessEnv; file: (name: string, text: string) => string } {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  const config = join(dir, 'echo-agent.yaml');
  writeFileSync(config, 'database:\n  url: postgres://postgres@127.0.0.1:1/none\n');
  return {
    dir,
    env: { ECHO_AGENT_CONFIG: config },
    file: (name, text) => {
      const path = join(dir, name);
      writeFileSync(path, text);
      return path;
    },
  };
}

/**
 * A config for `echo-agent run` against a fake model: the test file's schema, a workspace of its own,
 * the full tool profile, a 120 s approval wait. Returns its path.
 */
export function scriptedSessionConfig(dir: string, schema: string, modelUrl: string): string {
  const path = join(dir, 'echo-agent.yaml');
  writeFileSync(path, [
    'database:', `  url: postgres://postgres@127.0.0.1:5432/test?options=-c%20search_path%3D${schema}`,
    'model:', `  base_url: ${modelUrl}`, '  name: scripted', 'tools:', `  workspace: ${dir}`, '  profile: full',
    'permissions:', '  approval:', '    wait_timeout_seconds: 120', '',
  ].join('\n'));
  return path;
}

/** Runs the real CLI on a pseudo-terminal (util-linux `script`), typing `answer` once the approval question appears. */
export function cliOnTerminal(args: readonly string[], env: NodeJS.ProcessEnv, answer: string, timeoutMs = 60_000, prompt = /Allow\? /): Promise<{ code: number | null; out: string }> {
  const command = [process.execPath, BIN, ...args].map((a) => `'${a.replace(/'/g, `'\\''`)}'`).join(' ');
  return new Promise((resolve) => {
    const child = spawn('script', ['-qec', command, '/dev/null'], { cwd: ROOT, env: { ...process.env, ...env }, stdio: ['pipe', 'pipe', 'pipe'] });
    let out = '';
    let answered = false;
    const onData = (d: Buffer) => {
      out += d;
      if (!answered && prompt.test(out)) {
        answered = true;
        child.stdin.write(`${answer}\r`);
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, out });
    });
  });
}

/**
 * A command that asks for an approval (jobs create|update) run without a terminal, approved from another process
 * as `who` with the code it printed, once its request waits: what a person at a second shell does.
 */
export async function approvedElsewhere(who: string, args: readonly string[], env: NodeJS.ProcessEnv): Promise<CliResult & { approvalId: string }> {
  const child = spawn(process.execPath, [BIN, ...args], { cwd: ROOT, env: { ...process.env, ...env }, stdio: ['pipe', 'pipe', 'pipe'] });
  child.stdin.end();
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => (stdout += d));
  const waiting = new Promise<{ id: string; code: string }>((resolve) => child.stderr.on('data', (d) => {
    stderr += d;
    const w = waitingApproval(stderr);
    if (w) resolve(w);
  }));
  const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
  const { id, code } = await waiting;
  const approve = await runCli(['approvals', 'approve', id, '--as', who], { env, input: `${code}\n`, timeoutMs: 60_000 });
  if (approve.code !== 0) throw new Error(`approvals approve ${id} failed (${approve.code}): ${approve.stderr}`);
  return { code: await exited, stdout, stderr, approvalId: id };
}
