import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import type { ApprovalRequest } from '../../src/approval/ports.ts';
import { terminalApprover } from '../../src/cli/attended-deps.ts';
import { defaultConfig } from '../../src/config/schema.ts';
import { builtinTools } from '../../src/daemon/daemon-tools.ts';
import { answerApproval, getApproval } from '../../src/store/approvals.ts';
import { buildContext } from '../../src/tools/context.ts';
import { waitingApproval } from '../support/cli.ts';
import { tamper, useTestDatabase } from '../support/db.ts';

// A prompt on a terminal can also be answered from another shell; the code that takes is on the prompt only.
const database = useTestDatabase();

function asked(id: string): ApprovalRequest {
  return {
    request_id: id, call_hash: `h-${id}`, tool: 'exec', args: { command: 'make deploy' }, risk: 'exec', flags: [], scopes: ['make deploy'],
    // long enough that a slow run of the test never sees it expire
    allow_always: true, ctx: buildContext({ channel: 'cli', user_id: 'alice' }), expires_at: new Date(Date.now() + 300_000),
  };
}

/** The prompt, on an in-memory terminal where nobody types: what it shows, and its answer once given elsewhere. */
async function prompt(id: string) {
  const config = defaultConfig();
  const { db } = database();
  const output = new PassThrough();
  let shown = '';
  output.on('data', (d) => (shown += d));
  const tty = await terminalApprover({ db }, config, builtinTools(config, { db }), 'alice', { input: new PassThrough(), output, typeAheadMs: 1 });
  let settled = false;
  const answer = tty.ask(asked(id), new AbortController().signal);
  void answer.then(() => { settled = true; }, () => { settled = true; });
  const deadline = Date.now() + 30_000;
  while (!/Allow\?/.test(shown)) {
    if (settled) throw new Error(`the prompt ended before it asked: ${JSON.stringify(await answer.catch((e: unknown) => String(e)))}; shown:\n${shown}`);
    if (Date.now() > deadline) throw new Error(`the prompt did not ask within 30 s; shown:\n${shown}`);
    await new Promise((r) => setTimeout(r, 20));
  }
  return { answer, shown: () => shown };
}

describe('a terminal prompt answered from another shell', () => {
  it('shows the command with the request\'s code; without the code the answer is refused and the prompt still waits, with it the answer counts', async () => {
    const { db } = database();
    const p = await prompt('apr_elsewhere1');
    const waiting = waitingApproval(p.shown());
    expect(waiting?.id).toBe('apr_elsewhere1');
    expect(await answerApproval(db, { id: 'apr_elsewhere1', call_hash: 'h-apr_elsewhere1', answer: 'once', answered_by: 'mallory' }))
      .toMatchObject({ ok: false, refusal: 'code_missing' });
    expect((await getApproval(db, 'apr_elsewhere1'))?.state).toBe('pending');
    expect(await answerApproval(db, { id: 'apr_elsewhere1', call_hash: 'h-apr_elsewhere1', answer: 'once', answered_by: 'bob', code: waiting!.code })).toMatchObject({ ok: true });
    expect(await p.answer).toEqual({ answer: 'once', approver: 'bob', request_id: 'apr_elsewhere1', call_hash: 'h-apr_elsewhere1' });
    expect(p.shown()).toContain('answered elsewhere: once by bob');
  });

  it('an answer set in the table with plain SQL is not taken: the prompt says so and the call is refused', async () => {
    const p = await prompt('apr_elsewhere2');
    await tamper(database(), `update approvals set state = 'approved', answer = 'once', answered_by = 'alice', answered_at = now() where id = 'apr_elsewhere2'`);
    expect(await p.answer).toEqual({ answer: 'unverified' });
    expect(p.shown()).toContain('an answer was stored for this request without its code');
  });
});
