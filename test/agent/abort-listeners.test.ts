import { getEventListeners } from 'node:events';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { agentChatClient } from '../../src/agent/model-config.ts';
import { createAgentRuntime } from '../../src/agent/runtime.ts';
import { defaultConfig } from '../../src/config/schema.ts';
import { builtinTools } from '../../src/daemon/daemon-tools.ts';
import { createGuard } from '../../src/guard/index.ts';
import { systemGuardDeps } from '../../src/util/system-ports.ts';
import { buildContext } from '../../src/tools/context.ts';
import { executeTool } from '../../src/tools/executor.ts';
import type { Tool } from '../../src/tools/types.ts';
import { useTestDatabase } from '../support/db.ts';
import { startFakeModel } from '../support/fake-model.ts';

const database = useTestDatabase();

/** A tool that fails as `internal` the first time of each call, so retries run too. */
function flakyTool(): Tool {
  let n = 0;
  return {
    name: 'test_flaky', description: 'fails every other attempt', parameters: { type: 'object' },
    timeoutSeconds: 5, maxRetries: 1, streamCapable: false, capabilities: [], riskLevel: 'read_only',
    isReady: () => true, readinessDetail: () => [true, 'ready'],
    async execute() {
      return n++ % 2 === 0 ? { success: false, errorKind: 'internal', error: 'flaky' } : { success: true, output: 'ok' };
    },
  };
}

describe('tool calls on one run signal', () => {
  it('leave no abort listener on the signal once each call has ended, retries included', async () => {
    const controller = new AbortController();
    const tool = flakyTool();
    for (let i = 0; i < 40; i++) {
      const r = await executeTool(tool, {}, buildContext({ channel: 'cli' }), { signal: controller.signal });
      expect(r.success).toBe(true);
    }
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0);
  });

  it('an agent run of many calls adds no listener that outlives its call, so Node never warns of a leak', async () => {
    const workspace = mkdtempSync(join(tmpdir(), 'echo-agent-listeners-'));
    writeFileSync(join(workspace, 'a.txt'), 'a\n');
    const model = await startFakeModel((_b, n) => (n < 4
      ? { tool_calls: Array.from({ length: 8 }, () => ({ name: 'read_file', arguments: { path: 'a.txt' } })) }
      : { content: 'done' }));
    afterAll(() => model.close());
    const config = defaultConfig({ tools: { workspace, restrict_to_workspace: true }, model: { base_url: model.url, api_key: 'sk-listeners-key-00000000', name: 'scripted' } });
    const db = database().db;
    const runtime = createAgentRuntime({ config, db, tools: builtinTools(config, { db }), guard: createGuard(config, systemGuardDeps({ dns: false })), chat: agentChatClient(config) });
    const warnings: Error[] = [];
    const onWarning = (w: Error) => warnings.push(w);
    process.on('warning', onWarning);
    try {
      const controller = new AbortController();
      const out = await runtime.run('read a lot', buildContext({ channel: 'cli', user_id: 'alice' }), { signal: controller.signal });
      expect(out.status).toBe('completed');
      expect(out.calls).toHaveLength(32);
      expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0);
      await new Promise((r) => setImmediate(r));
      expect(warnings.filter((w) => w.name === 'MaxListenersExceededWarning')).toEqual([]);
    } finally {
      process.off('warning', onWarning);
    }
  });
});
