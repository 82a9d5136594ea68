import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import type { ApprovalRequest, GivenAnswer } from '../../src/approval/ports.ts';
import { ttyApprover } from '../../src/approval/tty-approver.ts';
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
      create: async () => { calls.push('create'); },
      answer: async (_r, answer) => { calls.push(`answer:${answer}`); return opts.acceptsAnswer ?? true; },
      settle: async () => { calls.push('settle'); return stored; },
      answeredElsewhere: async (_r, signal) => {
        // watches: false is a watch that has not looked again yet
        while (!signal.aborted && (!stored || opts.watches === false)) await new Promise((r) => setTimeout(r, 10));
        return opts.watches === false ? null : stored;
      },
    },
  });
  const answerElsewhere = (answer: GivenAnswer['answer'], by: string, req = request()) => { stored = { answer, approver: by, request_id: req.request_id, call_hash: req.call_hash }; };
  return { input, approver, calls, shown: () => shown, answerElsewhere };
}

describe('the terminal approver', () => {
  it('says what "always" would allow from now on', async () => {
    const t = terminal();
    const asked = t.approver.ask(request(), new AbortController().signal);
    await new Promise((r) => setTimeout(r, 50));
    t.input.write('o\n');
    expect(await asked).toMatchObject({ answer: 'once', approver: 'alice' });
    expect(t.shown()).toContain('"always" would also allow, from now on, every exec call of: curl');
  });

  it('expires the stored request when nobody answers in time, so a late answer elsewhere is refused', async () => {
    const t = terminal();
    const controller = new AbortController();
    const asked = t.approver.ask(request(), controller.signal);
    await new Promise((r) => setTimeout(r, 50));
    controller.abort();
    expect(await asked).toEqual({ answer: 'timeout' });
    expect(t.calls).toEqual(['create', 'settle']);
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
    await new Promise((r) => setTimeout(r, 50));
    t.answerElsewhere('once', 'bob'); // the store took bob's answer before alice's arrived
    t.input.write('y\n');
    expect(await asked).toEqual({ answer: 'once', approver: 'bob', request_id: 'apr_tty1', call_hash: 'h1' });
    expect(t.calls).toEqual(['create', 'answer:once', 'settle']);
  });

  it('an answer recorded just before the deadline counts when the wait ends', async () => {
    const t = terminal({ watches: false });
    const controller = new AbortController();
    const asked = t.approver.ask(request(), controller.signal);
    await new Promise((r) => setTimeout(r, 50));
    // recorded, and the deadline came before the watch saw it
    t.answerElsewhere('once', 'bob');
    controller.abort();
    expect(await asked).toMatchObject({ answer: 'once', approver: 'bob' });
    expect(t.calls).toEqual(['create', 'settle']);
  });
});
