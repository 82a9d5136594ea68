import type pg from 'pg';
import { beforeAll, describe, expect, it } from 'vitest';
import { authorities } from '../../src/cli/authority.ts';
import { runsShown } from '../../src/cli/run-table.ts';
import { listAudit } from '../../src/store/audit.ts';
import type { AuditRow, RunRow } from '../../src/store/schema.ts';
import { useTestDatabase } from '../support/db.ts';

// A job that fired hourly for years: the commands that read a run's records must not read the whole job's history.
const database = useTestDatabase();
const JOB = 'job_hourly';
const RUNS = 20_000;
const runId = (i: number) => `run_${String(i).padStart(6, '0')}`;

beforeAll(async () => {
  // one job's records, several a run, as the daemon writes them (the chain's hashes do not matter to a plan)
  await database().pool.query(`
    insert into audit_events (seq, kind, job_id, run_id, rule, data, prev_hash, hash)
    select n, (array['run.queued', 'run.started', 'gate.decision', 'gate.decision', 'run.finished'])[n % 5 + 1], $1,
      'run_' || lpad((n / 5)::text, 6, '0'), 'grant.valid', '{"cron_authorized": true}'::jsonb, 'h' || (n - 1), 'h' || n
    from generate_series(1, $2::int) as n`, [JOB, RUNS * 5]);
  await database().pool.query('analyze audit_events');
});

interface Plan { 'Node Type': string; 'Relation Name'?: string; 'Index Name'?: string; Plans?: Plan[] }
const nodes = (p: Plan): Plan[] => [p, ...(p.Plans ?? []).flatMap(nodes)];

/** The statements on audit_events that `read` sends, each with how PostgreSQL would read the table for it. */
async function auditPlans(read: () => Promise<unknown>): Promise<{ text: string; scans: string[] }[]> {
  const pool = database().pool;
  const sent: { text: string; values: unknown[] }[] = [];
  const query = pool.query.bind(pool) as (...args: unknown[]) => unknown;
  pool.query = ((q: string | pg.QueryConfig, values?: unknown, ...rest: unknown[]) => {
    const text = typeof q === 'string' ? q : q.text;
    // drizzle passes a config and its parameters beside it
    if (/audit_events/.test(text)) sent.push({ text, values: ((typeof q === 'string' ? values : q.values ?? values) ?? []) as unknown[] });
    return query(q, values, ...rest);
  }) as typeof pool.query;
  try {
    await read();
  } finally {
    pool.query = query as typeof pool.query;
  }
  return Promise.all(sent.map(async ({ text, values }) => {
    const { rows } = await pool.query<{ 'QUERY PLAN': [{ Plan: Plan }] }>(`explain (format json) ${text}`, values);
    const scans = nodes(rows[0]!['QUERY PLAN'][0].Plan).filter((n) => n['Relation Name'] === 'audit_events' || n['Index Name']?.startsWith('audit_events'))
      .map((n) => `${n['Node Type']}${n['Index Name'] ? ` ${n['Index Name']}` : ''}`);
    return { text, scans };
  }));
}

/** Each statement reads audit_events through the run index alone: no whole-table scan, no scan of the job's history. */
function expectRunIndex(plans: { text: string; scans: string[] }[], statements: number): void {
  expect(plans).toHaveLength(statements);
  for (const { text, scans } of plans) {
    expect(scans.length, text).toBeGreaterThan(0);
    for (const scan of scans) expect(scan, text).toMatch(/audit_events_run_idx$/);
  }
}

describe('a run\'s audit records are read by run, not by its job', () => {
  it('runs list and jobs runs: the AUTH and TRIGGER cells of 50 runs', async () => {
    const runs = Array.from({ length: 50 }, (_, i) => ({ id: runId(RUNS - 1 - i * 7), job_id: JOB, trigger: 'manual', cron_authorized: null }) as unknown as RunRow);
    let shown: Awaited<ReturnType<typeof runsShown>> | undefined;
    expectRunIndex(await auditPlans(async () => { shown = await runsShown(database().db, runs); }), 1);
    // the records are still found: cron_authorized from each run's run.started
    expect([...shown!.values()].every((s) => s.authorised && s.authorization_rule === 'grant.valid')).toBe(true);
  });

  it('runs show and audit list --run: one run\'s records, oldest or newest first', async () => {
    const plans = await auditPlans(async () => {
      expect(await listAudit(database().db, { run_id: runId(1234), limit: 10_000, order: 'asc' })).toHaveLength(5);
      expect(await listAudit(database().db, { run_id: runId(1234), limit: 100 })).toHaveLength(5);
    });
    expectRunIndex(plans, 2);
  });

  it('the grant behind an older cron_authorized decision, found through its run\'s run.started record', async () => {
    // a decision written before decisions named their grant, whose run row was pruned
    const decision = { seq: 1, kind: 'gate.decision', outcome: 'allow', rule: 'unattended.cron_authorized', run_id: runId(42), job_id: JOB, data: {} } as unknown as AuditRow;
    expectRunIndex(await auditPlans(() => authorities(database().db, [decision])), 1);
  });
});
