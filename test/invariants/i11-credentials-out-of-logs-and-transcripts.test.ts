import { Writable } from 'node:stream';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { agentChatClient } from '../../src/agent/model-config.ts';
import { defaultConfig } from '../../src/config/schema.ts';
import { builtinTools } from '../../src/daemon/daemon-tools.ts';
import { createGuard } from '../../src/guard/index.ts';
import { systemGuardDeps } from '../../src/util/system-ports.ts';
import { createLogger } from '../../src/log/logger.ts';
import { attendedContext, attendedTurn } from '../../src/session/attended-session.ts';
import { appendAudit } from '../../src/store/audit.ts';
import { transcripts } from '../../src/store/catalog-schema.ts';
import { buildContext } from '../../src/tools/context.ts';
import { useTestDatabase } from '../support/db.ts';
import { startFakeModel } from '../support/fake-model.ts';

/** I11: credentials never reach a log line, whichever argument of the log call carries them, nor a stored transcript. */
function capture() {
  const raw: string[] = [];
  const stream = new Writable({ write(chunk, _enc, cb) { raw.push(String(chunk)); cb(); } });
  return { logger: createLogger('debug', stream), text: () => raw.join('') };
}

describe('I11: a credential in a log call\'s message text is redacted like one in its fields', () => {
  it('the message alone, the message after fields, and a format argument', () => {
    const { logger, text } = capture();
    logger.info('connecting to postgres://app:Pw-in-message-1@db.internal/app');
    logger.warn({ run_id: 'run_1' }, 'webhook answered 401 for Authorization: Bearer tok_in_message_2Ab9');
    logger.error({ run_id: 'run_2' }, 'retrying %s', 'https://bot:Pw-in-format-arg-3@hooks.example/x');
    const out = text();
    expect(out).toContain('run_1');
    expect(out).toContain('[REDACTED]');
    for (const secret of ['Pw-in-message-1', 'tok_in_message_2Ab9', 'Pw-in-format-arg-3']) expect(out).not.toContain(secret);
  });
});

describe('I11: an attended session\'s credentials are cut out of its stored transcript', () => {
  const database = useTestDatabase();
  // a credential in no known shape: only the context says it is one
  const credential = 'Kq84unshapedSessionCred';
  let model: Awaited<ReturnType<typeof startFakeModel>>;
  beforeAll(async () => {
    model = await startFakeModel(() => ({ content: `Sure: the service key is ${credential}.` }));
  });
  afterAll(() => model.close());

  it('whatever the model says back', async () => {
    const db = database().db;
    const config = defaultConfig({ model: { base_url: model.url, name: 'scripted', api_key: 'sk-i11-session-key-123456' } });
    const deps = { config, db, tools: builtinTools(config, { db }), guard: createGuard(config, systemGuardDeps({ dns: false })), chat: agentChatClient(config), approver: null, smartReviewer: null };
    const base = attendedContext('alice', 'cli');
    const ctx = buildContext({ ...base, credentials: { service: credential } });
    const turn = await attendedTurn(deps, `use the service key ${credential} to check the weather`, ctx, new AbortController().signal);
    expect(turn.outcome.status, turn.outcome.error ?? '').toBe('completed');
    expect(turn.transcript_id).not.toBeNull();
    const [row] = await db.select().from(transcripts).where(eq(transcripts.id, turn.transcript_id!));
    expect(row).toBeDefined();
    const stored = JSON.stringify(row);
    expect(stored).toContain('[REDACTED]');
    expect(stored).not.toContain(credential);
  });

  it('an error carried in an audit record\'s data keeps its message, with the credential it quoted cut out', async () => {
    const err = new Error('could not reach postgres://app:Pw-in-error-msg-4@db.internal/app', { cause: new Error('password=Pw-in-cause-5 rejected') });
    const row = await appendAudit(database().db, { kind: 'run.state', reason: 'probe', data: { err } });
    const stored = JSON.stringify(row);
    expect((row.data.err as { message?: string }).message).toMatch(/^could not reach postgres:\/\/\[REDACTED\]@db\.internal/);
    for (const secret of ['Pw-in-error-msg-4', 'Pw-in-cause-5']) expect(stored).not.toContain(secret);
  });
});
