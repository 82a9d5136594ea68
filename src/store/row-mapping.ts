import { getTableColumns, type InferSelectModel, type Table } from 'drizzle-orm';

/**
 * A row of `table` from a raw result (or `to_jsonb` of one), mapped as drizzle's
 * own queries map it: timestamps as Date, bigints as numbers, arrays parsed.
 */
export function rowFrom<T extends Table>(table: T, raw: Record<string, unknown>): InferSelectModel<T> {
  const row: Record<string, unknown> = {};
  for (const [key, column] of Object.entries(getTableColumns(table))) {
    const v = raw[column.name];
    row[key] = v === null || v === undefined ? null : column.mapFromDriverValue(v);
  }
  return row as InferSelectModel<T>;
}
