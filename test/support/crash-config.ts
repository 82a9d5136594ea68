import type { ConfigInput } from '../../src/config/schema.ts';

/** Short leases and ticks so a dead worker is noticed within seconds. */
export function crashTestConfig(prefix: string): ConfigInput {
  return {
    tools: { also_allow: ['test_slow'] },
    permissions: { approval: { unattended_policy: 'allow_safe' } },
    queue: { prefix },
    daemon: { lease_seconds: 2, tick_seconds: 0.2, reconcile_seconds: 0.5, stop_timeout_seconds: 2, concurrency: 2 },
  };
}
