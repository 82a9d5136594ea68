import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { listAllowlist } from '../../src/store/allowlist.ts';
import { listApprovals } from '../../src/store/approvals.ts';
import { BIN, ROOT, scriptedSessionConfig } from '../support/cli.ts';
import { useTestDatabase } from '../support/db.ts';
import { startFakeModel, type ChatBody } from '../support/fake-model.ts';
import { until } from '../support/until.ts';

const database = useTestDatabase();
const SECRET = 'hunter2-a1b2c3d4e5';

// the second call of 'two commands' is held until its test releases it, having typed ahead meanwhile
let releaseSecond!: () => void;
const secondCall = new Promise<void>((r) => { releaseSecond = r; });

/** What the scripted model does for each prompt: harmless commands only (echo, ls). */
const SCRIPTS: Record<string, { calls: string[]; holdSecond?: Promise<void> }> = {
  'two commands': { calls: ['echo one', 'ls'], holdSecond: secondCall },
  'one command': { calls: ['echo one'] },
  'a command with a password': { calls: [`echo password=${SECRET}`] },
};

const userPrompt = (body: ChatBody) => body.messages.find((m) => m.role === 'user')?.content ?? '';
let model: Awaited<ReturnType<typeof startFakeModel>>;
let configFile: string;
beforeAll(async () => {
  model = await startFakeModel((body) => {
    const script = SCRIPTS[userPrompt(body)] ?? { calls: [] };
    const done = body.messages.filter((m) => m.role === 'tool').length;
    const next = script.calls[done];
    if (next === undefined) return { content: 'finished' };
    return { tool_calls: [{ name: 'exec', arguments: { command: next } }], ...(done === 1 && script.holdSecond ? { until: script.holdSecond } : {}) };
  });
  const dir = mkdtempSync(join(tmpdir(), 'echo-attended-prompt-'));
  configFile = scriptedSessionConfig(dir, database().schema, model.url);
});
afterAll(() => model.close());

/**
 * `echo-agent run` on a pseudo-terminal (util-linux `script`), driven as a person would: `step` is told
 * each time new output arrives and returns what to type (or nothing).
 */
function session(prompt: string) {
  const command = [process.execPath, BIN, 'run', prompt, '--as', 'alice'].map((a) => `'${a.replace(/'/g, `'\\''`)}'`).join(' ');
  const child = spawn('script', ['-qec', command, '/dev/null'], { cwd: ROOT, env: { ...process.env, ECHO_AGENT_CONFIG: configFile }, stdio: ['pipe', 'pipe', 'pipe'] });
  let out = '';
  let ended = false;
  const waiters: { re: RegExp; count: number; resolve: () => void; reject: (err: Error) => void }[] = [];
  const onData = (d: Buffer) => {
    out += d;
    for (const w of [...waiters]) {
      if ((out.match(new RegExp(w.re.source, 'g')) ?? []).length >= w.count) {
        waiters.splice(waiters.indexOf(w), 1);
        w.resolve();
      }
    }
  };
  child.stdout.on('data', onData);
  child.stderr.on('data', onData);
  const exited = new Promise<number | null>((resolve) => child.on('close', (code) => {
    // all its output is in: whatever is still awaited will not come
    ended = true;
    for (const w of waiters.splice(0)) w.reject(new Error(`the session ended (code ${code}) before ${w.re} appeared ${w.count} time(s):\n${out}`));
    resolve(code);
  }));
  return {
    out: () => out,
    exited,
    ended: () => ended,
    /** Resolves once `re` has appeared `count` times in all the output so far; fails after `ms`, or when the session ends first. */
    seen: (re: RegExp, count = 1, ms = 30_000) => new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => {
        waiters.splice(waiters.indexOf(w), 1);
        reject(new Error(`${re} did not appear ${count} time(s) within ${ms / 1000} s:\n${out}`));
      }, ms);
      const w = { re, count, resolve: () => { clearTimeout(timer); resolve(); }, reject: (err: Error) => { clearTimeout(timer); reject(err); } };
      if (ended) w.reject(new Error(`the session had ended before ${re} appeared:\n${out}`));
      else waiters.push(w);
      onData(Buffer.from(''));
    }),
    type: (keys: string) => child.stdin.write(keys),
    kill: () => child.kill('SIGKILL'),
  };
}

const PROMPT = /Allow\? /;

describe('echo-agent run on a terminal: the approval prompt', () => {
  it('a key typed while the model was busy does not answer the next call: the person is asked, and no "always" is recorded (I3)', async () => {
    const before = model.requests.length;
    const s = session('two commands');
    await s.seen(PROMPT);
    s.type('o\r');
    // the answer was read and its command ran: the model is asked for the next call, and holds its reply
    await until('the model being asked for the second call', () => {
      if (s.ended()) throw new Error(`the session ended before the model was asked for the second call:\n${s.out()}`);
      return model.requests.slice(before).some((b) => userPrompt(b) === 'two commands' && b.messages.some((m) => m.role === 'tool'));
    }, 30_000, 50, s.out);
    // the model is still working on its next call: this "a" answers no question on the screen
    s.type('a\r');
    // the terminal echoed it, so it waits in the terminal's input before the next question is shown
    await s.seen(/\na\r?\n/);
    releaseSecond();
    await s.seen(PROMPT, 2);
    await s.seen(/what was typed before this question is ignored/);
    const asked = (await listApprovals(database().db, { limit: 10 })).filter((a) => a.args.command === 'ls');
    expect(asked.map((a) => a.state), s.out()).toEqual(['pending']);
    s.type('d\r');
    expect(await s.exited, s.out()).toBe(0);
    expect(s.out()).toContain('what was typed before this question is ignored');
    expect(s.out()).toMatch(/exec: deny \(step 11, approval\.human\.deny\)/);
    expect(await listAllowlist(database().db)).toEqual([]);
  }, 60_000);

  it('a credential in the call is [REDACTED] on the terminal, as approvals show shows it (I11)', async () => {
    const s = session('a command with a password');
    await s.seen(PROMPT);
    s.type('d\r');
    expect(await s.exited, s.out()).toBe(0);
    expect(s.out()).toContain('"command": "echo password=[REDACTED]"');
    expect(s.out()).not.toContain(SECRET);
  }, 60_000);

  it('Ctrl-D at the prompt refuses the call at once; the person is not left waiting for the 120 s timeout', async () => {
    const s = session('one command');
    onTestFinished(() => { if (!s.ended()) s.kill(); });
    await s.seen(PROMPT);
    s.type('\x04');
    // waiting for the 120 s approval timeout would run into this test's 60 s timeout, and end saying so, not Ctrl-D
    expect(await s.exited, s.out()).toBe(0);
    expect(s.out()).toContain('end of input (Ctrl-D): refused');
    expect(s.out()).toMatch(/exec: deny \(step 11, approval\.human\.deny\)/);
  }, 60_000);

  it('a mistyped answer is asked again, not taken as a refusal', async () => {
    const s = session('one command');
    await s.seen(PROMPT);
    s.type('yse\r');
    await s.seen(PROMPT, 2);
    expect(s.out()).toContain('"yse" is not an answer');
    s.type('y\r');
    expect(await s.exited, s.out()).toBe(0);
    expect(s.out()).toMatch(/exec: allow \(step 11, approval\.human\.once\)/);
  }, 60_000);
});
