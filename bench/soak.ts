// Soak: the daemon as operators run it (startDaemon), for SOAK_SECONDS per queue backend, sampled every
// SOAK_SAMPLE_SECONDS: memory, handles, event-loop delay, throughput, lateness, connections, table and
// Redis growth, metric series, log volume. Prints the samples and a per-hour slope over the second half.
// Run with NODE_OPTIONS=--expose-gc for heap figures after a full GC (a V8-flag fallback is tried otherwise).
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import net, { type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { Writable } from 'node:stream';
import { setFlagsFromString, writeHeapSnapshot } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { Redis } from 'ioredis';
import pg from 'pg';
import { defaultConfig } from '../src/config/schema.ts';
import { startDaemon, type Daemon } from '../src/daemon/daemon.ts';
import { futureFire } from '../src/jobs/next-fire.ts';
import { createLogger } from '../src/log/logger.ts';
import type { QueueBackend } from '../src/queue/run-queue.ts';
import { issueGrant } from '../src/store/grants.ts';
import { createJob } from '../src/store/jobs.ts';
import type { Tool } from '../src/tools/types.ts';

const PG_URL = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const REDIS_URL = process.env.BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379';
const SECONDS = Number(process.env.SOAK_SECONDS ?? 600);
/** 50 jobs ask ~32 runs/s, which the daemon sustains at concurrency 16 (100 saturate it: overlap skips then bound the backlog). */
const JOBS = Number(process.env.SOAK_JOBS ?? 50);
const SAMPLE_MS = Number(process.env.SOAK_SAMPLE_SECONDS ?? 10) * 1000;
const BACKENDS = (process.env.SOAK_BACKENDS ?? 'redis,pg').split(',').map((s) => s.trim()).filter(Boolean);
const CONCURRENCY = Number(process.env.SOAK_CONCURRENCY ?? 16);
/** database.pool_max: the default 10 would be the bottleneck at concurrency 16. */
const POOL = Number(process.env.SOAK_POOL ?? 20);
/** A directory: heap snapshots at 25 % and at the end go there. */
const SNAPSHOTS = process.env.SOAK_HEAP_SNAPSHOTS;

// The notify target: a public-looking name and address, so the real guard and undici transport run; only
// the TCP dial to that one address is bent to a local server (the SSRF rules refuse loopback, rightly).
const HOOK_HOST = 'hooks.soak-bench.net';
const HOOK_IP = '1.2.3.4';
let hookPort = 0;
let hookPosts = 0;
const realConnect = net.connect;
Object.assign(net, {
  connect(...args: unknown[]) {
    const o = args[0] as { host?: string } | undefined;
    if (typeof o !== 'object' || o?.host !== HOOK_IP) return (realConnect as (...a: unknown[]) => net.Socket)(...args);
    const s = realConnect({ ...(o as net.NetConnectOpts), host: '127.0.0.1', port: hookPort } as net.NetConnectOpts);
    Object.defineProperty(s, 'remoteAddress', { get: () => HOOK_IP });
    return s;
  },
});

const gc: (() => void) | undefined = (globalThis as { gc?: () => void }).gc ?? (() => {
  try { setFlagsFromString('--expose-gc'); return runInNewContext('gc') as () => void; } catch { return undefined; }
})();

async function admin(statement: string): Promise<void> {
  const c = new pg.Client({ connectionString: PG_URL });
  await c.connect();
  try { await c.query(statement); } finally { await c.end(); }
}

/** An external tool that sleeps (honouring abort): a job on it overlaps itself and times out. */
const sleepTool: Tool = {
  name: 'soak_sleep', description: 'sleeps', parameters: { type: 'object' }, timeoutSeconds: 60, maxRetries: 0, streamCapable: false,
  capabilities: [], riskLevel: 'read_only', isReady: () => true, readinessDetail: () => [true, 'ready'],
  async execute(params, _ctx, { signal }) {
    await new Promise<void>((r) => { const t = setTimeout(r, Number(params.ms ?? 2500)); signal.addEventListener('abort', () => { clearTimeout(t); r(); }, { once: true }); });
    return { success: true, output: 'slept' };
  },
};

type Steps = { tool: string; args: Record<string, unknown> }[];
/** The job mix: readers, writers, notifiers (half with delivery), 6-field crons, one refused, one overlapping/timing out. */
function jobMix(n: number): { name: string; schedule: string; steps: Steps; tools?: string[]; delivery?: { notify: string }; timeout?: number }[] {
  const out = [];
  for (let i = 0; i < n - 2; i++) {
    const k = i % 10;
    const every = i % 2 === 0 ? 'every 1s' : 'every 2s';
    if (k <= 3) out.push({ name: `read-${i}`, schedule: every, steps: [{ tool: 'read_file', args: { path: 'notes.txt' } }, { tool: 'list_dir', args: { path: '.' } }, { tool: 'search_files', args: { path: '.', pattern: 'soak' } }] });
    else if (k <= 6) out.push({ name: `write-${i}`, schedule: k === 6 ? '*/2 * * * * *' : every, steps: [{ tool: 'write_file', args: { path: `out/j${i}.txt`, content: `job ${i}\n` } }, { tool: 'read_file', args: { path: `out/j${i}.txt` } }] });
    else if (k <= 8) out.push({ name: `notify-${i}`, schedule: 'every 2s', steps: [{ tool: 'notify', args: { target: 'hook', text: `job ${i}` } }], ...(k === 8 ? { delivery: { notify: 'hook' } } : {}) });
    else out.push({ name: `cron6-${i}`, schedule: '*/3 * * * * *', steps: [{ tool: 'list_dir', args: { path: 'out' } }, { tool: 'read_file', args: { path: 'notes.txt' } }] });
  }
  // refused every run: a tool outside the job's tools, and a path outside the workspace
  out.push({ name: 'refused', schedule: 'every 2s', tools: ['read_file'], steps: [{ tool: 'list_dir', args: { path: '.' } }, { tool: 'read_file', args: { path: '/etc/hostname' } }] });
  // every 1 s, runs 2.5 s, timeout 2 s: overlap skips and timed_out runs
  out.push({ name: 'slow', schedule: 'every 1s', steps: [{ tool: 'soak_sleep', args: { ms: 2500 } }], timeout: 2 });
  return out;
}

interface Sample {
  t: number; rss: number; heap: number; ext: number; ab: number; handles: number; timers: number; fds: number; elp99: number;
  done: number; rate: number; fireP99: number; startP99: number; pgOwn: number; pgDb: number; redisOwn: number;
  runs: number; audit: number; effects: number; otherRows: number; dbMB: number; qRows: number; qMB: number;
  rKeys: number; rMB: number; series: number; logB: number; logPerRun: number; resources: Record<string, number>;
}

/** Sockets this process holds to a port, by `ss` (pg_stat_activity cannot tell our pool from another process's). */
function ownSockets(port: number): number {
  try {
    return execFileSync('ss', ['-Htnp', 'state', 'established', `dport = :${port}`], { encoding: 'utf8' })
      .split('\n').filter((l) => l.includes(`pid=${process.pid},`)).length;
  } catch { return -1; }
}

async function soakBackend(kind: string): Promise<void> {
  const tag = randomBytes(4).toString('hex');
  const schema = `soak_${tag}`;
  const qschema = `soak_${tag}_q`;
  const prefix = `soak-${tag}`;
  const dir = mkdtempSync(join(tmpdir(), 'echo-soak-'));
  const workspace = join(dir, 'workspace');
  mkdirSync(join(workspace, 'out'), { recursive: true });
  writeFileSync(join(workspace, 'notes.txt'), 'soak notes\n'.repeat(50));
  const backend: QueueBackend = kind === 'redis' ? { kind: 'redis', url: REDIS_URL } : { kind: 'postgres', url: PG_URL, schema: qschema };
  const hook: Server = createServer((req, res) => { req.resume(); req.on('end', () => { hookPosts++; res.end('{}'); }); });
  await new Promise<void>((r) => hook.listen(0, '127.0.0.1', r));
  hookPort = (hook.address() as AddressInfo).port;
  hookPosts = 0;
  // pino to a counting sink: bytes and lines by message, nothing kept
  let logBytes = 0;
  const byMsg = new Map<string, number>();
  const sink = new Writable({
    write(chunk: Buffer, _e, cb) {
      logBytes += chunk.length;
      for (const line of chunk.toString('utf8').split('\n')) {
        if (!line) continue;
        const msg = /"msg":"([^"]*)"/.exec(line)?.[1] ?? '?';
        byMsg.set(msg, (byMsg.get(msg) ?? 0) + 1);
      }
      cb();
    },
  });
  const config = defaultConfig({
    tools: { workspace, restrict_to_workspace: true, also_allow: ['soak_sleep'] }, queue: { prefix },
    database: { pool_max: POOL }, daemon: { data_dir: dir, concurrency: CONCURRENCY, http: { port: 0 } },
    notify: { targets: { hook: { url: `http://${HOOK_HOST}/in` } } },
  });
  const admin1 = new pg.Client({ connectionString: PG_URL });
  const redis = new Redis(REDIS_URL);
  let daemon: Daemon | undefined;
  let stopRequested = false;
  const onSignal = () => { stopRequested = true; };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  try {
    await admin(`create schema ${schema}`);
    await admin1.connect();
    daemon = await startDaemon(config, {
      logger: createLogger('info', sink), database: { url: PG_URL, schema }, queue: backend, workerId: `soak:${process.pid}`, extraTools: [sleepTool],
      lookup: async (host) => { if (host === HOOK_HOST) return [{ address: HOOK_IP, family: 4 }]; throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' }); },
    });
    const { db } = daemon.database;
    const now = new Date();
    for (const j of jobMix(JOBS)) {
      const job = await createJob(db, {
        name: j.name, owner: 'soak', created_by: 'soak', schedule: j.schedule, timezone: 'UTC', tools: j.tools ?? [], paused: false,
        payload: { kind: 'steps', steps: j.steps }, delivery: j.delivery ?? null, timeout_seconds: j.timeout ?? 60,
        next_fire_at: futureFire(j.schedule, 'UTC', now),
      });
      await issueGrant(db, { job_id: job.id, approval_id: 'apr_soak', approver: 'soak', channel: 'cli', actor: 'soak' });
    }
    // with autovacuum off, relation sizes include every dead row version (the queue tables churn several per run)
    const autovacuum = (await admin1.query('show autovacuum')).rows[0].autovacuum as string;
    console.log(`\n== soak ${kind}: ${JOBS} jobs, ${SECONDS} s, concurrency ${CONCURRENCY}, schema ${schema}, prefix ${prefix}, gc ${gc ? 'yes' : 'no'}, autovacuum ${autovacuum}`);

    const eld = monitorEventLoopDelay({ resolution: 10 });
    eld.enable();
    const t0 = Date.now();
    let lastAt = new Date(Date.now() - SAMPLE_MS);
    let lastDone = 0;
    const samples: Sample[] = [];
    let snapped = false;
    const snapshot = (what: string) => {
      if (!SNAPSHOTS) return;
      gc?.();
      console.log(`  heap snapshot ${what}: ${writeHeapSnapshot(join(SNAPSHOTS, `soak-${kind}-${what}-${tag}.heapsnapshot`))}`);
    };
    while (!stopRequested && Date.now() - t0 < SECONDS * 1000) {
      await new Promise((r) => setTimeout(r, Math.min(SAMPLE_MS, SECONDS * 1000 - (Date.now() - t0) + 1)));
      const since = lastAt;
      lastAt = new Date();
      // what Prometheus would scrape, and the registry's own series count
      const scraped = await (await fetch(`http://127.0.0.1:${daemon.httpPort}/metrics`)).text();
      const series = scraped.split('\n').filter((l) => l && !l.startsWith('#')).length;
      const runsTotal = (await daemon.metrics.runStates.get()).values.reduce((s, v) => s + v.value, 0);
      const lat = (await admin1.query(`select
          (select percentile_cont(0.99) within group (order by extract(epoch from queued_at - nominal_at)) from ${schema}.runs where queued_at >= $1 and trigger = 'cron' and state <> 'skipped') as fire,
          (select percentile_cont(0.99) within group (order by extract(epoch from started_at - nominal_at)) from ${schema}.runs where started_at >= $1 and trigger = 'cron') as start`, [since])).rows[0];
      const counts = (await admin1.query(`select relname, n_live_tup::bigint as n, pg_total_relation_size(relid) as size, schemaname from pg_stat_user_tables where schemaname in ($1, $2)`, [schema, qschema])).rows;
      const exact = (await admin1.query(`select (select count(*) from ${schema}.runs) r, (select count(*) from ${schema}.audit_events) a, (select count(*) from ${schema}.tool_effects) e`)).rows[0];
      const pgDb = Number((await admin1.query(`select count(*) n from pg_stat_activity where datname = current_database()`)).rows[0].n);
      let rKeys = 0;
      if (kind === 'redis') {
        let cursor = '0';
        do { const [c, keys] = await redis.scan(cursor, 'MATCH', `${prefix}:*`, 'COUNT', 1000); cursor = c; rKeys += keys.length; } while (cursor !== '0');
      }
      const rMB = Number(/used_memory:(\d+)/.exec(await redis.info('memory'))?.[1] ?? 0) / 1e6;
      gc?.();
      const mem = process.memoryUsage();
      const resources: Record<string, number> = {};
      for (const r of process.getActiveResourcesInfo()) resources[r] = (resources[r] ?? 0) + 1;
      const own = counts.filter((c) => c.schemaname === schema && !['runs', 'audit_events', 'tool_effects'].includes(c.relname));
      const q = counts.filter((c) => c.schemaname === qschema);
      const s: Sample = {
        t: Math.round((Date.now() - t0) / 1000), rss: mem.rss / 1e6, heap: mem.heapUsed / 1e6, ext: mem.external / 1e6, ab: mem.arrayBuffers / 1e6,
        handles: Object.values(resources).reduce((a, b) => a + b, 0), timers: resources.Timeout ?? 0, fds: readdirSync('/proc/self/fd').length,
        elp99: eld.percentile(99) / 1e6, done: runsTotal, rate: (runsTotal - lastDone) / ((Date.now() - since.getTime()) / 1000),
        fireP99: Number(lat.fire ?? NaN) * 1000, startP99: Number(lat.start ?? NaN) * 1000,
        pgOwn: ownSockets(5432), pgDb, redisOwn: ownSockets(6379),
        runs: Number(exact.r), audit: Number(exact.a), effects: Number(exact.e), otherRows: own.reduce((a, c) => a + Number(c.n), 0),
        dbMB: counts.filter((c) => c.schemaname === schema).reduce((a, c) => a + Number(c.size), 0) / 1e6,
        qRows: q.reduce((a, c) => a + Number(c.n), 0), qMB: q.reduce((a, c) => a + Number(c.size), 0) / 1e6,
        rKeys, rMB, series, logB: logBytes, logPerRun: runsTotal ? logBytes / runsTotal : 0, resources,
      };
      eld.reset();
      lastDone = runsTotal;
      samples.push(s);
      if (samples.length === 1) console.log(HEADER);
      console.log(row(s));
      if (!snapped && Date.now() - t0 > SECONDS * 250) { snapped = true; snapshot('early'); }
    }
    snapshot('late');
    const tables = (await admin1.query(`select schemaname, relname, n_live_tup::bigint n, n_dead_tup::bigint dead, pg_total_relation_size(relid) size
      from pg_stat_user_tables where schemaname in ($1, $2) and (n_live_tup > 0 or n_dead_tup > 0) order by schemaname, relname`, [schema, qschema])).rows;
    report(kind, samples, await daemon.metrics.runStates.get(), byMsg, tables);
    const states = await admin1.query(`select state, count(*)::int n from ${schema}.runs group by state order by state`);
    console.log(`  runs by state: ${states.rows.map((r) => `${r.state} ${r.n}`).join(', ')}; hook posts ${hookPosts}`);
    const kinds = await admin1.query(`select kind, coalesce(rule, '') rule, count(*)::int n from ${schema}.audit_events group by 1, 2 order by 3 desc limit 14`);
    const skips = await admin1.query(`select split_part(skip_reason, ':', 1) r, count(*)::int n from ${schema}.runs where state = 'skipped' group by 1`);
    console.log(`  skipped by rule: ${skips.rows.map((r) => `${r.r} ${r.n}`).join(', ')}`);
    console.log(`  audit records: ${kinds.rows.map((r) => `${r.kind}/${r.rule} ${r.n}`).join(', ')}`);
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    await daemon?.stop().catch((err: unknown) => console.error('daemon stop failed', err));
    await admin1.end().catch(() => {});
    await admin(`drop schema if exists ${schema} cascade`).catch((err: unknown) => console.error(err));
    await admin(`drop schema if exists ${qschema} cascade`).catch((err: unknown) => console.error(err));
    let cursor = '0';
    do {
      const [c, keys] = await redis.scan(cursor, 'MATCH', `${prefix}:*`, 'COUNT', 1000);
      cursor = c;
      if (keys.length) await redis.del(...keys);
    } while (cursor !== '0');
    await redis.quit();
    await new Promise<void>((r) => { hook.closeAllConnections(); hook.close(() => r()); });
    rmSync(dir, { recursive: true, force: true });
  }
}

