import { appendFileSync, existsSync, readFileSync } from 'node:fs';
import type { Tool } from '../../src/tools/types.ts';

/**
 * An external tool for crash tests: records each execution (pid) in a marker
 * file; the first execution then hangs until aborted, later ones return at once.
 */
export function slowTool(marker: string): Tool {
  return {
    name: 'test_slow', description: 'records an execution, hangs the first time', parameters: { type: 'object' },
    timeoutSeconds: 120, maxRetries: 0, streamCapable: false, capabilities: [], riskLevel: 'read_only',
    isReady: () => true, readinessDetail: () => [true, 'ready'],
    async execute(_params, _ctx, { signal }) {
      const first = !existsSync(marker) || readFileSync(marker, 'utf8').trim() === '';
      appendFileSync(marker, `${process.pid}\n`);
      if (first) await new Promise((resolve) => signal.addEventListener('abort', resolve, { once: true }));
      return { success: true, output: 'done' };
    },
  };
}
