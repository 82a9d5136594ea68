import { join, resolve as resolvePath } from 'node:path';
import { hostname } from 'node:os';
import { setMaxListeners } from 'node:events';
import type { Logger } from 'pino';
import { ensureDirectory } from './daemon-directories.ts';
export { DaemonConfigError } from './daemon-directories.ts';
import type { Config } from '../config/schema.ts';
import { createGuard } from '../guard/index.ts';
import { systemGuardDeps } from '../util/system-ports.ts';
import type { Lookup } from '../guard/ssrf/index.ts';
import { openRunQueue, runQueueName, type QueueBackend, type RunQueue } from '../queue/run-queue.ts';
import { otherQueues, queueMismatchWarning, queueTag } from '../queue/queue-tag.ts';
import { DAEMON_APPLICATION, databaseAnswers, databaseNow, deploymentOf, openDatabase, otherDaemons, type Database, type Executor } from '../store/db.ts';
import { effectLedger } from '../store/effects.ts';
import { resolveDatabaseUrl } from '../store/embedded.ts';
import { migrateReporting, unknownMigrationsWarning } from '../store/migrate.ts';
import { EMBEDDED_STOP_LIMIT_MS, lastStopOf } from '../store/embedded-handle.ts';
import { packageVersion } from '../util/package-version.ts';
import type { Tool } from '../tools/types.ts';
import { LateAgentHost } from '../agent/host.ts';
import { groupCommitAppend } from '../store/audit-writer.ts';
import { deleteSpillsBefore } from '../store/spills.ts';
import { expireApprovals } from '../store/approvals.ts';
import { auditHead } from '../store/audit.ts';
import { pruneRuns } from '../store/retention.ts';
import { nextDueReading } from '../store/jobs.ts';
import { watchFiringBehind, withJobName } from './firing-behind.ts';
import { backlogReading } from '../store/backlog.ts';
import { newSchemaWarning } from '../store/new-schema-check.ts';
import { ProcessTable } from '../tools/process-table.ts';
import { builtinTools } from './daemon-tools.ts';
import { daemonAgentRuntime } from './run-executor.ts';
import { dbClockNow, fireUntilDone } from './firing.ts';
import { startFiringLoop } from './firing-loop.ts';
import { recoverSkillInstalls } from '../skills/recover.ts';
import { HEALTH_LIMIT_MS, startHttp } from './http.ts';
import { within } from '../util/time-limit.ts';
import { withFaultTracking } from '../queue/queue-faults.ts';
import { watchPasses, type Progress } from './hung-passes.ts';
import { createMetrics, type Metrics } from './metrics.ts';
import { currentProcessIdentity, hostProcesses, workerIdOf } from './process-identity.ts';
import { reconcile } from './reconciler.ts';
import { startWorker, type RunWorker } from './worker.ts';
import { loopFailureLog, repeatLimitedWarn } from '../log/repeat-limit.ts';
import { DependencyUnavailableError } from '../util/dependency-error.ts';
import { beginStop, endsWithin, STOP_STEP_TIMEOUT_MS, type Stopped, type StopState } from './daemon-stop.ts';

/** Enqueues in flight at once after a firing pass. */
const ENQUEUE_CHUNK = 200;
/** Run retention passes: soon after start (a daemon restarted often must still prune), then hourly. */
const RETENTION_FIRST_MS = 60_000;
const RETENTION_EVERY_MS = 3_600_000;
/** How long a run may wait between its commit and its enqueue before the reconciler takes it for lost (at most one reconcile interval). */
const HAND_OFF_GRACE_SECONDS = 10;
/** One part of the health check (the database, the queue) gets this long, so the probe's answer names it. */
const HEALTH_PART_MS = HEALTH_LIMIT_MS - 500;

/** A part's failure, with the part named: `the database: …`, `the queue (queue.redis_url): …`. */
function named<T>(part: string, work: Promise<T>): Promise<T> {
  return work.catch((err: unknown) => { throw new Error(`${part}: ${(err as Error).message}`); });
}

