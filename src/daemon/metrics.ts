import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

/** The daemon's Prometheus metrics; one registry per daemon so tests can run several. */
export function createMetrics() {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: 'echo_agent_' });
  return {
    registry,
    runsFinished: new Counter({ name: 'echo_agent_runs_total', help: 'Runs that reached a final state, by state', labelNames: ['state'] as const, registers: [registry] }),
    instantsSkipped: new Counter({ name: 'echo_agent_instants_skipped_total', help: 'Scheduled instants recorded as skipped, by reason', labelNames: ['reason'] as const, registers: [registry] }),
    fireLateness: new Histogram({
      name: 'echo_agent_fire_lateness_seconds', help: 'How long after its nominal instant a run was queued',
      buckets: [0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 30, 60, 300], registers: [registry],
    }),
    gateDecisions: new Counter({ name: 'echo_agent_gate_decisions_total', help: 'ApprovalGate decisions, by step and outcome', labelNames: ['step', 'outcome'] as const, registers: [registry] }),
    queueDepth: new Gauge({ name: 'echo_agent_queue_depth', help: 'Runs waiting, delayed or active in the queue', registers: [registry] }),
    runsActive: new Gauge({ name: 'echo_agent_runs_active', help: 'Runs executing in this replica', registers: [registry] }),
  };
}

export type Metrics = ReturnType<typeof createMetrics>;