const COLS: [keyof Sample, string, number][] = [
  ['t', 't s', 0], ['rss', 'rssMB', 1], ['heap', 'heapMB', 1], ['ext', 'extMB', 1], ['ab', 'abMB', 1], ['handles', 'handl', 0], ['timers', 'timer', 0], ['fds', 'fds', 0],
  ['elp99', 'elp99ms', 1], ['done', 'runs', 0], ['rate', 'runs/s', 1], ['fireP99', 'fireP99', 0], ['startP99', 'startP99', 0], ['pgOwn', 'pgOwn', 0], ['pgDb', 'pgDb', 0],
  ['redisOwn', 'rdOwn', 0], ['runs', 'runRows', 0], ['audit', 'audRows', 0], ['effects', 'effRows', 0], ['otherRows', 'othRows', 0], ['dbMB', 'dbMB', 1],
  ['qRows', 'qRows', 0], ['qMB', 'qMB', 1], ['rKeys', 'rKeys', 0], ['rMB', 'redisMB', 1], ['series', 'series', 0], ['logPerRun', 'logB/run', 0],
];
const HEADER = COLS.map(([, h]) => h.padStart(8)).join('');
const row = (s: Sample) => COLS.map(([k, , d]) => (s[k] as number).toFixed(d).padStart(8)).join('');