export interface DaemonOptions {
  readonly logger: Logger;
  /** Tests: a database URL and schema instead of config/embedded. */
  readonly database?: { url: string; schema?: string };
  /** Tests: the queue backend instead of the one config implies. */
  readonly queue?: QueueBackend;
  readonly workerId?: string;
  readonly lookup?: Lookup;
  /** false: no HTTP listener (tests that run several daemons). */
  readonly http?: boolean;
  /** false: this replica fires and reconciles but runs nothing (benchmarks, tests). */
  readonly work?: boolean;
  /** External tools added to the built-in ones. */
  readonly extraTools?: readonly Tool[];
  /** How long without a successful firing pass before /healthz fails (default max(60 s, 10 ticks)). */
  readonly firingStaleMs?: number;
  /** Tests: how long a firing or reconcile pass may go without progress before the daemon is told to stop (daemon.hung_pass_seconds otherwise). */
  readonly hungPassMs?: number;
  /** Something the daemon cannot carry on without has gone (the embedded PostgreSQL died): the caller should stop it and exit non-zero. */
  readonly onFatal?: (why: string) => void;
  /** Aborted by a stop signal: a start still waiting on a dependency gives up at once (StoppedWhileStartingError). */
  readonly stopSignal?: AbortSignal;
  /** Tests: how long the start waits for the queue's connection (the queue's own default otherwise). */
  readonly queueReadyMs?: number;
}

export interface Daemon {
  readonly database: Database;
  readonly queue: RunQueue;
  readonly metrics: Metrics;
  readonly httpPort: number | null;
  /** Runs one firing pass now (tests; the loop does it every tick). */
  fireOnce(): Promise<number>;
  reconcileOnce(): Promise<void>;
  /** One run retention pass now (tests; the daemon does it hourly). */
  pruneOnce(): Promise<void>;
  /** The graceful stop; a second call returns the first one's outcome. */
  stop(): Promise<Stopped>;
  /** While stopping (or once it begins): cancel running work now, as the stop timeout would; `why` is logged (`second SIGTERM`). */
  cancelNow(why: string): void;
  /** The stop under way (how many runs it waits on, until when), or null before it. */
  stopping(): StopState | null;
}

/** The queue schema inside PostgreSQL when BullMQ runs on its PostgreSQL backend. */
export function queueSchemaFor(prefix: string, base?: string): string {
  return `${base ? `${base}_` : ''}${prefix.replace(/[^A-Za-z0-9_]/g, '_')}_queue`.toLowerCase();
}

/** Redis when `queue.redis_url` is set, else BullMQ's PostgreSQL backend in the given database. */
export function configuredQueueBackend(config: Config, databaseUrl: string, schema?: string): QueueBackend {
  return config.queue.redis_url
    ? { kind: 'redis', url: config.queue.redis_url }
    : { kind: 'postgres', url: databaseUrl, schema: queueSchemaFor(config.queue.prefix, schema) };
}

/**
 * Starts everything, or nothing: a start that fails half-way (the HTTP port is
 * taken, Redis is down, a migration fails) undoes what it had started, so the
 * process can exit instead of firing jobs with no signal handler or health check.
 */
export async function startDaemon(config: Config, opts: DaemonOptions): Promise<Daemon> {
  const undo: (() => Promise<unknown>)[] = [];
  try {
    return await assembleDaemon(config, opts, undo);
  } catch (err) {
    // a step that never ends (a queue whose database is gone) must not hold a failed start for ever
    for (const step of undo.reverse()) await endsWithin(step().catch(() => {}), STOP_STEP_TIMEOUT_MS);
    throw err;
  }
}

