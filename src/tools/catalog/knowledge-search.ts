import type { Config } from '../../config/schema.ts';
import type { Executor } from '../../store/db.ts';
import { searchKnowledge } from '../../store/knowledge.ts';
import { redactText } from '../../util/redact.ts';
import { defineTool } from '../define.ts';
import { fail, ok, type Tool } from '../types.ts';
import { NO_MEMORY_SCOPE, withoutDatabase } from './knowledge-index.ts';

const DEFAULT_LIMIT = 10;

/** knowledge_search: full-text search over ctx.memory_scope's indexed chunks, never another scope's. */
export function knowledgeSearchTool(config: Config, db: Executor | null): Tool {
  const tool = defineTool('knowledge_search', config, {
    async execute(params, ctx) {
      const scope = ctx?.memory_scope ?? '';
      if (scope === '') return fail('business', `knowledge_search: ${NO_MEMORY_SCOPE}`);
      const query = String(params.query);
      if (query.trim() === '') return fail('validation', 'query: must contain search terms');
      const limit = typeof params.limit === 'number' ? params.limit : DEFAULT_LIMIT;
      const hits = await searchKnowledge(db!, { memory_scope: scope, query, limit });
      // indexed files are the user's, but a snippet goes to the model and the run output (I11)
      return ok({ results: hits.map((h) => ({ ...h, snippet: redactText(h.snippet) })) });
    },
  });
  return db ? tool : withoutDatabase(tool);
}