/** Least-squares slope of y over t (s), per hour. */
function slopePerHour(xs: number[], ys: number[]): number {
  const n = xs.length;
  const mx = xs.reduce((a, b) => a + b, 0) / n;
  const my = ys.reduce((a, b) => a + b, 0) / n;
  let num = 0;
  let den = 0;
  for (let i = 0; i < n; i++) { num += (xs[i]! - mx) * (ys[i]! - my); den += (xs[i]! - mx) ** 2; }
  return den ? (num / den) * 3600 : NaN;
}

function report(kind: string, samples: Sample[], states: { values: { labels: Record<string, unknown>; value: number }[] }, byMsg: Map<string, number>, tables: Record<string, unknown>[]): void {
  console.log(`  tables (live, dead rows, size): ${tables.map((t) => `${String(t.schemaname).endsWith('_q') ? 'queue.' : ''}${String(t.relname)} ${String(t.n)}/${String(t.dead)} ${(Number(t.size) / 1e6).toFixed(1)} MB`).join('; ')}`);
  const half = samples.slice(Math.floor(samples.length / 2));
  if (half.length < 3) return;
  const xs = half.map((s) => s.t);
  const runsPerHour = slopePerHour(xs, half.map((s) => s.done));
  console.log(`\n  ${kind}: slopes over the second half (${xs[0]}–${xs.at(-1)} s), per hour and per 1,000 runs (${Math.round(runsPerHour)} runs/h):`);
  for (const [k, h, d] of COLS.slice(1)) {
    const ys = half.map((s) => s[k] as number);
    const sl = slopePerHour(xs, ys);
    console.log(`    ${h.padEnd(9)} first ${ys[0]!.toFixed(d).padStart(10)} last ${ys.at(-1)!.toFixed(d).padStart(10)}  slope/h ${sl.toFixed(2).padStart(12)}  per 1k runs ${(sl / runsPerHour * 1000).toFixed(3).padStart(10)}`);
  }
  const types = new Set(samples.flatMap((s) => Object.keys(s.resources)));
  console.log(`  active resources (first → last): ${[...types].map((t) => `${t} ${samples[0]!.resources[t] ?? 0}→${samples.at(-1)!.resources[t] ?? 0}`).join(', ')}`);
  console.log(`  runs_total by state: ${states.values.map((v) => `${String(v.labels.state)} ${v.value}`).join(', ')}`);
  console.log(`  log lines by message: ${[...byMsg].sort((a, b) => b[1] - a[1]).slice(0, 10).map(([m, n]) => `"${m}" ${n}`).join(', ')}`);
}

export async function benchSoak(): Promise<void> {
  for (const kind of BACKENDS) {
    if (kind !== 'redis' && kind !== 'pg') throw new Error(`SOAK_BACKENDS: unknown backend ${kind} (redis, pg)`);
    await soakBackend(kind);
  }
}
