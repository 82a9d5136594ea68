import { eq, lt, sql } from 'drizzle-orm';
import { spillText, type SpillMeta, type SpillPage, type SpillStore } from '../tools/spill.ts';
import { spills } from './catalog-schema.ts';
import type { Executor } from './db.ts';
import { newId } from './ids.ts';

// Offsets are characters (code points), as substr/char_length count them in a UTF8 database; see SpillStore.

export async function putSpill(exec: Executor, content: string, meta: SpillMeta): Promise<string> {
  const text = spillText(content);
  const id = newId('spl');
  await exec.insert(spills).values({ id, tool: meta.tool, execution_id: meta.execution_id, content: text, bytes: Buffer.byteLength(text) });
  return id;
}

/** One page of a spill, cut by the database so a large spill is never read whole. */
export async function getSpill(exec: Executor, id: string, offset: number, limit: number): Promise<SpillPage | null> {
  const [row] = await exec.select({
    content: sql<string>`substr(${spills.content}, ${offset + 1}::int, ${limit}::int)`,
    total: sql<number>`char_length(${spills.content})`.mapWith(Number),
  }).from(spills).where(eq(spills.id, id));
  if (!row) return null;
  const stop = Math.min(offset + limit, row.total);
  return { content: row.content, total: row.total, next_offset: stop < row.total ? stop : null };
}

/** Drops spills created before `cutoff`; returns how many. */
export async function deleteSpillsBefore(exec: Executor, cutoff: Date): Promise<number> {
  const gone = await exec.delete(spills).where(lt(spills.created_at, cutoff)).returning({ id: spills.id });
  return gone.length;
}

export function pgSpillStore(exec: Executor): SpillStore {
  return {
    put: (content, meta) => putSpill(exec, content, meta),
    get: (id, offset, limit) => getSpill(exec, id, offset, limit),
  };
}
