import { describe, expect, it } from 'vitest';
import { defaultConfig } from '../../src/config/schema.ts';
import { pgSpillStore } from '../../src/store/spills.ts';
import { readSpillTool } from '../../src/tools/catalog/read-spill.ts';
import { buildContext } from '../../src/tools/context.ts';
import { executeTool } from '../../src/tools/executor.ts';
import { MemorySpillStore, type SpillStore } from '../../src/tools/spill.ts';
import type { ToolResult } from '../../src/tools/types.ts';
import { useTestDatabase } from '../support/db.ts';

const database = useTestDatabase();
const THRESHOLD = 1000;
const text = Array.from({ length: 500 }, (_, i) => `${i}:中`).join(' '); // 3,889 characters

const out = <T = Record<string, unknown>>(r: ToolResult) => {
  expect(r.error).toBeUndefined();
  return r.output as T;
};

describe.each([
  ['in-memory', (): SpillStore => new MemorySpillStore()],
  ['PostgreSQL', (): SpillStore => pgSpillStore(database().db)],
])('read_spill over the %s store', (_name, makeStore) => {
  const setup = async () => {
    const store = makeStore();
    const id = await store.put(text, { tool: 'web_fetch', execution_id: 'exe-1' });
    const tool = readSpillTool(defaultConfig({ tools: { spill_threshold_bytes: THRESHOLD } }), store);
    // a context other than the one that spilled: spills are tied to no session
    const call = (params: Record<string, unknown>) => executeTool(tool, params, buildContext({ session_key: 'someone-else', tool: 'read_spill', params }));
    return { id, call };
  };

  it('reads a page at an offset and says where the next one starts', async () => {
    const { id, call } = await setup();
    expect(out(await call({ spill_id: id, offset: 10, limit: 20 }))).toEqual({
      spill_id: id, offset: 10, content: [...text].slice(10, 30).join(''), total_chars: [...text].length, next_offset: 30,
    });
  });

  it('defaults to offset 0 and a limit of spill_threshold_bytes characters, and caps larger limits', async () => {
    const { id, call } = await setup();
    const first = out<{ content: string; next_offset: number }>(await call({ spill_id: id }));
    expect([...first.content].length).toBe(THRESHOLD);
    expect(first.next_offset).toBe(THRESHOLD);
    const capped = out<{ content: string; limit_capped_at: number }>(await call({ spill_id: id, offset: 0, limit: 50_000 }));
    expect([...capped.content].length).toBe(THRESHOLD);
    expect(capped.limit_capped_at).toBe(THRESHOLD);
  });

  it('reads to the end with next_offset null, and refuses an offset past the end naming offset', async () => {
    const { id, call } = await setup();
    const total = [...text].length;
    expect(out(await call({ spill_id: id, offset: total - 3 }))).toMatchObject({ content: [...text].slice(-3).join(''), next_offset: null });
    expect(out(await call({ spill_id: id, offset: total }))).toMatchObject({ content: '', next_offset: null });
    const r = await call({ spill_id: id, offset: total + 1 });
    expect(r).toMatchObject({ success: false, errorKind: 'business' });
    expect(r.error).toBe(`read_spill: offset: ${total + 1} is past the end of the spill, which has ${total} characters`);
  });

  it('refuses an unknown spill id as a business error naming spill_id', async () => {
    const { call } = await setup();
    const r = await call({ spill_id: 'spl_doesnotexist' });
    expect(r).toMatchObject({ success: false, errorKind: 'business' });
    expect(r.error).toContain('read_spill: spill_id: no spill "spl_doesnotexist" exists');
  });

  it.each([
    [{}, 'spill_id: is required'],
    [{ spill_id: '' }, 'spill_id: must NOT have fewer than 1 characters'],
    [{ spill_id: 'spl_x', offset: -1 }, 'offset: must be >= 0'],
    [{ spill_id: 'spl_x', limit: 0 }, 'limit: must be >= 1'],
    [{ spill_id: 'spl_x', page: 2 }, 'page: is not a known parameter'],
  ])('refuses bad arguments %j naming the field', async (params, message) => {
    const { call } = await setup();
    const r = await call(params);
    expect(r.errorKind).toBe('validation');
    expect(r.error).toContain(message);
  });
});
