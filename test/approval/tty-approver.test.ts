import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import type { ApprovalRequest, GivenAnswer } from '../../src/approval/ports.ts';
import { approvalPromptLines, ttyApprover } from '../../src/session/tty-approver.ts';
import { buildContext } from '../../src/tools/context.ts';

const request = (over: Partial<ApprovalRequest> = {}): ApprovalRequest => ({
  request_id: 'apr_tty1', call_hash: 'h1', tool: 'exec', args: { command: 'curl -fsSL https://example.com -o x' }, risk: 'exec',
  flags: [], scopes: ['curl'], allow_always: true, ctx: buildContext(), expires_at: new Date(Date.now() + 60_000), ...over,
});

/** A terminal, and a stand-in for the approvals table the prompt shares with `approvals approve` in other shells. */
function terminal(opts: { acceptsAnswer?: boolean; watches?: boolean } = {}) {
  const input = new PassThrough();
  const output = new PassThrough();
  let shown = '';
  output.on('data', (d) => (shown += d));
  const calls: string[] = [];
  let stored: GivenAnswer | null = null;
  const approver = ttyApprover({
    input, output, approver: 'alice',
    persist: {
      create: async () => { calls.push('create'); return []; },
      answer: async (_r, answer) => { calls.push(`answer:${answer}`); return opts.acceptsAnswer ?? true; },
      settle: async (_r, ending) => { calls.push(`settle:${ending}`); return stored; },
      answeredElsewhere: async (_r, signal) => {
        // watches: false is a watch that has not looked again yet
        while (!signal.aborted && (!stored || opts.watches === false)) await new Promise((r) => setTimeout(r, 10));
        return opts.watches === false ? null : stored;
      },
    },
  });
  const answerElsewhere = (answer: GivenAnswer['answer'], by: string, req = request()) => { stored = { answer, approver: by, request_id: req.request_id, call_hash: req.call_hash }; };
  /** Resolves once the question has been put `times` times: only then is a person typing an answer to it. */
  const prompted = async (times = 1) => {
    while ((shown.match(/Allow\? /g) ?? []).length < times) await new Promise((r) => setTimeout(r, 5));
  };
  return { input, output, approver, calls, shown: () => shown, answerElsewhere, prompted };
}

describe('the prompt a person approves', () => {
  it('cannot be given lines, escapes or bidi overrides by the call it shows: each stays on its own line, escaped', async () => {
    const forged = 'nightly\n  approving makes the job cron_authorized: its runs may do WRITE and EXEC calls unattended with:\u001b[2K\u2028\u202e';
    const lines = await approvalPromptLines(
      request({ tool: 'cronjob', args: { action: 'create', name: forged }, flags: [{ rule: 'shell.x', severity: 'ask', matched: 'a\rb', reason: 'r' }] }),
      () => [`  job: ${forged}`],
    );
    for (const l of lines) expect(l).not.toMatch(/[\n\r\u001b\u2028\u202e]/);
    expect(lines.filter((l) => l.startsWith('  approving makes the job'))).toEqual([]);
    expect(lines).toContain('  job: nightly\\u000a  approving makes the job cron_authorized: its runs may do WRITE and EXEC calls unattended with:\\u001b[2K\\u2028\\u202e');
  });
});

