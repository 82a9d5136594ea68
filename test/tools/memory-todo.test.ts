import { describe, expect, it } from 'vitest';
import { defaultConfig } from '../../src/config/schema.ts';
import { effectLedger } from '../../src/store/effects.ts';
import { deleteMemory, getMemory } from '../../src/store/memory.ts';
import { listTodos } from '../../src/store/todos.ts';
import { buildContext } from '../../src/tools/context.ts';
import { executeTool } from '../../src/tools/executor.ts';
import { memoryTool } from '../../src/tools/catalog/memory.ts';
import { todoTool } from '../../src/tools/catalog/todo.ts';
import type { Tool, ToolResult } from '../../src/tools/types.ts';
import { useTestDatabase } from '../support/db.ts';

const database = useTestDatabase();
const memory = () => memoryTool(defaultConfig(), database().db);
const todo = () => todoTool(defaultConfig(), database().db);

const call = (tool: Tool, params: Record<string, unknown>, who: { memory_scope?: string; session_key?: string } = {}) =>
  executeTool(tool, params, buildContext({ memory_scope: 'alice', session_key: 'cli:alice', ...who, tool: tool.name, params }));
const out = <T = Record<string, unknown>>(r: ToolResult) => {
  expect(r.error).toBeUndefined();
  return r.output as T;
};
type Item = { id: string; text: string; done: boolean; created_at: string; done_at: string | null };

describe('memory', () => {
  it('sets, gets, overwrites, lists and deletes keys of the memory scope', async () => {
    expect(out(await call(memory(), { action: 'set', key: 'favourite.colour', value: 'teal' }))).toMatchObject({ key: 'favourite.colour', created: true });
    expect(out(await call(memory(), { action: 'set', key: 'favourite.colour', value: 'amber' }))).toMatchObject({ created: false });
    expect(out(await call(memory(), { action: 'set', key: 'city', value: 'Lyon' }))).toMatchObject({ created: true });
    expect(out(await call(memory(), { action: 'get', key: 'favourite.colour' }))).toMatchObject({ found: true, value: 'amber' });
    const listed = out<{ keys: { key: string; updated_at: string }[] }>(await call(memory(), { action: 'list' }));
    expect(listed.keys.map((k) => k.key)).toEqual(['city', 'favourite.colour']);
    expect(Date.parse(listed.keys[0]!.updated_at)).not.toBeNaN();
    expect(out(await call(memory(), { action: 'delete', key: 'city' }))).toEqual({ key: 'city', deleted: true });
    expect(out(await call(memory(), { action: 'delete', key: 'city' }))).toEqual({ key: 'city', deleted: false });
    expect(out(await call(memory(), { action: 'get', key: 'city' }))).toEqual({ key: 'city', found: false });
  });

  it('a value the database cannot store (NUL) is a validation error that quotes no SQL, not a retryable crash', async () => {
    const r = await call(memory(), { action: 'set', key: 'k', value: 'x\u0000y' });
    expect(r).toMatchObject({ success: false, errorKind: 'validation' });
    expect(r.error).toMatch(/cannot store \(such as NUL\)/);
    expect(r.error).not.toMatch(/insert into|params:/i);
    const t = await call(todo(), { action: 'add', text: 'a\u0000b' });
    expect(t).toMatchObject({ success: false, errorKind: 'validation' });
  });

  it("keeps each scope's memory to itself", async () => {
    out(await call(memory(), { action: 'set', key: 'pin', value: 'alice-only' }, { memory_scope: 'alice' }));
    out(await call(memory(), { action: 'set', key: 'pin', value: 'bob-only' }, { memory_scope: 'bob' }));
    expect(out(await call(memory(), { action: 'get', key: 'pin' }, { memory_scope: 'bob' }))).toMatchObject({ value: 'bob-only' });
    expect(out(await call(memory(), { action: 'delete', key: 'pin' }, { memory_scope: 'bob' }))).toMatchObject({ deleted: true });
    expect(out(await call(memory(), { action: 'get', key: 'pin' }, { memory_scope: 'alice' }))).toMatchObject({ value: 'alice-only' });
    expect(out<{ keys: unknown[] }>(await call(memory(), { action: 'list' }, { memory_scope: 'carol' })).keys).toEqual([]);
  });

  it.each([
    [{}, 'action: is required'],
    [{ action: 'forget' }, 'action: expected one of get, set, delete, list'],
    [{ action: 'set', value: 'v' }, 'key: is required for action set'],
    [{ action: 'set', key: 'k' }, 'value: is required for action set'],
    [{ action: 'get', key: 'k', value: 'v' }, 'value: is not used by action get'],
    [{ action: 'list', key: 'k' }, 'key: is not used by action list'],
    [{ action: 'get', key: 'has space' }, 'key: must be 1-128 characters'],
    [{ action: 'get', key: 'k'.repeat(129) }, 'key: must be 1-128 characters'],
    [{ action: 'set', key: 'k', value: 'x'.repeat(64 * 1024 + 1) }, 'value: is 65537 bytes, over the 65536-byte limit'],
    [{ action: 'set', key: 'k', value: 7 }, 'value: must be string'],
  ])('refuses bad arguments %j naming the field', async (params, message) => {
    const r = await call(memory(), params);
    expect(r).toMatchObject({ success: false, errorKind: 'validation' });
    expect(r.error).toContain(message);
  });

  it('refuses a context without a memory scope, and values carrying credentials', async () => {
    expect(await call(memory(), { action: 'list' }, { memory_scope: '' })).toEqual({ success: false, errorKind: 'business', error: 'memory: this context has no memory scope' });
    const r = await call(memory(), { action: 'set', key: 'creds', value: 'api_key=abcdef123456' });
    expect(r).toMatchObject({ success: false, errorKind: 'business' });
    expect(r.error).toContain('value:');
    expect(r.error).not.toContain('abcdef123456');
    expect(await getMemory(database().db, 'alice', 'creds')).toBeNull();
  });

  it('applies a replayed set once: the recorded result, not a second write', async () => {
    const ledger = effectLedger(database().db);
    const params = { action: 'set', key: 'replayed', value: 'v1' };
    const first = buildContext({ memory_scope: 'alice', tool: 'memory', params });
    const done = await executeTool(memory(), params, first, { ledger });
    expect(done.output).toMatchObject({ created: true });
    await deleteMemory(database().db, 'alice', 'replayed');
    const replay = buildContext({ trace_id: first.trace_id, memory_scope: 'alice', tool: 'memory', params, is_replay: true });
    expect(await executeTool(memory(), params, replay, { ledger })).toEqual(done);
    expect(await getMemory(database().db, 'alice', 'replayed')).toBeNull();
  });
});

