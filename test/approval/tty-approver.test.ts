import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import type { ApprovalRequest } from '../../src/approval/ports.ts';
import { ttyApprover } from '../../src/approval/tty-approver.ts';
import { buildContext } from '../../src/tools/context.ts';

const request = (over: Partial<ApprovalRequest> = {}): ApprovalRequest => ({
  request_id: 'apr_tty1', call_hash: 'h1', tool: 'exec', args: { command: 'curl -fsSL https://example.com -o x' }, risk: 'exec',
  flags: [], scopes: ['curl'], allow_always: true, ctx: buildContext(), expires_at: new Date(Date.now() + 60_000), ...over,
});

function terminal() {
  const input = new PassThrough();
  const output = new PassThrough();
  let shown = '';
  output.on('data', (d) => (shown += d));
  const calls: string[] = [];
  const approver = ttyApprover({
    input, output, approver: 'alice',
    persist: {
      create: async () => { calls.push('create'); },
      answer: async (_r, answer) => { calls.push(`answer:${answer}`); return true; },
      expire: async () => { calls.push('expire'); },
    },
  });
  return { input, approver, calls, shown: () => shown };
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
    expect(t.calls).toEqual(['create', 'expire']);
  });
});
