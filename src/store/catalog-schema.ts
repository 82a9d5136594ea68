import { sql } from 'drizzle-orm';
import { boolean, customType, index, integer, jsonb, pgTable, primaryKey, text, timestamp, unique } from 'drizzle-orm/pg-core';

// The tables of the tool catalog (spills, knowledge, memory, todos, transcripts, skills).
// Self-contained like schema.ts: drizzle-kit loads both files on their own.

const tz = (name: string) => timestamp(name, { withTimezone: true, mode: 'date' });
const tsvector = customType<{ data: string }>({ dataType: () => 'tsvector' });
// 'simple': no stemming dictionary to pick per language; every word is searchable as written
const searchable = (column: string) => tsvector('tsv').generatedAlwaysAs(sql.raw(`to_tsvector('simple', coalesce(${column}, ''))`));

/** Tool output too large to hand to the model whole; `read_spill` reads it back by id. */
export const spills = pgTable('spills', {
  id: text('id').primaryKey(),
  execution_id: text('execution_id').notNull().default(''),
  /** The run (or attended turn) whose execution kept it, sub-agents and retries included: what the quota counts. */
  run_trace: text('run_trace').notNull().default(''),
  tool: text('tool').notNull(),
  content: text('content').notNull(),
  bytes: integer('bytes').notNull(),
  created_at: tz('created_at').notNull().defaultNow(),
}, (t) => [index('spills_created_idx').on(t.created_at), index('spills_run_trace_idx').on(t.run_trace)]);

/** Indexed text of files, per memory_scope, for knowledge_search (PostgreSQL full-text search). */
export const knowledgeChunks = pgTable('knowledge_chunks', {
  id: text('id').primaryKey(),
  memory_scope: text('memory_scope').notNull(),
  path: text('path').notNull(),
  chunk: integer('chunk').notNull(),
  content: text('content').notNull(),
  tsv: searchable('content'),
  indexed_at: tz('indexed_at').notNull().defaultNow(),
}, (t) => [
  unique('knowledge_chunks_scope_path_chunk').on(t.memory_scope, t.path, t.chunk),
  index('knowledge_chunks_tsv_idx').using('gin', t.tsv),
]);

/** Key-value memory per memory_scope. */
export const memories = pgTable('memories', {
  memory_scope: text('memory_scope').notNull(),
  key: text('key').notNull(),
  value: text('value').notNull(),
  updated_at: tz('updated_at').notNull().defaultNow(),
}, (t) => [primaryKey({ columns: [t.memory_scope, t.key] })]);

/** The todo list of a session. */
export const todos = pgTable('todos', {
  id: text('id').primaryKey(),
  session_key: text('session_key').notNull(),
  text: text('text').notNull(),
  done: boolean('done').notNull().default(false),
  created_at: tz('created_at').notNull().defaultNow(),
  done_at: tz('done_at'),
}, (t) => [index('todos_session_idx').on(t.session_key, t.created_at)]);

export type TranscriptMessage = { role: string; content: string | null; name?: string; tool_calls?: unknown[]; tool_call_id?: string };

/** The transcript of an agent turn (a daemon run or an attended session), for session_search. */
export const transcripts = pgTable('transcripts', {
  id: text('id').primaryKey(),
  kind: text('kind', { enum: ['run', 'session'] }).notNull(),
  session_key: text('session_key').notNull(),
  memory_scope: text('memory_scope').notNull().default(''),
  run_id: text('run_id'),
  job_id: text('job_id'),
  execution_id: text('execution_id').notNull(),
  prompt: text('prompt').notNull(),
  messages: jsonb('messages').$type<TranscriptMessage[]>().notNull(),
  // flattened messages, redacted, what the full-text index covers
  text: text('text').notNull(),
  tsv: searchable('text'),
  created_at: tz('created_at').notNull().defaultNow(),
}, (t) => [
  index('transcripts_tsv_idx').using('gin', t.tsv),
  index('transcripts_run_idx').on(t.run_id),
]);

export interface SkillManifest {
  name: string;
  version: string;
  description: string;
  entry?: string;
  [key: string]: unknown;
}

/** Installed skills: where they came from, who installed them, whether they are enabled. */
export const skills = pgTable('skills', {
  name: text('name').primaryKey(),
  version: text('version').notNull(),
  description: text('description').notNull(),
  enabled: boolean('enabled').notNull().default(true),
  dir: text('dir').notNull(),
  source: text('source').notNull(),
  manifest: jsonb('manifest').$type<SkillManifest>().notNull(),
  installed_by: text('installed_by').notNull(),
  installed_at: tz('installed_at').notNull().defaultNow(),
  updated_at: tz('updated_at').notNull().defaultNow(),
});

export type SpillRow = typeof spills.$inferSelect;
export type KnowledgeChunkRow = typeof knowledgeChunks.$inferSelect;
export type MemoryRow = typeof memories.$inferSelect;
export type TodoRow = typeof todos.$inferSelect;
export type TranscriptRow = typeof transcripts.$inferSelect;
export type SkillRow = typeof skills.$inferSelect;
