import { eq, sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { spills } from '../../src/store/catalog-schema.ts';
import { deleteSpillsBefore, pgSpillStore, putSpill } from '../../src/store/spills.ts';
import { charCount, MemorySpillStore, pageOf, previewOf, SpillQuotaError, type SpillStore } from '../../src/tools/spill.ts';
import { useTestDatabase } from '../support/db.ts';

const database = useTestDatabase();
const meta = { tool: 'read_file', execution_id: 'exe-1' };

const stores: [string, () => SpillStore][] = [
  ['PostgreSQL', () => pgSpillStore(database().db)],
  ['in-memory', () => new MemorySpillStore()],
];

describe.each(stores)('%s spill store', (_name, store) => {
  it('gives a 128-bit random spl_ id and reads the content back whole', async () => {
    const s = store();
    const a = await s.put('hello spill', meta);
    const b = await s.put('hello spill', { ...meta, execution_id: 'exe-other' });
    expect(a).toMatch(/^spl_[a-z2-7]{26}$/);
    expect(b).not.toBe(a);
    expect(await s.get(a, 0, 100)).toEqual({ content: 'hello spill', total: 11, next_offset: null });
  });

  it('pages by characters, not bytes or UTF-16 units', async () => {
    const s = store();
    const text = 'aé😀中b'.repeat(3); // 1-, 2-, 4- and 3-byte characters; the emoji is two UTF-16 units
    const id = await s.put(text, meta);
    const pages: string[] = [];
    let offset: number | null = 0;
    while (offset !== null) {
      const page: { content: string; total: number; next_offset: number | null } | null = await s.get(id, offset, 4);
      expect(page!.total).toBe(15);
      pages.push(page!.content);
      offset = page!.next_offset;
    }
    expect(pages).toEqual(['aé😀中', 'baé😀', '中baé', '😀中b']);
    expect(pages.join('')).toBe(text);
  });

  it.each([
    ['the last page', 8, 5, 'ij', null],
    ['a page ending exactly at the end', 5, 5, 'fghij', null],
    ['a page in the middle', 2, 3, 'cde', 5],
    ['an offset at the end', 10, 5, '', null],
    ['an offset past the end', 12, 5, '', null],
  ])('reads %s', async (_case, offset, limit, content, next) => {
    const s = store();
    const id = await s.put('abcdefghij', meta);
    expect(await s.get(id, offset, limit)).toEqual({ content, total: 10, next_offset: next });
  });

  it('answers null for an id it never gave', async () => {
    expect(await store().get('spl_aaaaaaaaaaaaaaaaaaaaaaaaaa', 0, 10)).toBeNull();
    expect(await store().get("x' or '1'='1", 0, 10)).toBeNull();
  });

  it('keeps NUL characters as U+FFFD, since PostgreSQL text cannot hold them', async () => {
    const s = store();
    const id = await s.put('a\0b', meta);
    expect(await s.get(id, 0, 10)).toEqual({ content: 'a\uFFFDb', total: 3, next_offset: null });
  });
});

describe('PostgreSQL spill store', () => {
  it('records the tool, execution and byte size with the content', async () => {
    const id = await pgSpillStore(database().db).put('héllo', { tool: 'web_fetch', execution_id: 'exe-42' });
    const [row] = await database().db.select().from(spills).where(eq(spills.id, id));
    expect(row).toMatchObject({ tool: 'web_fetch', execution_id: 'exe-42', content: 'héllo', bytes: 6 });
  });

  it('deletes spills created before a cutoff and keeps newer ones', async () => {
    const store = pgSpillStore(database().db);
    const old = await store.put('old', meta);
    const fresh = await store.put('fresh', meta);
    await database().db.update(spills).set({ created_at: sql`now() - interval '2 days'` }).where(eq(spills.id, old));
    const removed = await deleteSpillsBefore(database().db, new Date(Date.now() - 24 * 3600 * 1000));
    expect(removed).toBeGreaterThanOrEqual(1);
    expect(await store.get(old, 0, 10)).toBeNull();
    expect(await store.get(fresh, 0, 10)).toMatchObject({ content: 'fresh' });
  });
});

describe('in-memory spill store', () => {
  it('drops the oldest spills past its entry bound', async () => {
    const s = new MemorySpillStore({ maxEntries: 2 });
    const ids = [await s.put('one', meta), await s.put('two', meta), await s.put('three', meta)];
    expect(await s.get(ids[0]!, 0, 10)).toBeNull();
    expect((await s.get(ids[1]!, 0, 10))?.content).toBe('two');
    expect((await s.get(ids[2]!, 0, 10))?.content).toBe('three');
  });

  it('drops the oldest spills past its size bound, but always keeps the newest', async () => {
    const s = new MemorySpillStore({ maxUnits: 10 });
    const a = await s.put('x'.repeat(6), meta);
    const b = await s.put('y'.repeat(6), meta);
    const big = await s.put('z'.repeat(50), meta);
    expect(await s.get(a, 0, 1)).toBeNull();
    expect(await s.get(b, 0, 1)).toBeNull();
    expect((await s.get(big, 0, 100))?.total).toBe(50);
  });
});

describe('character helpers', () => {
  it('counts code points and pages strings with surrogate pairs', () => {
    expect(charCount('a😀b')).toBe(3);
    expect(pageOf('a😀b', 1, 1)).toEqual({ content: '😀', total: 3, next_offset: 2 });
  });

  it('cuts a preview at a line end when one is near, and never inside a surrogate pair', () => {
    expect(previewOf('line\n'.repeat(2000), 4096)).toBe('line\n'.repeat(819));
    const pairs = previewOf('😀'.repeat(3000), 4095);
    expect(pairs.length).toBe(4094);
    expect(pairs).toBe('😀'.repeat(2047));
    expect(previewOf('short', 4096)).toBe('short');
  });
});

describe('what one run may keep in the spill store', () => {
  it('the same text spilled again in one run is the spill already kept, not another copy', async () => {
    const { db } = database();
    const text = 'a large file read again and again\n'.repeat(100);
    const ids = await Promise.all(Array.from({ length: 8 }, (_, i) => putSpill(db, text, { tool: 'read_file', execution_id: `exe-again-${i % 2}`, run: 'run-again' })));
    expect(new Set(ids).size).toBe(1);
    expect((await db.select().from(spills).where(eq(spills.run_trace, 'run-again'))).length).toBe(1);
    // text of the same length is not taken for it: compared whole
    const other = await putSpill(db, text.replace('a large', 'A large'), { tool: 'read_file', execution_id: 'exe-again-0', run: 'run-again' });
    expect(other).not.toBe(ids[0]);
  });

  it('past its quota a spill is refused with what to do instead, whichever sub-agent or attempt asks; another run keeps its own', async () => {
    const { db } = database();
    const quota = 1_000;
    // a turn's parallel calls from the run and two of its sub-agents (executions of their own): one quota, not three
    const puts = await Promise.allSettled(Array.from({ length: 6 }, (_, i) => putSpill(db, `${i}`.repeat(300), { tool: 'read_file', execution_id: `exe-quota-${i % 3}`, run: 'run-quota' }, quota)));
    expect(puts.filter((p) => p.status === 'fulfilled')).toHaveLength(3);
    const refused = puts.find((p): p is PromiseRejectedResult => p.status === 'rejected')!.reason as Error;
    expect(refused).toBeInstanceOf(SpillQuotaError);
    expect(refused.message).toMatch(/this run already keeps .* read less at once/);
    const [{ held }] = await db.execute<{ held: number }>(sql`select sum(bytes)::int as held from spills where run_trace = 'run-quota'`).then((r) => r.rows as [{ held: number }]);
    expect(held).toBeLessThanOrEqual(quota);
    await expect(putSpill(db, 'x'.repeat(300), { tool: 'read_file', execution_id: 'exe-elsewhere', run: 'run-elsewhere' }, quota)).resolves.toMatch(/^spl_/);
  });
});
