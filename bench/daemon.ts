import { percentile } from './measure.ts';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import pg from 'pg';
import { defaultConfig } from '../src/config/schema.ts';
import { builtinTools } from '../src/daemon/daemon-tools.ts';
import { fireUntilDone } from '../src/daemon/firing.ts';
import { startFiringLoop } from '../src/daemon/firing-loop.ts';
import { daemonAgentRuntime } from '../src/daemon/run-executor.ts';
import { startWorker } from '../src/daemon/worker.ts';
import { groupCommitAppend } from '../src/store/audit-writer.ts';
import { createGuard } from '../src/guard/index.ts';
import { systemGuardDeps } from '../src/util/system-ports.ts';
import { silentLogger } from '../src/log/logger.ts';
import { openRunQueue, type QueueBackend } from '../src/queue/run-queue.ts';
import { openDatabase, type Database } from '../src/store/db.ts';
import { createJob, nextDueReading } from '../src/store/jobs.ts';
import { migrate } from '../src/store/migrate.ts';
import { insertRuns } from '../src/store/runs.ts';

const PG_URL = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const REDIS_URL = process.env.BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379';
const N = Number(process.env.BENCH_RUNS ?? 2000);

async function admin(statement: string): Promise<void> {
  const c = new pg.Client({ connectionString: PG_URL });
  await c.connect();
  await c.query(statement);
  await c.end();
}

/** Raw BullMQ: N no-op jobs through our queue wrapper, jobs/s. */
async function rawBullmq(backend: QueueBackend, prefix: string, concurrency: number): Promise<number> {
  const queue = openRunQueue(backend, prefix);
  let done = 0;
  let resolveAll: () => void = () => {};
  const all = new Promise<void>((resolve) => { resolveAll = resolve; });
  await queue.work(async () => {
    if (++done === N) resolveAll();
  }, { concurrency }).run();
  const start = performance.now();
  for (let i = 0; i < N; i += 200) await Promise.all(Array.from({ length: Math.min(200, N - i) }, (_, k) => queue.enqueue(`raw_${i + k}`)));
  await all;
  const rate = N / ((performance.now() - start) / 1000);
  await queue.close();
  return rate;
}

/** End to end: N queued runs of a one-step read_only job: claim + gate + tool + audit + finish, runs/s. */
async function endToEnd(database: Database, backend: QueueBackend, prefix: string, concurrency: number): Promise<number> {
  const workspace = mkdtempSync(join(tmpdir(), 'echo-bench-'));
  writeFileSync(join(workspace, 'noop.txt'), 'ok');
  const config = defaultConfig({ tools: { workspace } });
  const job = await createJob(database.db, {
    name: `noop-${prefix}`, owner: 'bench', created_by: 'bench', schedule: 'at 2099-01-01T00:00:00Z', timezone: 'UTC',
    payload: { kind: 'steps', steps: [{ tool: 'read_file', args: { path: 'noop.txt' } }] }, tools: [], paused: true,
  });
  const base = Date.UTC(2000, 0, 1);
  const runs = [];
  for (let i = 0; i < N; i += 500) {
    runs.push(...await insertRuns(database.db, Array.from({ length: Math.min(500, N - i) }, (_, k) => ({ job_id: job.id, nominal_at: new Date(base + (i + k) * 1000), trigger: 'manual' as const }))));
  }
  const queue = openRunQueue(backend, prefix);
  // as the daemon wires it: one agent runtime and one group-commit audit writer for all runs
  const wiring = { db: database.db, config, tools: builtinTools(config, { db: database.db }), guard: createGuard(config, systemGuardDeps({ dns: false })), logger: silentLogger, workerId: 'bench:1', audit: groupCommitAppend(database.db) };
  const deps = { ...wiring, agent: daemonAgentRuntime(wiring) };
  // the daemon's own worker, as it consumes the queue
  const worker = startWorker({ ...deps, queue }, { concurrency, logger: silentLogger });
  let done = 0;
  const all = new Promise<void>((resolve) => {
    worker.bullmq.on('completed', () => { if (++done === N) resolve(); });
  });
  await worker.start();
  const start = performance.now();
  for (let i = 0; i < runs.length; i += 200) await Promise.all(runs.slice(i, i + 200).map((r) => queue.enqueue(r.id)));
  await all;
  const rate = N / ((performance.now() - start) / 1000);
  await worker.stop(Promise.resolve(), () => {});
  await queue.close();
  return rate;
}

