import { readFileSync } from 'node:fs';

/** How many migrations drizzle/ holds, from drizzle-kit's journal. */
export const MIGRATION_COUNT: number = (JSON.parse(readFileSync(new URL('../../drizzle/meta/_journal.json', import.meta.url), 'utf8')) as { entries: unknown[] }).entries.length;
