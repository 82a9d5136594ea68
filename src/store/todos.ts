import { and, asc, count, eq, sql } from 'drizzle-orm';
import { todos, type TodoRow } from './catalog-schema.ts';
import type { Executor } from './db.ts';
import { newId } from './ids.ts';

export async function addTodo(exec: Executor, sessionKey: string, text: string): Promise<TodoRow> {
  const [row] = await exec.insert(todos).values({ id: newId('tdo'), session_key: sessionKey, text }).returning();
  return row!;
}

export async function listTodos(exec: Executor, sessionKey: string): Promise<TodoRow[]> {
  return exec.select().from(todos).where(eq(todos.session_key, sessionKey)).orderBy(asc(todos.created_at), asc(todos.id));
}

export async function countTodos(exec: Executor, sessionKey: string): Promise<number> {
  const [row] = await exec.select({ n: count() }).from(todos).where(eq(todos.session_key, sessionKey));
  return row?.n ?? 0;
}

/** Marks an item of this session done (keeping the first done_at); null when the session has no such item. */
export async function completeTodo(exec: Executor, sessionKey: string, id: string): Promise<TodoRow | null> {
  const [row] = await exec.update(todos)
    .set({ done: true, done_at: sql`coalesce(${todos.done_at}, now())` })
    .where(and(eq(todos.session_key, sessionKey), eq(todos.id, id)))
    .returning();
  return row ?? null;
}

export async function removeTodo(exec: Executor, sessionKey: string, id: string): Promise<boolean> {
  const gone = await exec.delete(todos).where(and(eq(todos.session_key, sessionKey), eq(todos.id, id))).returning({ id: todos.id });
  return gone.length > 0;
}
