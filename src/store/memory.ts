import { and, asc, eq, sql } from 'drizzle-orm';
import { memories, type MemoryRow } from './catalog-schema.ts';
import type { Executor } from './db.ts';

export async function getMemory(exec: Executor, scope: string, key: string): Promise<MemoryRow | null> {
  const [row] = await exec.select().from(memories).where(and(eq(memories.memory_scope, scope), eq(memories.key, key)));
  return row ?? null;
}

/** Inserts or overwrites; `created` tells which. */
export async function setMemory(exec: Executor, scope: string, key: string, value: string): Promise<{ created: boolean; updated_at: Date }> {
  const [row] = await exec.insert(memories).values({ memory_scope: scope, key, value })
    .onConflictDoUpdate({ target: [memories.memory_scope, memories.key], set: { value, updated_at: sql`now()` } })
    // xmax is 0 only on a freshly inserted row version
    .returning({ updated_at: memories.updated_at, created: sql<boolean>`(xmax = 0)` });
  return row!;
}

export async function deleteMemory(exec: Executor, scope: string, key: string): Promise<boolean> {
  const gone = await exec.delete(memories).where(and(eq(memories.memory_scope, scope), eq(memories.key, key))).returning({ key: memories.key });
  return gone.length > 0;
}

export async function listMemories(exec: Executor, scope: string, limit: number): Promise<{ key: string; updated_at: Date }[]> {
  return exec.select({ key: memories.key, updated_at: memories.updated_at }).from(memories)
    .where(eq(memories.memory_scope, scope)).orderBy(asc(memories.key)).limit(limit);
}
