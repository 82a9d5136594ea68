import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, ROOT, runCli, scriptedSessionConfig } from '../support/cli.ts';
import { useTestDatabase } from '../support/db.ts';
import { startFakeModel } from '../support/fake-model.ts';

const database = useTestDatabase();
let model: Awaited<ReturnType<typeof startFakeModel>>;
let dir: string;
let env: NodeJS.ProcessEnv;
beforeAll(async () => {
  // one harmless exec call, then done
  model = await startFakeModel((body) => (body.messages.some((m) => m.role === 'tool') ? { content: 'finished' } : { tool_calls: [{ name: 'exec', arguments: { command: 'echo one' } }] }));
  dir = mkdtempSync(join(tmpdir(), 'echo-run-approver-'));
  const cfg = scriptedSessionConfig(dir, database().schema, model.url);
  env = { ECHO_AGENT_CONFIG: cfg };
});
const started: { kill: (s: NodeJS.Signals) => void; exitCode: number | null }[] = [];
afterAll(async () => {
  // a session still waiting (a failed expectation) must not outlive the file
  for (const c of started) if (c.exitCode === null) c.kill('SIGKILL');
  await model.close();
});

const quoted = (a: string) => `'${a.replace(/'/g, `'\\''`)}'`;

/** `echo-agent run` on a pseudo-terminal (util-linux `script`); `redirect` is shell text after the command. */
function onTerminal(args: string[], redirect = '') {
  const command = `${[process.execPath, BIN, 'run', ...args].map(quoted).join(' ')}${redirect}`;
  const child = spawn('script', ['-qec', command, '/dev/null'], { cwd: ROOT, env: { ...process.env, ...env }, stdio: ['pipe', 'pipe', 'pipe'] });
  started.push(child);
  let out = '';
  child.stdout.on('data', (d) => { out += d; });
  child.stderr.on('data', (d) => { out += d; });
  const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
  return { out: () => out, exited, child };
}

/** Resolves with the first match of `re` in `text()`, looking every 100 ms. */
async function appears(text: () => string, re: RegExp, ms = 30_000): Promise<RegExpExecArray> {
  for (const end = Date.now() + ms; Date.now() < end; await new Promise((r) => setTimeout(r, 100))) {
    const m = re.exec(text());
    if (m) return m;
  }
  throw new Error(`${re} did not appear in:\n${text()}`);
}

const WAITING = /approval (apr_\w+) is waiting \(expires [^)]+\): exec \[risk exec\] \{"command":"echo one"\}\r?\n {2}run {2}.*approvals show apr_\w+ {2}to see all of it, then {2}.*approvals approve apr_\w+ .*\r?\n {2}and give it this code when asked: ([0-9A-Z-]+)/;

describe('where echo-agent run asks a person', () => {
  it('a session of another channel waits for `approvals approve` even on a terminal (SPEC §5 step 11), naming the call that waits', async () => {
    const s = onTerminal(['say one', '--channel', 'telegram', '--as', 'alice']);
    const [, id, code] = await appears(s.out, WAITING);
    expect(s.out()).not.toMatch(/Allow\?/);
    const approved = await runCli(['approvals', 'approve', id!, '--as', 'bob'], { env, input: `${code!}\n` });
    expect(approved.code, approved.stderr).toBe(0);
    expect(await s.exited, s.out()).toBe(0);
    expect(s.out()).toContain('finished');
  }, 60_000);

  it('a terminal whose stderr goes to a file does not prompt there: the request waits, and says so in that file', async () => {
    const log = join(dir, 'stderr.log');
    const s = onTerminal(['say one again', '--as', 'alice'], ` 2>${quoted(log)}`);
    const [, id, code] = await appears(() => (existsSync(log) ? readFileSync(log, 'utf8') : ''), WAITING);
    expect(readFileSync(log, 'utf8')).not.toMatch(/Allow\?/);
    const approved = await runCli(['approvals', 'approve', id!, '--as', 'bob'], { env, input: `${code!}\n` });
    expect(approved.code, approved.stderr).toBe(0);
    expect(await s.exited, readFileSync(log, 'utf8')).toBe(0);
  }, 60_000);
});
