import { and, eq, lt, sql } from 'drizzle-orm';
import { SpillQuotaError, spillText, type SpillMeta, type SpillPage, type SpillStore } from '../tools/spill.ts';
import { spills } from './catalog-schema.ts';
import type { Executor } from './db.ts';
import { newId } from './ids.ts';

// Offsets are characters (code points), as substr/char_length count them in a UTF8 database; see SpillStore.

/**
 * What one run (its sub-agents and retries included) may keep in the spill store. Spills stay for
 * tools.spill_retention_hours: without a cap, a run without any grant filled the database with read-only calls
 * (48 reads of one 9.5 MB file, 474 MB in three turns).
 */
export const SPILL_BYTES_PER_RUN = 64 * 1024 * 1024;

export async function putSpill(exec: Executor, content: string, meta: SpillMeta, quota = SPILL_BYTES_PER_RUN): Promise<string> {
  const text = spillText(content);
  const bytes = Buffer.byteLength(text);
  const run = meta.run || meta.execution_id;
  // a context with neither (none in runs or sessions) shares no quota with others
  if (run === '') return insertSpill(exec, meta, '', text, bytes);
  return exec.transaction(async (tx) => {
    // a turn's parallel reads, or two sub-agents, cannot all pass the quota check together
    await tx.execute(sql`select pg_advisory_xact_lock(${SPILL_LOCK_CLASS}, hashtext(${run}))`);
    // the same text again (one file read many times) is the spill already kept: compared whole, not by a hash one could collide
    const [same] = await tx.select({ id: spills.id }).from(spills)
      .where(and(eq(spills.run_trace, run), eq(spills.bytes, bytes), eq(spills.content, text))).limit(1);
    if (same) return same.id;
    const [{ held }] = await tx.select({ held: sql<number>`coalesce(sum(${spills.bytes}), 0)`.mapWith(Number) }).from(spills).where(eq(spills.run_trace, run)) as [{ held: number }];
    if (held + bytes > quota) {
      throw new SpillQuotaError(`this run already keeps ${Math.round(held / 1024 / 1024)} MiB of spilled output, and ${Math.round(bytes / 1024 / 1024)} MiB more would pass the ${quota / 1024 / 1024} MiB it may keep; read less at once (offset, limit)`);
    }
    return insertSpill(tx, meta, run, text, bytes);
  });
}

async function insertSpill(exec: Executor, meta: SpillMeta, run: string, text: string, bytes: number): Promise<string> {
  const id = newId('spl');
  await exec.insert(spills).values({ id, tool: meta.tool, execution_id: meta.execution_id, run_trace: run, content: text, bytes });
  return id;
}

/** Advisory lock class for "one run stores a spill". */
const SPILL_LOCK_CLASS = 0x7370696c; // 'spil'

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