async function assembleDaemon(config: Config, opts: DaemonOptions, undo: (() => Promise<unknown>)[]): Promise<Daemon> {
  const { logger } = opts;
  // an unset tools.workspace is <daemon.data_dir>/workspace: the setting to change is then the data dir
  const derived = resolvePath(config.tools.workspace) === resolvePath(join(config.daemon.data_dir, 'workspace'));
  await ensureDirectory('tools.workspace', config.tools.workspace, logger, derived ? 'tools.workspace (unset: <daemon.data_dir>/workspace)' : undefined);
  // the embedded database lives there: a file in its path is the config's problem, not a passing outage
  if (!opts.database && !config.database.url) await ensureDirectory('daemon.data_dir', config.daemon.data_dir, logger);
  const resolved = opts.database ? { url: opts.database.url, embedded: false, stop: async () => {} } : await resolveDatabaseUrl(config, logger, { adopt: true });
  undo.push(() => resolved.stop());
  // nothing restarts a dead embedded server, and every pass would only fail: say so and let the supervisor restart us
  void resolved.lost?.then((why) => {
    logger.fatal({ data_dir: config.daemon.data_dir }, `${why}; the daemon stops so that its supervisor can start it (and the server) again`);
    opts.onFatal?.(why);
  });
  const schema = opts.database?.schema;
  const self = currentProcessIdentity();
  const workerId = opts.workerId ?? workerIdOf(hostname(), self);
  if (!self && !opts.workerId) {
    logger.warn({ worker: workerId }, 'this process cannot read its kernel boot id or pid namespace (/proc/sys hidden, e.g. by systemd ProcSubset=pid): '
      + 'a restarted daemon will not know that this one is gone if it is killed, and waits out daemon.lease_seconds for its runs');
  }
  const backend: QueueBackend = opts.queue ?? configuredQueueBackend(config, resolved.url, schema);
  // the queue it consumes in its name: replicas of one schema on different queues find each other (noteOtherDaemons)
  const myQueue = queueTag(backend, config.queue.prefix);
  const applicationName = `${DAEMON_APPLICATION} ${hostname()}:${process.pid}/${myQueue}`;
  const database = openDatabase({
    url: resolved.url, poolMax: config.database.pool_max, ...(schema ? { schema } : {}), applicationName,
    onError: (err) => logger.warn({ err }, 'idle database connection failed'),
  });
  undo.push(() => database.close());
  // the first use of the database: a start that fails here says which dependency failed, not only the socket error
  const migrated = await migrateReporting(database.pool, schema ? { schema } : {}).catch((err: unknown) => {
    throw new DependencyUnavailableError(`${resolved.embedded ? 'the embedded database' : 'the database (database.url)'}: ${(err as Error).message}`, { cause: err });
  });
  // by name: which migrations a start applied is what an upgrade's log is read for
  logger.info({ schema: migrated.schema, applied: migrated.applied, embedded: resolved.embedded }, 'database ready');
  if (migrated.unknown.length > 0) logger.warn({ schema: migrated.schema, unknown: migrated.unknown }, unknownMigrationsWarning(migrated));
  // a mistyped search_path sets up a new, empty deployment beside the real one; noteOtherDaemons counts this schema's daemons only
  const newSchema = await newSchemaWarning(database.db, migrated).catch(() => null);
  if (newSchema) logger.warn({ schema: migrated.schema }, newSchema);
  await noteOtherDaemons(database.db, applicationName, myQueue, resolved.embedded, logger);

  const queueWarn = repeatLimitedWarn(logger, 'queue connection error', { stack: false });
  // the queue is this deployment's alone, and every replica of it names it alike (see runQueueName)
  const queueName = runQueueName(await deploymentOf(database.db));
  const queue = withFaultTracking(openRunQueue(backend, config.queue.prefix, {
    name: queueName, ...(opts.queueReadyMs !== undefined ? { readyTimeoutMs: opts.queueReadyMs } : {}),
    onError: (err, where) => queueWarn(err, { where }),
    onWarning: (message, detail) => logger.error(detail, message),
  }));
  undo.push(() => queue.close());
  // the setting to look at, as the database's failures name database.url
  const queueNamed = `the queue (${backend.kind === 'redis' ? 'queue.redis_url' : 'BullMQ\'s PostgreSQL backend, in the daemon\'s database'})`;
  await queue.ready(opts.stopSignal).catch((err: unknown) => {
    if (!(err instanceof DependencyUnavailableError)) throw err;
    throw new DependencyUnavailableError(`${queueNamed}: ${err.message}`, { cause: err });
  });
  logger.info({ backend: backend.kind, queue: queueName }, 'queue ready');

  const metrics = createMetrics({ queueDepth: () => queue.depth(), queueFault: () => queue.fault(), backlog: () => backlogReading(database.db) });
  const shutdown = new AbortController();
  // each running run listens for it: more than Node's default 10 at once is expected, not a leak
  setMaxListeners(config.daemon.concurrency + 8, shutdown.signal);
  const enqueue = (runId: string) => queue.enqueue(runId);
  const agentHost = new LateAgentHost();
  const processes = new ProcessTable(16, config.tools.exec.max_output_bytes);
  const tools = builtinTools(config, { db: database.db, enqueue, agentHost, processes }, opts.lookup ? { lookup: opts.lookup } : {}, opts.extraTools ?? []);
  const base = {
    db: database.db, config, tools, guard: createGuard(config, systemGuardDeps(opts.lookup ? { lookup: opts.lookup } : {})), logger, workerId,
    ...(opts.lookup ? { net: { lookup: opts.lookup } } : {}),
    ledger: effectLedger(database.db), shutdown: shutdown.signal, queue, metrics, audit: groupCommitAppend(database.db),
  };
  const agent = daemonAgentRuntime(base);
  agentHost.bind(agent);
  const deps = { ...base, agent };
  const worker: RunWorker | null = opts.work === false ? null : startWorker(deps, {
    concurrency: config.daemon.concurrency, logger, onConnectionError: (err) => queueWarn(err, { where: 'worker' }),
  });
  undo.push(async () => { await worker?.stop(Promise.resolve(), () => shutdown.abort()); await processes.closeAll(); });

  let stopping = false;
  // the graceful stop, once begun; a cancelNow() asked before it is applied as it begins
  let ending: ReturnType<typeof beginStop> | null = null;
  let cancelAsked: string | null = null;
  let stopped: Promise<Stopped> | null = null;
  const fireOnce = (progress?: Progress): Promise<number> => fireUntilDone(database.db, {
    parallel: config.daemon.firing_passes, logger, stopping: () => stopping, ...(progress ? { progress } : {}),
    async onFired(report) {
      for (const ms of report.lateness) metrics.fireLateness.observe(ms / 1000);
      for (const [reason, n] of Object.entries(report.skipped)) metrics.instantsSkipped.inc({ reason }, n);
      // 10,000 runs due at once: one enqueue after another would add seconds of lateness
      for (let i = 0; i < report.queued.length; i += ENQUEUE_CHUNK) {
        // on the database clock, which not_before is on: a host clock behind it would hold every run back
        const now = dbClockNow(report);
        const chunk = report.queued.slice(i, i + ENQUEUE_CHUNK);
        await Promise.all(chunk.map((run) => queue.enqueue(run.id, { delayMs: (run.not_before?.getTime() ?? now) - now })));
        progress?.('runs enqueued', chunk.length);
      }
    },
  });
  // a copy outside the database (the journal) is what lets `audit verify --head` notice a cut or rewritten tail
  const logAuditHead = async () => {
    const head = await auditHead(database.db).catch(() => null);
    if (head) logger.info({ audit_head: `${head.seq}:${head.hash}` }, 'audit chain head; check it later with: echo-agent audit verify --head');
  };
  const reconcileOnce = async (progress?: Progress) => {
    const graceSeconds = Math.min(HAND_OFF_GRACE_SECONDS, config.daemon.reconcile_seconds);
    const settledBefore = new Date(Date.now() - graceSeconds * 1000);
    const reconciled = await reconcile(database.db, queue, logger, {
      handOffGraceSeconds: graceSeconds, ...(self ? { deadHolders: { self, probe: hostProcesses } } : {}), ...(progress ? { progress } : {}),
    });
    // the runs queued before the grace are all in the queue: an enqueue refused then left none waiting
    queue.clearedBefore(settledBefore);
    for (const [state, n] of Object.entries(reconciled.outcomes)) if (n > 0) metrics.runStates.inc({ state }, n);
    // requests whose session died with nobody answering: no longer listed as pending, no longer answerable
    const expired = await expireApprovals(database.db);
    if (expired > 0) logger.info({ expired }, 'unanswered approval requests expired');
    // on the database clock, which stamped them: a host clock ahead would drop spills a run still reads
    const dropped = await deleteSpillsBefore(database.db, new Date((await databaseNow(database.db)).getTime() - config.tools.spill_retention_hours * 3_600_000));
    if (dropped > 0) logger.info({ dropped }, 'old spills removed');
    // a filesystem problem here must not stop the daemon or the rest of the pass
    const recovered = await recoverSkillInstalls(config, database.db).catch((err: unknown) => {
      logger.error({ err }, 'recovering interrupted skill installs failed');
      return null;
    });
    for (const s of recovered?.restored ?? []) logger.warn({ skill: s.name, version: s.version }, 'an interrupted skill install was rolled back: the recorded version is in place again');
    if (recovered?.removed.length) logger.info({ removed: recovered.removed }, 'leftover skill install work dirs removed');
    for (const k of recovered?.kept ?? []) logger.error({ dir: k.dir, why: k.why }, 'a skill install work dir holds a previous version that cannot be identified; left in place for an operator');
  };
  const pruneOnce = async (progress?: Progress) => {
    const days = config.daemon.run_retention_days;
    if (days === 0) return;
    // on the database clock, which nominal instants are on
    const before = new Date((await databaseNow(database.db)).getTime() - days * 86_400_000);
    const pruned = await pruneRuns(database.db, { before, actor: 'retention', shouldStop: () => stopping, ...(progress ? { progress } : {}) });
    metrics.runsPruned.inc(pruned.runs);
    if (pruned.runs > 0 || pruned.effects > 0) {
      logger.info({ runs: pruned.runs, transcripts: pruned.transcripts, jobs: pruned.jobs.length, effects: pruned.effects, before: before.toISOString(), complete: pruned.complete }, 'ended runs older than daemon.run_retention_days deleted');
    }
  };
  // a pass slower than its tick is not stacked behind: the first tick after it ends starts the next
  const loop = (name: string, everyMs: number, fn: () => Promise<unknown>, firstAfterMs = everyMs) => {
    let running: Promise<void> | null = null;
    const failures = loopFailureLog(logger, name);
    const tick = () => {
      if (running) return;
      running = fn().then(() => failures.succeeded(), (err: unknown) => { metrics.loopFailures.inc({ loop: name }); failures.failed(err); }).finally(() => { running = null; });
    };
    let timer: NodeJS.Timeout | undefined;
    const first = setTimeout(() => { tick(); timer = setInterval(tick, everyMs); }, firstAfterMs);
    return { stop: async () => { clearTimeout(first); clearInterval(timer); await running; } };
  };
  await reconcileOnce();
  let lastFiredAt = Date.now();
  const firing = loopFailureLog(logger, 'firing');
  // a pass with nothing to enqueue succeeds while the queue refuses the runs it holds: not a recovery yet
  const firedAndNoted = async (progress: Progress) => { await fireOnce(progress); lastFiredAt = Date.now(); if (!queue.fault()) firing.succeeded(); };
  // a firing loop that keeps failing (or hangs) makes the replica unhealthy, not just noisy in the log
  const firingStaleMs = opts.firingStaleMs ?? Math.max(60_000, config.daemon.tick_seconds * 10_000);
  // retention too: months of runs take long to delete, but each committed batch is progress
  const passes = watchPasses({
    logger, warnAfterMs: Math.min(firingStaleMs, opts.hungPassMs ?? Infinity), exitAfterMs: opts.hungPassMs ?? config.daemon.hung_pass_seconds * 1000,
    onHung: (why) => opts.onFatal?.(why),
  });
  undo.push(async () => passes.stop());
  const prune = passes.around('retention', pruneOnce);
  const behind = watchFiringBehind({ logger, warnAfterMs: firingStaleMs });
  const loops = [
    startFiringLoop({
      tickMs: config.daemon.tick_seconds * 1000, pass: passes.around('firing', firedAndNoted),
      nextDue: passes.around('firing', async () => behind.noted(await withJobName(database.db, await nextDueReading(database.db)))),
      onError: (err) => { metrics.loopFailures.inc({ loop: 'firing' }); firing.failed(err); },
    }),
    loop('reconcile', config.daemon.reconcile_seconds * 1000, passes.around('reconcile', reconcileOnce)),
    loop('retention', RETENTION_EVERY_MS, prune, RETENTION_FIRST_MS),
  ];
  undo.push(() => { stopping = true; return Promise.all(loops.map((l) => l.stop())); });
  const http = opts.http === false ? null : await startHttp({
    host: config.daemon.http.host, port: config.daemon.http.port, metrics, logger,
    health: {
      async check() {
        // each part within its own limit, under the probe's, so the answer names the part that did not answer
        await named('the database', within(HEALTH_PART_MS, databaseAnswers(database.pool, HEALTH_PART_MS), 'select 1'));
        if (worker && !worker.isRunning()) throw new Error('the queue worker is not running');
        const refused = queue.fault();
        // the refusal may already name the queue (one that does not answer): not twice
        if (refused) throw new Error(`${refused.message.startsWith('the queue (') ? refused.message : `${queueNamed}: ${refused.message}`}; runs wait in the database since ${refused.since.toISOString()}`);
        const since = Date.now() - lastFiredAt;
        if (since > firingStaleMs) throw new Error(`no firing pass has succeeded for ${Math.round(since / 1000)} s`);
        const depth = await named(queueNamed, within(HEALTH_PART_MS, queue.depth(), 'counting its runs'));
        const overdue = behind.overdue();
        return { database: 'ok', queue: `${backend.kind}, ${depth} queued or running`, firing: `last pass ${Math.round(since / 1000)} s ago${overdue ? `; ${overdue}` : ''}` };
      },
      // a rolling restart's load balancer must see the stop before the listener closes
      stopping() {
        if (!ending) return null;
        const { running, cancelAt } = ending.state();
        return { firing: 'stopped', running: `${running} run(s), cancelled at ${cancelAt.toISOString()} if still running (daemon.stop_timeout_seconds)` };
      },
    },
  });
  // runs are taken only once everything they rely on (HTTP, loops, undo steps) is in place
  await worker?.start();
  logger.info({ version: packageVersion(), worker: workerId, concurrency: config.daemon.concurrency }, 'daemon started');
  await logAuditHead();

  return {
    database, queue, metrics, httpPort: http?.port ?? null, fireOnce, reconcileOnce, pruneOnce: prune,
    stop() {
      stopped ??= (async () => {
        stopping = true;
        // already stopping: a pass that hangs now is bounded by the stop timeout
        passes.stop();
        ending = beginStop({
          logger, stopTimeoutSeconds: config.daemon.stop_timeout_seconds, worker, shutdown, loops,
          steps: [
            ['ending the processes tools started', () => processes.closeAll()],
            ['closing the HTTP listener', () => http?.close()],
            ['closing the queue', () => queue.close()],
            ['noting the audit head', logAuditHead],
            // a pass still hung on a query would hold the pool open for ever
            ['closing the database pool', () => database.close()],
            // the server's own shutdown checkpoint may take a while: an abnormal one must still be heard, not cut off at 5 s
            ['stopping the embedded PostgreSQL', () => resolved.stop(), { limitMs: EMBEDDED_STOP_LIMIT_MS, failsStop: resolved.embedded }],
          ],
          failure: () => (resolved.embedded ? lastStopOf(config.daemon.data_dir)?.abnormal ?? null : null),
        });
        if (cancelAsked) ending.cancelNow(cancelAsked);
        const outcome = await ending.done;
        // the metrics' process-wide observers would otherwise keep this daemon (queue, pool, tools) in memory
        metrics.close();
        if (outcome.failure) logger.error({ failure: outcome.failure }, 'daemon stopped, but not cleanly');
        else logger.info('daemon stopped');
        return outcome;
      })();
      return stopped;
    },
    cancelNow(why) {
      if (ending) ending.cancelNow(why);
      else cancelAsked ??= why;
    },
    stopping: () => ending?.state() ?? null,
  };
}

/**
 * Replicas share runs safely (each instant once, each run claimed once), so another daemon is no error. On the
 * embedded database it is one on this very data directory, which is rarely meant (`npm start` beside the service).
 */
async function noteOtherDaemons(db: Executor, mine: string, myQueue: string, embedded: boolean, logger: Logger): Promise<void> {
  const others = await otherDaemons(db, mine).catch(() => []);
  if (others.length === 0) return;
  const daemons = others.map((n) => n.slice(DAEMON_APPLICATION.length + 1));
  if (embedded) logger.warn({ daemons }, 'another daemon already runs on this data directory: this one runs beside it, sharing its runs; stop one of them if that was not meant');
  // daemons of this schema only (otherDaemons); those of other schemas are named at a start that set this schema up new
  else logger.info({ daemons }, 'other echo-agent daemons are connected to this database');
  // replicas.queue_mismatch: one schema, two queues (Redis beside the PostgreSQL backend, or another queue.prefix); an older release's name says nothing
  const apart = otherQueues(others, myQueue);
  if (apart.length > 0) logger.warn({ rule: 'replicas.queue_mismatch', queue: myQueue, other_queues: apart }, queueMismatchWarning(apart, myQueue));
}