describe('todo', () => {
  it('adds, lists, completes and removes items of the session', async () => {
    const a = out<{ item: Item }>(await call(todo(), { action: 'add', text: '  write the report  ' })).item;
    const b = out<{ item: Item }>(await call(todo(), { action: 'add', text: 'send it' })).item;
    expect(a).toMatchObject({ text: 'write the report', done: false, done_at: null });
    expect(a.id).toMatch(/^tdo_[a-z2-7]{26}$/);
    const done = out<{ item: Item }>(await call(todo(), { action: 'done', id: a.id })).item;
    expect(done.done).toBe(true);
    expect(done.done_at).not.toBeNull();
    // done twice keeps the first completion time
    expect(out<{ item: Item }>(await call(todo(), { action: 'done', id: a.id })).item.done_at).toBe(done.done_at);
    expect(out<{ items: Item[] }>(await call(todo(), { action: 'list' })).items.map((i) => [i.text, i.done])).toEqual([['write the report', true], ['send it', false]]);
    expect(out(await call(todo(), { action: 'remove', id: b.id }))).toEqual({ id: b.id, removed: true });
    expect(out<{ items: Item[] }>(await call(todo(), { action: 'list' })).items.map((i) => i.id)).toEqual([a.id]);
  });

  it("keeps each session's list to itself: another session can neither see nor change an item", async () => {
    const mine = out<{ item: Item }>(await call(todo(), { action: 'add', text: 'private task' }, { session_key: 'cli:one' })).item;
    expect(out<{ items: Item[] }>(await call(todo(), { action: 'list' }, { session_key: 'cli:two' })).items).toEqual([]);
    for (const action of ['done', 'remove']) {
      const r = await call(todo(), { action, id: mine.id }, { session_key: 'cli:two' });
      expect(r).toMatchObject({ success: false, errorKind: 'business', error: `id: this session has no todo item ${mine.id}` });
    }
    expect(await listTodos(database().db, 'cli:one')).toMatchObject([{ id: mine.id, done: false }]);
  });

  it.each([
    [{ action: 'add' }, 'text: is required for action add'],
    [{ action: 'add', text: '   ' }, 'text: must not be empty'],
    [{ action: 'add', text: 'x'.repeat(2001) }, 'text: is 2001 characters'],
    [{ action: 'done' }, 'id: is required for action done'],
    [{ action: 'remove', id: 'job_abc' }, 'id: "job_abc" is not a todo id'],
    [{ action: 'list', text: 'x' }, 'text: is not used by action list'],
    [{ action: 'finish', id: 'tdo_a' }, 'action: expected one of add, list, done, remove'],
  ])('refuses bad arguments %j naming the field', async (params, message) => {
    const r = await call(todo(), params);
    expect(r).toMatchObject({ success: false, errorKind: 'validation' });
    expect(r.error).toContain(message);
  });

  it('refuses a context without a session key', async () => {
    expect(await call(todo(), { action: 'list' }, { session_key: '' })).toMatchObject({ success: false, errorKind: 'business', error: 'todo: this context has no session key' });
  });

  it('applies a replayed add once: one item, the recorded id', async () => {
    const ledger = effectLedger(database().db);
    const params = { action: 'add', text: 'only once' };
    const first = buildContext({ session_key: 'cli:replay', tool: 'todo', params });
    const done = await executeTool(todo(), params, first, { ledger });
    const replay = buildContext({ trace_id: first.trace_id, session_key: 'cli:replay', tool: 'todo', params, is_replay: true });
    expect(await executeTool(todo(), params, replay, { ledger })).toEqual(done);
    const items = await listTodos(database().db, 'cli:replay');
    expect(items.map((i) => i.id)).toEqual([(done.output as { item: Item }).item.id]);
  });
});

it('memory and todo are unavailable and not ready without a database', async () => {
  for (const t of [memoryTool(defaultConfig(), null), todoTool(defaultConfig(), null)]) {
    expect(t.isReady()).toBe(false);
    expect(await call(t, { action: 'list' })).toMatchObject({ success: false, errorKind: 'unavailable', error: `${t.name}: needs the database` });
  }
});
