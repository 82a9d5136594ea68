import type { Config } from '../../config/schema.ts';
import type { Executor } from '../../store/db.ts';
import { deleteMemory, getMemory, listMemories, setMemory } from '../../store/memory.ts';
import { redactText } from '../../util/redact.ts';
import { defineTool } from '../define.ts';
import { fail, ok, type Tool, type ToolResult } from '../types.ts';
import { NO_MEMORY_SCOPE, withoutDatabase } from './knowledge-index.ts';

export const MEMORY_KEY_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._:/-]{0,127}$/;
export const MEMORY_MAX_VALUE_BYTES = 64 * 1024;
const LIST_LIMIT = 1000;

type Action = 'get' | 'set' | 'delete' | 'list';
const USES: Record<Action, readonly ('key' | 'value')[]> = { get: ['key'], set: ['key', 'value'], delete: ['key'], list: [] };

/** The arguments an action needs, and no others: a stray `value` on `get` is a mistake worth telling. */
function checkArgs(action: Action, params: Record<string, unknown>): ToolResult | null {
  for (const field of ['key', 'value'] as const) {
    const wanted = USES[action].includes(field);
    if (wanted && params[field] === undefined) return fail('validation', `${field}: is required for action ${action}`);
    if (!wanted && params[field] !== undefined) return fail('validation', `${field}: is not used by action ${action}`);
  }
  if (params.key !== undefined && !MEMORY_KEY_PATTERN.test(String(params.key))) {
    return fail('validation', 'key: must be 1-128 characters of letters, digits and . _ : / -, starting with a letter or digit');
  }
  if (params.value !== undefined) {
    const value = String(params.value);
    const bytes = Buffer.byteLength(value, 'utf8');
    if (bytes > MEMORY_MAX_VALUE_BYTES) return fail('validation', `value: is ${bytes} bytes, over the ${MEMORY_MAX_VALUE_BYTES}-byte limit`);
    // a stored value comes back into prompts and run output, where credentials never go (I11)
    if (redactText(value) !== value) return fail('business', 'value: looks like it contains a credential; memory does not store secrets');
  }
  return null;
}

async function run(db: Executor, scope: string, action: Action, params: Record<string, unknown>): Promise<ToolResult> {
  const key = String(params.key ?? '');
  switch (action) {
    case 'get': {
      const row = await getMemory(db, scope, key);
      return ok(row ? { key, found: true, value: row.value, updated_at: row.updated_at.toISOString() } : { key, found: false });
    }
    case 'set': {
      const r = await setMemory(db, scope, key, String(params.value));
      return ok({ key, created: r.created, updated_at: r.updated_at.toISOString() });
    }
    case 'delete':
      return ok({ key, deleted: await deleteMemory(db, scope, key) });
    case 'list': {
      const rows = await listMemories(db, scope, LIST_LIMIT + 1);
      return ok({
        keys: rows.slice(0, LIST_LIMIT).map((r) => ({ key: r.key, updated_at: r.updated_at.toISOString() })),
        ...(rows.length > LIST_LIMIT ? { truncated: true } : {}),
      });
    }
  }
}

/** memory: key-value notes of ctx.memory_scope (get, set, delete, list). */
export function memoryTool(config: Config, db: Executor | null): Tool {
  const tool = defineTool('memory', config, {
    async execute(params, ctx) {
      const scope = ctx?.memory_scope ?? '';
      if (scope === '') return fail('business', `memory: ${NO_MEMORY_SCOPE}`);
      const action = params.action as Action;
      const bad = checkArgs(action, params);
      if (bad) return bad;
      return run(db!, scope, action, params);
    },
  });
  return db ? tool : withoutDatabase(tool);
}
