import type { Config } from '../../config/schema.ts';
import type { Executor } from '../../store/db.ts';
import { searchTranscripts } from '../../store/transcripts.ts';
import { defineTool } from '../define.ts';
import { fail, ok, type Tool } from '../types.ts';
import { withoutDatabase } from './knowledge-index.ts';

const DEFAULT_LIMIT = 10;

/**
 * session_search: full-text search over past transcripts of ctx.memory_scope, or, in a context
 * without a memory scope, of ctx.session_key only.
 */
export function sessionSearchTool(config: Config, db: Executor | null): Tool {
  const tool = defineTool('session_search', config, {
    async execute(params, ctx) {
      const scope = ctx?.memory_scope ?? '';
      const session = ctx?.session_key ?? '';
      if (scope === '' && session === '') return fail('business', 'session_search: this context has neither a memory scope nor a session key');
      const query = String(params.query);
      if (query.trim() === '') return fail('validation', 'query: must contain search terms');
      const limit = typeof params.limit === 'number' ? params.limit : DEFAULT_LIMIT;
      const hits = await searchTranscripts(db!, { memory_scope: scope, session_key: session, query, limit });
      return ok({
        results: hits.map((h) => ({
          session_key: h.session_key, run_id: h.run_id, kind: h.kind, transcript_id: h.id,
          created_at: h.created_at.toISOString(), score: h.score, snippet: h.snippet,
        })),
      });
    },
  });
  return db ? tool : withoutDatabase(tool);
}
