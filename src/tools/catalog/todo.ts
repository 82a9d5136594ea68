import type { Config } from '../../config/schema.ts';
import type { TodoRow } from '../../store/catalog-schema.ts';
import type { Executor } from '../../store/db.ts';
import { addTodo, completeTodo, countTodos, listTodos, removeTodo } from '../../store/todos.ts';
import { defineTool } from '../define.ts';
import { fail, ok, type Tool, type ToolResult } from '../types.ts';
import { withoutDatabase } from './knowledge-index.ts';

export const TODO_MAX_TEXT = 2000;
export const TODO_MAX_ITEMS = 500;
const TODO_ID = /^tdo_[a-z2-7]{1,64}$/;

type Action = 'add' | 'list' | 'done' | 'remove';
const USES: Record<Action, readonly ('text' | 'id')[]> = { add: ['text'], list: [], done: ['id'], remove: ['id'] };

function checkArgs(action: Action, params: Record<string, unknown>): ToolResult | null {
  for (const field of ['text', 'id'] as const) {
    const wanted = USES[action].includes(field);
    if (wanted && params[field] === undefined) return fail('validation', `${field}: is required for action ${action}`);
    if (!wanted && params[field] !== undefined) return fail('validation', `${field}: is not used by action ${action}`);
  }
  if (params.text !== undefined) {
    const text = String(params.text).trim();
    if (text === '') return fail('validation', 'text: must not be empty');
    if (text.length > TODO_MAX_TEXT) return fail('validation', `text: is ${text.length} characters, over the ${TODO_MAX_TEXT}-character limit`);
  }
  if (params.id !== undefined && !TODO_ID.test(String(params.id))) return fail('validation', `id: ${JSON.stringify(String(params.id).slice(0, 80))} is not a todo id (tdo_…)`);
  return null;
}

const shown = (t: TodoRow) => ({ id: t.id, text: t.text, done: t.done, created_at: t.created_at.toISOString(), done_at: t.done_at?.toISOString() ?? null });

async function run(db: Executor, session: string, action: Action, params: Record<string, unknown>): Promise<ToolResult> {
  const id = String(params.id ?? '');
  switch (action) {
    case 'add': {
      if ((await countTodos(db, session)) >= TODO_MAX_ITEMS) return fail('business', `todo: this session already has ${TODO_MAX_ITEMS} items; remove some first`);
      return ok({ item: shown(await addTodo(db, session, String(params.text).trim())) });
    }
    case 'list':
      return ok({ items: (await listTodos(db, session)).map(shown) });
    case 'done': {
      const row = await completeTodo(db, session, id);
      return row ? ok({ item: shown(row) }) : fail('business', `id: this session has no todo item ${id}`);
    }
    case 'remove':
      return (await removeTodo(db, session, id)) ? ok({ id, removed: true }) : fail('business', `id: this session has no todo item ${id}`);
  }
}

/** todo: the task list of ctx.session_key (add, list, done, remove). */
export function todoTool(config: Config, db: Executor | null): Tool {
  const tool = defineTool('todo', config, {
    async execute(params, ctx) {
      const session = ctx?.session_key ?? '';
      if (session === '') return fail('business', 'todo: this context has no session key');
      const action = params.action as Action;
      const bad = checkArgs(action, params);
      if (bad) return bad;
      return run(db!, session, action, params);
    },
  });
  return db ? tool : withoutDatabase(tool);
}
