import { and, desc, eq, sql } from 'drizzle-orm';
import { redact, redactText } from '../util/redact.ts';
import { toolCallText } from '../util/tool-call-text.ts';
import { transcripts, type TranscriptMessage, type TranscriptRow } from './catalog-schema.ts';
import type { Executor } from './db.ts';
import { newId } from './ids.ts';

export interface SaveTranscriptInput {
  readonly kind: 'run' | 'session';
  readonly session_key: string;
  readonly memory_scope: string;
  readonly run_id?: string | null;
  readonly job_id?: string | null;
  readonly execution_id: string;
  readonly prompt: string;
  readonly messages: readonly TranscriptMessage[];
  /** Literal credential values (ctx.credentials) masked wherever they occur, whatever they look like. */
  readonly secrets?: readonly string[];
}

export interface TranscriptHit {
  readonly id: string;
  readonly kind: 'run' | 'session';
  readonly session_key: string;
  readonly run_id: string | null;
  readonly created_at: Date;
  readonly score: number;
  readonly snippet: string;
}

const MASK = '[REDACTED]';
// shorter values would mask ordinary text everywhere
const MIN_SECRET_LENGTH = 4;

/** Stores a turn's transcript with credentials redacted from the messages and the searchable text (I11). */
export async function saveTranscript(exec: Executor, input: SaveTranscriptInput): Promise<TranscriptRow> {
  const secrets = (input.secrets ?? []).filter((s) => s.length >= MIN_SECRET_LENGTH).sort((a, b) => b.length - a.length);
  const clean = (s: string) => cleanString(s, secrets);
  const messages = input.messages.map((m) => cleanMessage(m, clean));
  const prompt = clean(input.prompt);
  const [row] = await exec.insert(transcripts).values({
    id: newId('trn'),
    kind: input.kind,
    session_key: input.session_key,
    memory_scope: input.memory_scope,
    run_id: input.run_id ?? null,
    job_id: input.job_id ?? null,
    execution_id: input.execution_id,
    prompt,
    messages,
    text: flatten(prompt, messages),
  }).returning();
  return row!;
}

/** The latest transcript of a daemon run, or null. */
export async function transcriptOfRun(exec: Executor, runId: string): Promise<TranscriptRow | null> {
  const [row] = await exec.select().from(transcripts).where(eq(transcripts.run_id, runId)).orderBy(desc(transcripts.created_at)).limit(1);
  return row ?? null;
}

const HEADLINE = 'StartSel=**, StopSel=**, MaxWords=35, MinWords=12, MaxFragments=2, FragmentDelimiter=" … "';

/**
 * Full-text search over the transcripts of one memory scope; a context without a scope
 * sees only its own session's unscoped transcripts.
 */
export async function searchTranscripts(
  exec: Executor, input: { memory_scope: string; session_key: string; query: string; limit: number },
): Promise<TranscriptHit[]> {
  if (input.memory_scope === '' && input.session_key === '') throw new Error('searchTranscripts needs a memory scope or a session key');
  const owner = input.memory_scope !== ''
    ? eq(transcripts.memory_scope, input.memory_scope)
    : and(eq(transcripts.memory_scope, ''), eq(transcripts.session_key, input.session_key));
  const q = sql`websearch_to_tsquery('simple', ${input.query})`;
  return exec.select({
    id: transcripts.id,
    kind: transcripts.kind,
    session_key: transcripts.session_key,
    run_id: transcripts.run_id,
    created_at: transcripts.created_at,
    score: sql<number>`ts_rank(${transcripts.tsv}, ${q})`.mapWith(Number),
    snippet: sql<string>`ts_headline('simple', ${transcripts.text}, ${q}, ${HEADLINE})`,
  }).from(transcripts)
    .where(and(owner, sql`${transcripts.tsv} @@ ${q}`))
    .orderBy(sql`6 desc`, desc(transcripts.created_at))
    .limit(input.limit);
}

function cleanMessage(m: TranscriptMessage, clean: (s: string) => string): TranscriptMessage {
  const out: TranscriptMessage = { role: m.role, content: m.content === null ? null : clean(m.content) };
  if (m.name !== undefined) out.name = clean(m.name);
  if (m.tool_calls !== undefined) out.tool_calls = redact(mapStrings(m.tool_calls, clean));
  if (m.tool_call_id !== undefined) out.tool_call_id = m.tool_call_id;
  return out;
}

/**
 * Literal secrets masked, then the text redactors; JSON text (tool arguments and results) is
 * also redacted by key, which the text patterns miss (`"password": "x"`).
 */
function cleanString(s: string, secrets: readonly string[]): string {
  let text = s;
  for (const secret of secrets) text = text.split(secret).join(MASK);
  if (/^\s*[[{]/.test(text)) {
    try {
      const parsed: unknown = JSON.parse(text);
      const scrubbed = redact(mapStrings(parsed, (v) => cleanString(v, secrets)));
      // keep the original formatting unless something had to go
      if (JSON.stringify(scrubbed) !== JSON.stringify(parsed)) return JSON.stringify(scrubbed);
    } catch {
      // not JSON after all
    }
  }
  return redactText(text);
}

function mapStrings<T>(value: T, f: (s: string) => string): T {
  if (typeof value === 'string') return f(value) as T;
  if (Array.isArray(value)) return value.map((v) => mapStrings(v, f)) as T;
  if (value !== null && typeof value === 'object' && !(value instanceof Date)) {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, mapStrings(v, f)])) as T;
  }
  return value;
}

/** One line a message (tool calls as `name(arguments)`), what the full-text index covers. */
function flatten(prompt: string, messages: readonly TranscriptMessage[]): string {
  const lines: string[] = [];
  if (!messages.some((m) => m.role === 'user' && m.content === prompt)) lines.push(`prompt: ${prompt}`);
  for (const m of messages) {
    const who = m.name ? `${m.role} ${m.name}` : m.role;
    if (m.content) lines.push(`${who}: ${m.content}`);
    for (const call of m.tool_calls ?? []) lines.push(`${who} → ${toolCallText(call)}`);
  }
  return redactText(lines.join('\n'));
}