/** 10,000 every-minute schedules due at the same instant; one firing loop ticking every second. */
async function fireLateness(database: Database): Promise<{ p50: number; p99: number; runs: number }> {
  const parked = new Date(Date.UTC(2099, 0, 1));
  const rows = Array.from({ length: 10_000 }, (_, i) => i);
  for (let i = 0; i < rows.length; i += 500) {
    await Promise.all(rows.slice(i, i + 500).map((k) => createJob(database.db, {
      name: `lat-${k}`, owner: 'bench', created_by: 'bench', schedule: '* * * * *', timezone: 'UTC',
      payload: { kind: 'steps', steps: [{ tool: 'read_file', args: { path: 'x' } }] }, tools: [], next_fire_at: parked, paused: false,
      overlap_policy: 'allow',
    })));
  }
  // all due at the next minute boundary, set after creation so creating them does not eat into the measurement
  const due = new Date(Math.ceil((Date.now() + 5_000) / 60_000) * 60_000);
  await database.pool.query(`update jobs set next_fire_at = $1 where name like 'lat-%'`, [due]);
  process.stdout.write(`  waiting for ${due.toISOString()} (${Math.round((due.getTime() - Date.now()) / 1000)} s)\n`);
  const lateness: number[] = [];
  let allFired: () => void = () => {};
  let failure: { err: unknown } | undefined;
  const fired = new Promise<void>((r) => { allFired = r; });
  // the daemon's own firing loop, started at some moment before the instant as a replica would be:
  // its sleep until the instant is part of what is measured. BENCH_FIRE_PASSES passes at once (daemon.firing_passes)
  const parallel = Number(process.env.BENCH_FIRE_PASSES ?? defaultConfig().daemon.firing_passes);
  const loop = startFiringLoop({
    tickMs: defaultConfig().daemon.tick_seconds * 1000,
    pass: () => fireUntilDone(database.db, {
      parallel, batch: Number(process.env.BENCH_FIRE_BATCH ?? 1000),
      async onFired(report) {
        const at = Date.now();
        for (const r of report.queued) lateness.push(at - r.nominal_at.getTime());
        if (lateness.length >= 10_000) allFired();
      },
    }),
    nextDue: () => nextDueReading(database.db),
    onError: (err) => { failure = { err }; allFired(); },
  });
  await fired;
  await loop.stop();
  if (failure) throw failure.err;
  lateness.sort((a, b) => a - b);
  return { p50: percentile(lateness, 50), p99: percentile(lateness, 99), runs: lateness.length };
}

export async function benchDaemon(): Promise<void> {
  const tag = randomBytes(4).toString('hex');
  const schema = `bench_${tag}`;
  await admin(`create schema ${schema}`);
  const database = openDatabase({ url: PG_URL, schema, poolMax: 60 });
  const backends: Array<[string, QueueBackend]> = [
    ['redis', { kind: 'redis', url: REDIS_URL }],
    ['postgres', { kind: 'postgres', url: PG_URL, schema: `${schema}_q` }],
  ];
  try {
    await migrate(database.pool, { schema });
    const part = process.env.BENCH_PART ?? 'all';
    console.log(`daemon benchmark: ${N} runs per measurement`);
    // BENCH_CASES=redis:1,postgres:50 measures only those
    const cases = process.env.BENCH_CASES?.split(',');
    for (const [name, backend] of part === 'lateness' ? [] : backends) {
      for (const concurrency of [1, 50]) {
        if (cases && !cases.includes(`${name}:${concurrency}`)) continue;
        const raw = await rawBullmq(backend, `raw-${tag}-${concurrency}`, concurrency);
        const e2e = await endToEnd(database, backend, `e2e-${tag}-${concurrency}`, concurrency);
        console.log(`  ${name.padEnd(8)} concurrency ${String(concurrency).padStart(2)}: raw BullMQ ${raw.toFixed(0)} jobs/s, end-to-end ${e2e.toFixed(0)} runs/s, ratio ${(e2e / raw).toFixed(2)}`);
      }
    }
    if (part === 'throughput') return;
    const lat = await fireLateness(database);
    console.log(`  fire lateness, 10,000 schedules due in the same minute, ${process.env.BENCH_FIRE_PASSES ?? defaultConfig().daemon.firing_passes} passes at once: p50 ${lat.p50} ms, p99 ${lat.p99} ms (${lat.runs} runs)`);
  } finally {
    await database.close();
    await admin(`drop schema if exists ${schema} cascade`);
    await admin(`drop schema if exists ${schema}_q cascade`);
    const redis = new Redis(REDIS_URL);
    const keys = await redis.keys(`*${tag}*`);
    if (keys.length) await redis.del(...keys);
    await redis.quit();
  }
}
