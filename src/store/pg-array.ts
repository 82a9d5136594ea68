/**
 * A PostgreSQL array literal of text (NULL for null): a whole column goes in as
 * one parameter, cast in SQL (`::timestamptz[]`, `::int[]`), and unnest()ed.
 */
export function pgTextArray(values: readonly (string | null)[]): string {
  return `{${values.map((v) => (v === null ? 'NULL' : `"${v.replace(/[\\"]/g, (c) => `\\${c}`)}"`)).join(',')}}`;
}

/** One column of `rows` as a pgTextArray parameter; numbers go in as text and are cast in SQL. */
export function pgColumn<T>(rows: readonly T[], value: (row: T) => string | number | null): string {
  return pgTextArray(rows.map((r) => {
    const v = value(r);
    return v === null ? null : String(v);
  }));
}
