import { beforeAll, describe, expect, it } from 'vitest';
import { defaultConfig } from '../../src/config/schema.ts';
import { saveTranscript } from '../../src/store/transcripts.ts';
import { buildContext } from '../../src/tools/context.ts';
import { executeTool } from '../../src/tools/executor.ts';
import { sessionSearchTool } from '../../src/tools/catalog/session-search.ts';
import { useTestDatabase } from '../support/db.ts';

const database = useTestDatabase();
const tool = () => sessionSearchTool(defaultConfig(), database().db);

type Result = { session_key: string; run_id: string | null; created_at: string; snippet: string; score: number };
async function search(query: string, who: { memory_scope: string; session_key: string }, limit?: number): Promise<Result[]> {
  const params = limit === undefined ? { query } : { query, limit };
  const r = await executeTool(tool(), params, buildContext({ ...who, tool: 'session_search', params }));
  expect(r.error).toBeUndefined();
  return (r.output as { results: Result[] }).results;
}

beforeAll(async () => {
  const { db } = database();
  const turn = (content: string) => [{ role: 'user', content }, { role: 'assistant', content: 'noted' }];
  await saveTranscript(db, { kind: 'run', session_key: 'job:alice-daily', memory_scope: 'alice', run_id: 'run_alice1', job_id: 'job_1', execution_id: 'e1', prompt: 'x', messages: turn('the flamingo budget for march') });
  await saveTranscript(db, { kind: 'session', session_key: 'cli:alice', memory_scope: 'alice', execution_id: 'e2', prompt: 'x', messages: turn('flamingo flamingo flamingo everywhere') });
  await saveTranscript(db, { kind: 'session', session_key: 'cli:bob', memory_scope: 'bob', execution_id: 'e3', prompt: 'x', messages: turn('bob has a flamingo too') });
  await saveTranscript(db, { kind: 'session', session_key: 'anon-1', memory_scope: '', execution_id: 'e4', prompt: 'x', messages: turn('anonymous flamingo') });
  await saveTranscript(db, { kind: 'session', session_key: 'anon-2', memory_scope: '', execution_id: 'e5', prompt: 'x', messages: turn('another anonymous flamingo') });
});

describe('session_search', () => {
  it('finds past transcripts of the memory scope, best match first, with session, run, time and snippet', async () => {
    const results = await search('flamingo', { memory_scope: 'alice', session_key: 'cli:alice' });
    expect(results.map((r) => r.session_key)).toEqual(['cli:alice', 'job:alice-daily']);
    expect(results[1]).toMatchObject({ run_id: 'run_alice1' });
    expect(results[0]).toMatchObject({ run_id: null });
    expect(Date.parse(results[0]!.created_at)).not.toBeNaN();
    expect(results[1]!.snippet).toContain('**flamingo**');
    expect(await search('budget march', { memory_scope: 'alice', session_key: 'x' })).toHaveLength(1);
    expect(await search('flamingo', { memory_scope: 'alice', session_key: 'x' }, 1)).toHaveLength(1);
  });

  it.each([
    ['bob sees only his own scope', { memory_scope: 'bob', session_key: 'cli:bob' }, ['cli:bob']],
    ["bob's session key does not widen his scope", { memory_scope: 'bob', session_key: 'cli:alice' }, ['cli:bob']],
    ['no memory scope: only the own session', { memory_scope: '', session_key: 'anon-1' }, ['anon-1']],
    ["no memory scope: a scoped session's transcripts stay hidden", { memory_scope: '', session_key: 'cli:alice' }, []],
    ['an unknown scope sees nothing', { memory_scope: 'mallory', session_key: 'anon-1' }, []],
  ])('%s', async (_name, who, sessions) => {
    expect((await search('flamingo', who)).map((r) => r.session_key)).toEqual(sessions);
  });

  it.each([
    [{}, 'query: is required'],
    [{ query: '' }, 'query: must NOT have fewer than 1 characters'],
    [{ query: 'x', limit: 101 }, 'limit: must be <= 100'],
    [{ query: 'x', session: 'y' }, 'session: is not a known parameter'],
  ])('refuses bad arguments %j naming the field', async (params, message) => {
    const r = await executeTool(tool(), params, buildContext({ memory_scope: 'alice' }));
    expect(r).toMatchObject({ success: false, errorKind: 'validation' });
    expect(r.error).toContain(message);
  });

  it('refuses a context with neither a memory scope nor a session key', async () => {
    const r = await executeTool(tool(), { query: 'flamingo' }, buildContext({}));
    expect(r).toMatchObject({ success: false, errorKind: 'business' });
  });

  it('is unavailable and not ready without a database', async () => {
    const t = sessionSearchTool(defaultConfig(), null);
    expect(t.isReady()).toBe(false);
    expect(await executeTool(t, { query: 'x' }, buildContext({ memory_scope: 'alice' }))).toMatchObject({ success: false, errorKind: 'unavailable' });
  });
});