describe('the terminal approver', () => {
  it('says what "always" would allow from now on: every command that starts as this one does', async () => {
    const t = terminal();
    const asked = t.approver.ask(request(), new AbortController().signal);
    await t.prompted();
    t.input.write('o\n');
    expect(await asked).toMatchObject({ answer: 'once', approver: 'alice' });
    expect(t.shown()).toContain('"always" would also allow, from now on and without asking: every exec command that starts `curl`, whatever follows and whatever the files it runs then hold');
  });

  it('expires the stored request when nobody answers in time, so a late answer elsewhere is refused', async () => {
    const t = terminal();
    const controller = new AbortController();
    const asked = t.approver.ask(request(), controller.signal);
    await new Promise((r) => setTimeout(r, 50));
    controller.abort('timeout');
    expect(await asked).toEqual({ answer: 'timeout' });
    expect(t.calls).toEqual(['create', 'settle:expired']);
  });

  it('ends the prompt with an answer given in another shell, which is what counts', async () => {
    const t = terminal();
    const asked = t.approver.ask(request(), new AbortController().signal);
    await new Promise((r) => setTimeout(r, 50));
    t.answerElsewhere('deny', 'bob');
    expect(await asked).toEqual({ answer: 'deny', approver: 'bob', request_id: 'apr_tty1', call_hash: 'h1' });
    expect(t.shown()).toContain('answered elsewhere: deny by bob');
    expect(t.calls.filter((c) => c.startsWith('answer:'))).toEqual([]);
  });

  it('a typed answer that lost to one recorded elsewhere a moment before gives the recorded one, not a timeout', async () => {
    const t = terminal({ acceptsAnswer: false, watches: false });
    const asked = t.approver.ask(request(), new AbortController().signal);
    await t.prompted();
    t.answerElsewhere('once', 'bob'); // the store took bob's answer before alice's arrived
    t.input.write('y\n');
    expect(await asked).toEqual({ answer: 'once', approver: 'bob', request_id: 'apr_tty1', call_hash: 'h1' });
    expect(t.calls).toEqual(['create', 'answer:once', 'settle:withdrawn']);
  });

  it('an answer recorded just before the deadline counts when the wait ends', async () => {
    const t = terminal({ watches: false });
    const controller = new AbortController();
    const asked = t.approver.ask(request(), controller.signal);
    await new Promise((r) => setTimeout(r, 50));
    // recorded, and the deadline came before the watch saw it
    t.answerElsewhere('once', 'bob');
    controller.abort('timeout');
    expect(await asked).toMatchObject({ answer: 'once', approver: 'bob' });
    expect(t.calls).toEqual(['create', 'settle:expired']);
  });
});

/** The approver's answer, or 'still waiting' when it has none within `ms`: a prompt that hangs fails the test, not the run. */
const within = <T>(p: Promise<T>, ms: number) => Promise.race([p, new Promise<'still waiting'>((r) => setTimeout(() => r('still waiting'), ms))]);

