/**
 * A PostgreSQL array literal of text (NULL for null): a whole column goes in as
 * one parameter, cast in SQL (`::timestamptz[]`, `::int[]`), and unnest()ed.
 */
export function pgTextArray(values: readonly (string | null)[]): string {
  return `{${values.map((v) => (v === null ? 'NULL' : `"${v.replace(/[\\"]/g, (c) => `\\${c}`)}"`)).join(',')}}`;
}
