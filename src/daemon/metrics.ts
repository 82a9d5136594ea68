import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import { packageVersion } from '../util/package-version.ts';
import { within } from '../util/time-limit.ts';

export interface MetricSources {
  /** Read when /metrics is scraped, so the figure is not one reconcile interval old. */
  readonly queueDepth?: () => Promise<number>;
  /** Since when the queue refuses runs (they wait in the database); null while it takes them. */
  readonly queueFault?: () => unknown;
  /** Read from the database at each scrape: how long the earliest due instant has waited, and the runs due but not taken. */
  readonly backlog?: () => Promise<Backlog>;
}

export interface Backlog {
  readonly behindSeconds: number;
  readonly waiting: number;
}

/** How long a scrape waits for the queue's depth, or for the database's backlog. */
const SCRAPE_READ_LIMIT_MS = 2_000;

/**
 * A gauge whose unknown value (NaN) is left out of the scrape: prom-client writes NaN as `Nan`, which
 * strict OpenMetrics parsers refuse, and a missing sample is what Prometheus makes of "no value now".
 */
class KnownValueGauge extends Gauge {
  override async get() {
    const metric = await super.get();
    return { ...metric, values: metric.values.filter((v) => !Number.isNaN(v.value)) };
  }
}

/**
 * One read per scrape, shared by the gauges that report it: null when the source did not answer within its
 * limit. A hung backend must not fail or stall the whole scrape.
 */
function scrapeReader<T>(read: () => Promise<T>, what: string): () => Promise<T | null> {
  let current: Promise<T | null> | null = null;
  return () => (current ??= within(SCRAPE_READ_LIMIT_MS, read(), what).catch(() => null).finally(() => { current = null; }));
}

/** The daemon's Prometheus metrics; one registry per daemon so tests can run several. */
export function createMetrics(sources: MetricSources = {}) {
  const registry = new Registry();
  const readDepth = sources.queueDepth ? scrapeReader(sources.queueDepth, 'queue depth') : null;
  const readBacklog = sources.backlog ? scrapeReader(sources.backlog, 'backlog') : null;
  const { queueFault } = sources;
  // unprefixed, as every Node.js dashboard and alert expects them: process_cpu_seconds_total, nodejs_eventloop_lag_seconds, …
  collectDefaultMetrics({ register: registry });
  const buildInfo = new Gauge({ name: 'echo_agent_build_info', help: 'Always 1; the version running, as its label', labelNames: ['version'] as const, registers: [registry] });
  buildInfo.set({ version: packageVersion() }, 1);
  return {
    registry,
    runStates: new Counter({ name: 'echo_agent_runs_total', help: 'Runs that entered a state in this replica (a final state, or retrying), by state; the reconciler\'s retries and interruptions included', labelNames: ['state'] as const, registers: [registry] }),
    instantsSkipped: new Counter({ name: 'echo_agent_instants_skipped_total', help: 'Scheduled instants recorded as skipped, by reason', labelNames: ['reason'] as const, registers: [registry] }),
    fireLateness: new Histogram({
      name: 'echo_agent_fire_lateness_seconds', help: 'How long after its nominal instant a run was queued',
      buckets: [0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 30, 60, 300], registers: [registry],
    }),
    gateDecisions: new Counter({ name: 'echo_agent_gate_decisions_total', help: 'ApprovalGate decisions, by step and outcome', labelNames: ['step', 'outcome'] as const, registers: [registry] }),
    queueDepth: new KnownValueGauge({
      name: 'echo_agent_queue_depth', help: 'Runs waiting, delayed or active in the deployment\'s queue (every replica reports the same queue: do not sum over instances); no sample while the queue does not answer (echo_agent_queue_up 0)', registers: [registry],
      async collect() {
        if (readDepth) this.set((await readDepth()) ?? NaN);
      },
    }),
    queueUp: new Gauge({
      // without a queue to ask (tests) there is nothing to say up or down about
      name: 'echo_agent_queue_up', help: '1 when the queue answered this scrape\'s depth query within 2 s, else 0', registers: readDepth ? [registry] : [],
      async collect() {
        if (readDepth) this.set((await readDepth()) === null ? 0 : 1);
      },
    }),
    firingBehind: new KnownValueGauge({
      name: 'echo_agent_firing_behind_seconds',
      help: 'How long the earliest due instant of any job has waited to be fired, read from the database at each scrape (the deployment\'s figure: every replica reports it); stays up while firing is stuck or one job\'s row is held locked',
      registers: readBacklog ? [registry] : [],
      async collect() {
        if (readBacklog) this.set((await readBacklog())?.behindSeconds ?? NaN);
      },
    }),
    runsWaiting: new KnownValueGauge({
      name: 'echo_agent_runs_waiting', help: 'Runs queued or retrying in the database and due now, not yet taken by any replica (the deployment\'s figure); grows while the queue refuses or no worker takes runs',
      registers: readBacklog ? [registry] : [],
      async collect() {
        if (readBacklog) this.set((await readBacklog())?.waiting ?? NaN);
      },
    }),
    queueRefusing: new Gauge({
      name: 'echo_agent_queue_refusing', help: '1 while the queue refuses this replica\'s runs (a full Redis under noeviction, an outage): they wait in the database; else 0',
      registers: queueFault ? [registry] : [],
      collect() {
        if (queueFault) this.set(queueFault() ? 1 : 0);
      },
    }),
    loopFailures: new Counter({ name: 'echo_agent_loop_failures_total', help: 'Failed passes of this replica\'s loops (firing, reconcile, retention), by loop', labelNames: ['loop'] as const, registers: [registry] }),
    runsPruned: new Counter({ name: 'echo_agent_runs_pruned_total', help: 'Ended runs deleted by this replica under daemon.run_retention_days', registers: [registry] }),
    runsActive: new Gauge({ name: 'echo_agent_runs_active', help: 'Runs executing in this replica', registers: [registry] }),
    runDuration: new Histogram({
      name: 'echo_agent_run_duration_seconds', help: 'How long one attempt of a run took in this replica, by how it ended (a final state, or retrying)',
      labelNames: ['state'] as const, buckets: [0.01, 0.05, 0.1, 0.5, 1, 5, 10, 30, 60, 300, 900, 3600], registers: [registry],
    }),
    /** prom-client's default-metrics observers stay registered for the life of the process and hold the registry: empty it. */
    close: () => registry.clear(),
  };
}

export type Metrics = ReturnType<typeof createMetrics>;
