import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { pgColumn, pgTextArray } from '../../src/store/pg-array.ts';
import { useTestDatabase } from '../support/db.ts';

const database = useTestDatabase();

describe('text array literals', () => {
  it('round-trip every awkward value through PostgreSQL unchanged', async () => {
    const values = ['plain', 'with "quotes"', 'back\\slash', 'a,b', '{braces}', 'NULL', '', ' spaced ', 'ünïcødé ✓', 'new\nline', null];
    const res = await database().db.execute<{ v: string | null }>(sql`select v from unnest(${pgTextArray(values)}::text[]) with ordinality as t(v, n) order by n`);
    expect(res.rows.map((r) => r.v)).toEqual(values);
  });

  it('a column of rows goes in as one parameter, numbers and nulls included', async () => {
    const rows = [{ n: 1, s: 'a' }, { n: null, s: 'b' }, { n: -42, s: null }];
    const res = await database().db.execute<{ n: number | null; s: string | null }>(sql`
      select n, s from unnest(${pgColumn(rows, (r) => r.n)}::int[], ${pgColumn(rows, (r) => r.s)}::text[]) with ordinality as t(n, s, k) order by k`);
    expect(res.rows).toEqual(rows);
  });
});
