import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { appendAudits } from '../src/store/audit.ts';
import { openDatabase } from '../src/store/db.ts';
import { createJob } from '../src/store/jobs.ts';
import { migrate } from '../src/store/migrate.ts';
import { pruneRuns } from '../src/store/retention.ts';

const PG_URL = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
/** One job fired every second for this many runs, beside many small jobs. */
const BIG = Number(process.env.BENCH_RETENTION_RUNS ?? 1_000_000);
const SMALL_JOBS = Number(process.env.BENCH_RETENTION_JOBS ?? 2_000);
/** Audit records moved out by one `audit archive`, through the real command. */
const AUDIT_RECORDS = Number(process.env.BENCH_ARCHIVE_RECORDS ?? 500_000);

async function admin(statement: string): Promise<void> {
  const c = new pg.Client({ connectionString: PG_URL });
  await c.connect();
  await c.query(statement);
  await c.end();
}

/** A retention pass over a big history: ended runs deleted per second, and a pass with nothing to delete. */
export async function benchRetention(): Promise<void> {
  const schema = `bench_ret_${randomBytes(4).toString('hex')}`;
  await admin(`create schema ${schema}`);
  const database = openDatabase({ url: PG_URL, schema, poolMax: 4 });
  try {
    await migrate(database.pool, { schema });
    const job = (name: string) => createJob(database.db, {
      name, owner: 'bench', created_by: 'bench', schedule: 'every 1s', timezone: 'UTC', tools: [], paused: true,
      payload: { kind: 'steps', steps: [{ tool: 'list_dir', args: { path: '.' } }] },
    });
    const big = await job('every second');
    const end = Date.UTC(2026, 0, 1);
    await database.pool.query(`insert into runs (id, job_id, nominal_at, state, finished_at)
      select 'run_b' || g, $1, to_timestamp($2::double precision / 1000) - make_interval(secs => g), 'succeeded', now() from generate_series(1, $3::int) g`, [big.id, end, BIG]);
    for (let i = 0; i < SMALL_JOBS; i++) {
      const j = await job(`small ${i}`);
      await database.pool.query(`insert into runs (id, job_id, nominal_at, state) select 'run_' || $1::text || 'x' || g, $2, to_timestamp($3::double precision / 1000) - make_interval(hours => g), 'succeeded' from generate_series(1, 10) g`, [String(i), j.id, end]);
    }
    await database.pool.query('vacuum analyze runs');
    const total = BIG + SMALL_JOBS * 10;
    const before = new Date(end + 1);
    let t0 = performance.now();
    const dry = await pruneRuns(database.db, { before, actor: 'bench', dryRun: true });
    const dryMs = performance.now() - t0;
    t0 = performance.now();
    const pass = await pruneRuns(database.db, { before, actor: 'bench' });
    const ms = performance.now() - t0;
    t0 = performance.now();
    await pruneRuns(database.db, { before, actor: 'bench' });
    const idleMs = performance.now() - t0;
    process.stdout.write(`retention: ${total.toLocaleString('en')} ended runs in ${(SMALL_JOBS + 1).toLocaleString('en')} jobs\n`);
    process.stdout.write(`  dry run counted ${dry.runs.toLocaleString('en')} in ${(dryMs / 1000).toFixed(1)} s\n`);
    process.stdout.write(`  deleted ${pass.runs.toLocaleString('en')} in ${(ms / 1000).toFixed(1)} s: ${Math.round(pass.runs / (ms / 1000)).toLocaleString('en')} runs/s (batches of 5,000, one audit record each)\n`);
    process.stdout.write(`  a pass with nothing left to delete: ${(idleMs / 1000).toFixed(2)} s (${Math.round((idleMs * 1000) / (SMALL_JOBS + 1))} µs a job)\n`);
    await benchArchive(database.db, schema);
  } finally {
    await database.close();
    await admin(`drop schema ${schema} cascade`);
  }
}

/** `echo-agent audit archive` as an operator runs it: records/s written, checked, synced and deleted. */
async function benchArchive(db: Parameters<typeof appendAudits>[0], schema: string): Promise<void> {
  for (let i = 0; i < AUDIT_RECORDS; i += 1_000) {
    await appendAudits(db, Array.from({ length: Math.min(1_000, AUDIT_RECORDS - i) }, (_, k) => ({
      kind: 'gate.decision', actor: 'daemon', job_id: 'job_bench', run_id: `run_${i + k}`, step: 4, outcome: 'allow', rule: 'profile.allowed', reason: 'the tool is in the job\'s effective set', data: { tool: 'read_file' },
    })));
  }
  const dir = mkdtempSync(join(tmpdir(), 'echo-bench-archive-'));
  try {
    const config = join(dir, 'echo-agent.yaml');
    writeFileSync(config, `database:\n  url: ${PG_URL}?options=-c%20search_path%3D${schema}\n`);
    const out = join(dir, 'archive.jsonl');
    const t0 = performance.now();
    const r = spawnSync(process.execPath, ['bin/echo-agent.js', 'audit', 'archive', '--before', new Date(Date.now() + 60_000).toISOString(), '--out', out, '--json'],
      { env: { ...process.env, ECHO_AGENT_CONFIG: config }, encoding: 'utf8', maxBuffer: 1 << 24 });
    const ms = performance.now() - t0;
    if (r.status !== 0) throw new Error(`audit archive failed (${r.status}): ${r.stderr}`);
    const archived = JSON.parse(r.stdout).archive.records as number;
    process.stdout.write(`audit archive: ${archived.toLocaleString('en')} records (${(statSync(out).size / 1e6).toFixed(0)} MB) in ${(ms / 1000).toFixed(1)} s: ${Math.round(archived / (ms / 1000)).toLocaleString('en')} records/s, process start included\n`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