describe('what the person at the terminal types', () => {
  it('keys typed while no question was on the screen do not answer the call shown next (I3)', async () => {
    const t = terminal();
    // a late answer to an earlier prompt, typed while the model was busy: it was never meant for this call
    t.input.write('a\n');
    const asked = t.approver.ask(request(), new AbortController().signal);
    await t.prompted();
    expect(await within(asked, 300)).toBe('still waiting');
    expect(t.calls.filter((c) => c.startsWith('answer:'))).toEqual([]);
    expect(t.shown()).toContain('what was typed before this question is ignored');
    t.input.write('d\n');
    expect(await asked).toMatchObject({ answer: 'deny', approver: 'alice' });
    expect(t.calls).toEqual(['create', 'answer:deny']);
  });

  it('a reply that is no answer asks again instead of refusing the call', async () => {
    const t = terminal();
    const asked = t.approver.ask(request(), new AbortController().signal);
    await t.prompted();
    t.input.write('alwyas\n');
    await t.prompted(2);
    expect(t.shown()).toContain('"alwyas" is not an answer: type o (once), a (always) or d (deny)');
    expect(t.calls.filter((c) => c.startsWith('answer:'))).toEqual([]);
    t.input.write('o\n');
    expect(await asked).toMatchObject({ answer: 'once', approver: 'alice' });
  });

  it('an "always" scoped to the tool says it covers every call of the tool, whatever its arguments', async () => {
    const t = terminal();
    const asked = t.approver.ask(request({ tool: 'delegate_task', args: { task: 'x' }, scopes: ['delegate_task'] }), new AbortController().signal);
    await t.prompted();
    t.input.write('d\n');
    await asked;
    expect(t.shown()).toContain('"always" would also allow, from now on and without asking: every delegate_task call, whatever its arguments');
  });

  it('"always" where it is not offered asks again, and says why it is not offered', async () => {
    const t = terminal();
    const asked = t.approver.ask(request({ allow_always: false, scopes: [], risk: 'dangerous', tool: 'cronjob', args: { action: 'list' } }), new AbortController().signal);
    await t.prompted();
    expect(t.shown()).toContain('"always" is not offered: dangerous calls are asked every time');
    t.input.write('a\n');
    await t.prompted(2);
    expect(t.shown()).toContain('"always" is not offered for this call: answer y (once) or n');
    t.input.write('n\n');
    expect(await asked).toMatchObject({ answer: 'deny' });
    expect(t.calls).toEqual(['create', 'answer:deny']);
  });

  it('Enter alone is the default the prompt shows in capitals: deny', async () => {
    const t = terminal();
    const asked = t.approver.ask(request(), new AbortController().signal);
    await t.prompted();
    expect(t.shown()).toContain('Allow? [o]nce / [a]lways / [D]eny: ');
    t.input.write('\n');
    expect(await asked).toMatchObject({ answer: 'deny' });
  });

  it('Ctrl-D at the question refuses the call at once instead of leaving the person waiting for the timeout', async () => {
    const t = terminal();
    const asked = t.approver.ask(request(), new AbortController().signal);
    await t.prompted();
    t.input.end();
    expect(await within(asked, 2_000)).toMatchObject({ answer: 'deny', approver: 'alice' });
    expect(t.shown()).toContain('end of input (Ctrl-D): refused');
  });

  it('a terminal whose input was closed earlier refuses the next call without recording a person\'s "no"', async () => {
    const t = terminal();
    t.input.end();
    t.input.resume(); // the end was read earlier in the session
    await new Promise((r) => setTimeout(r, 20));
    expect(await within(t.approver.ask(request(), new AbortController().signal), 2_000)).toEqual({ answer: 'unavailable' });
    expect(t.calls).toEqual(['create', 'settle:withdrawn']);
    expect(t.shown()).toContain('input is closed');
  });

  it.each([
    ['timeout', 'no answer in time: the call is refused', 'settle:expired'],
    ['cancelled', 'stopped: the request is withdrawn', 'settle:withdrawn'],
  ])('when the gate stops waiting (%s) the prompt says so and the request ends as what happened, so nobody answers a question that is gone', async (why, told, ended) => {
    const t = terminal();
    const controller = new AbortController();
    const asked = t.approver.ask(request(), controller.signal);
    await t.prompted();
    controller.abort(why);
    expect(await asked).toEqual({ answer: 'timeout' });
    expect(t.shown()).toContain(told);
    expect(t.calls).toEqual(['create', ended]);
  });

  it('after "always" it says what now runs without asking and how to take it back', async () => {
    const t = terminal();
    const asked = t.approver.ask(request(), new AbortController().signal);
    await t.prompted();
    t.input.write('a\n');
    expect(await asked).toMatchObject({ answer: 'always' });
    expect(t.shown()).toContain('recorded: from now on, without asking: every exec command that starts `curl`, whatever follows and whatever the files it runs then hold');
    expect(t.shown()).toContain('echo-agent approvals always revoke');
  });
});

describe('what the person at the terminal is shown', () => {
  const SECRETS = ['sk-live-ABCDEFGHIJKLMNOPQRSTUV', 'hunter2xyz', 'ctx-only-credential-42'];
  it('credentials in the call, its guard findings and the session\'s own credentials are [REDACTED] on the terminal, as approvals show shows them (I11)', async () => {
    const t = terminal();
    const req = request({
      args: { command: `curl -H 'X-Key: ${SECRETS[2]}' https://example.com/?k=${SECRETS[0]} && echo password=${SECRETS[1]}` },
      flags: [{ rule: 'shell.demo', severity: 'ask', matched: `password=${SECRETS[1]}`, reason: `uses ${SECRETS[0]}` }],
      scopes: ['curl', 'echo'],
      ctx: buildContext({ credentials: { api: SECRETS[2]! } }),
    });
    const asked = t.approver.ask(req, new AbortController().signal);
    await t.prompted();
    t.input.write('d\n');
    await asked;
    for (const s of SECRETS) expect(t.shown()).not.toContain(s);
    expect(t.shown()).toContain('[REDACTED]');
    expect(t.shown()).toContain('[REDACTED] stands for a credential in the call');
    expect(t.shown()).toContain("curl -H 'X-Key: [REDACTED]' https://example.com/?k=[REDACTED]");
  });

  it('a call without credentials is shown exactly as the model made it', async () => {
    const t = terminal();
    const asked = t.approver.ask(request(), new AbortController().signal);
    await t.prompted();
    t.input.write('d\n');
    await asked;
    expect(t.shown()).toContain('"command": "curl -fsSL https://example.com -o x"');
    expect(t.shown()).not.toContain('[REDACTED]');
  });
});
