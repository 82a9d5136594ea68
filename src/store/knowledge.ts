import { and, eq, or, sql, type SQL } from 'drizzle-orm';
import { knowledgeChunks } from './catalog-schema.ts';
import type { Executor } from './db.ts';
import { newId } from './ids.ts';
import { redactText } from '../util/redact.ts';

export interface KnowledgeDocument {
  /** Relative to the workspace (or absolute when outside it), forward slashes. */
  readonly path: string;
  readonly chunks: readonly string[];
}

export interface KnowledgeHit {
  readonly path: string;
  readonly chunk: number;
  readonly score: number;
  readonly snippet: string;
}

const INSERT_BATCH = 200;

/** The stored paths a re-index of `under` covers: itself and everything below; '' is the whole workspace. */
function coveredBy(under: string): SQL {
  if (under === '') return sql`not starts_with(${knowledgeChunks.path}, '/')`;
  const prefix = under.endsWith('/') ? under : `${under}/`;
  return or(eq(knowledgeChunks.path, under), sql`starts_with(${knowledgeChunks.path}, ${prefix})`)!;
}

/**
 * Replaces the scope's chunks under `under` with `documents`, in one transaction: a file that
 * is gone since the last index loses its chunks, and a failed index leaves the old ones.
 */
export async function replaceKnowledge(
  exec: Executor, input: { memory_scope: string; under: string; documents: readonly KnowledgeDocument[] },
): Promise<{ chunks: number; removed: number }> {
  return exec.transaction(async (tx) => {
    const gone = await tx.delete(knowledgeChunks)
      .where(and(eq(knowledgeChunks.memory_scope, input.memory_scope), coveredBy(input.under)))
      .returning({ id: knowledgeChunks.id });
    const rows = input.documents.flatMap((d) => d.chunks.map((content, chunk) => ({
      // stored redacted (I11): a snippet is cut and highlighted by the database, where a credential's shape is lost
      id: newId('kno'), memory_scope: input.memory_scope, path: d.path, chunk, content: redactText(content),
    })));
    for (let i = 0; i < rows.length; i += INSERT_BATCH) {
      await tx.insert(knowledgeChunks).values(rows.slice(i, i + INSERT_BATCH));
    }
    return { chunks: rows.length, removed: gone.length };
  });
}

const HEADLINE = 'StartSel=**, StopSel=**, MaxWords=35, MinWords=12, MaxFragments=2, FragmentDelimiter=" … "';

/** Full-text search over one scope's chunks only, best first. */
export async function searchKnowledge(
  exec: Executor, input: { memory_scope: string; query: string; limit: number },
): Promise<KnowledgeHit[]> {
  const q = sql`websearch_to_tsquery('simple', ${input.query})`;
  const rows = await exec.select({
    path: knowledgeChunks.path,
    chunk: knowledgeChunks.chunk,
    score: sql<number>`ts_rank(${knowledgeChunks.tsv}, ${q})`.mapWith(Number),
    snippet: sql<string>`ts_headline('simple', ${knowledgeChunks.content}, ${q}, ${HEADLINE})`,
  }).from(knowledgeChunks)
    .where(and(eq(knowledgeChunks.memory_scope, input.memory_scope), sql`${knowledgeChunks.tsv} @@ ${q}`))
    .orderBy(sql`3 desc`, knowledgeChunks.path, knowledgeChunks.chunk)
    .limit(input.limit);
  return rows;
}
