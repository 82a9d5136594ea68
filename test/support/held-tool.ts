import type { RiskLevel } from '../../src/policy/risk.ts';
import type { Tool } from '../../src/tools/types.ts';

/**
 * An external tool named test_slow whose first call waits until the test lets it go, so a test can act
 * (revoke, cut the database, step the clock) while a run is mid-step. Later calls return at once.
 */
export function heldTool(risk: RiskLevel = 'read_only'): { tool: Tool; started: Promise<void>; release: () => void; calls: () => number; most: () => number } {
  let calls = 0;
  let running = 0;
  let most = 0;
  let markStarted!: () => void;
  let release!: () => void;
  const started = new Promise<void>((r) => { markStarted = r; });
  const released = new Promise<void>((r) => { release = r; });
  const tool: Tool = {
    name: 'test_slow', description: 'waits the first time until released', parameters: { type: 'object' },
    timeoutSeconds: 60, maxRetries: 0, streamCapable: false, capabilities: [], riskLevel: risk,
    isReady: () => true, readinessDetail: () => [true, 'ready'],
    async execute() {
      calls++;
      running++;
      most = Math.max(most, running);
      try {
        if (calls === 1) { markStarted(); await released; }
        return { success: true, output: `call ${calls}` };
      } finally {
        running--;
      }
    },
  };
  // most: the most calls that ever ran at once (two attempts of one run must never overlap)
  return { tool, started, release, calls: () => calls, most: () => most };
}
