import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createApprovalGate } from '../../src/approval/gate.ts';
import { defaultConfig } from '../../src/config/schema.ts';
import { createGuard } from '../../src/guard/index.ts';
import { systemGatePorts, systemGuardDeps } from '../../src/util/system-ports.ts';
import { CATALOG } from '../../src/tools/catalog-table.ts';
import { buildContext } from '../../src/tools/context.ts';
import { catalogLookup } from '../../src/tools/facts.ts';
import { instantClock, MemoryAllowlist, RecordingApprover } from '../support/gate-harness.ts';

const workspace = mkdtempSync(join(tmpdir(), 'echo-allow-safe-'));
const endpoint = { base_url: 'https://media.example.com/v1', api_key: 'k' };
// every tool ready, so each one reaches the policy step
const config = defaultConfig({
  tools: { workspace }, permissions: { approval: { unattended_policy: 'allow_safe' } },
  notify: { targets: { ops: { url: 'https://hooks.example.com/x' } } }, services: { image: endpoint, speech: endpoint },
});
const gate = createApprovalGate(config, {
  ...systemGatePorts,
  guard: createGuard(config, systemGuardDeps({ dns: false })), allowlist: new MemoryAllowlist(), lookupTool: catalogLookup(config),
  smartReviewer: null, humanApprover: new RecordingApprover(), clock: instantClock,
}, { securityProfile: config.security.profile, dryRun: false });
const unattended = () => buildContext({ unattended: true, channel: 'cron', session_key: 'cron:job_x' });
const diffFor = (path: string) => `--- a/${path}\n+++ b/${path}\n@@ -1 +1 @@\n-a\n+b\n`;

/** File writes, with arguments inside and outside the workspace. */
const FILE_WRITES: Record<string, { inside: Record<string, unknown>; outside: Record<string, unknown> }> = {
  write_file: { inside: { path: 'out.txt', content: 'x' }, outside: { path: '/etc/cron.d/x', content: 'x' } },
  edit_file: { inside: { path: 'out.txt', old: 'a', new: 'b' }, outside: { path: '../x', old: 'a', new: 'b' } },
  patch: { inside: { diff: diffFor('out.txt') }, outside: { diff: diffFor('../../x') } },
};
const OTHER_WRITES = CATALOG.filter((t) => t.risk === 'write' && !(t.name in FILE_WRITES)).map((t) => t.name);

describe('unattended allow_safe, judged by the real guard on the catalog', () => {
  it.each(Object.keys(FILE_WRITES))('allows %s inside the workspace and refuses it outside', async (tool) => {
    expect(await gate.check({ tool, args: FILE_WRITES[tool]!.inside }, unattended())).toMatchObject({ outcome: 'allow', step: 4, rule: 'unattended.allow_safe.write' });
    expect(await gate.check({ tool, args: FILE_WRITES[tool]!.outside }, unattended())).toMatchObject({ outcome: 'deny', rule: expect.stringMatching(/^(unattended\.(allow_safe\.path|flagged)|path\.)/) });
  });

  it.each(OTHER_WRITES)('refuses %s, whose effect is not a file write the workspace policy could vouch for', async (tool) => {
    const d = await gate.check({ tool, args: { action: 'create', target: 'ops', text: 'hi', title: 't', prompt: 'p', key: 'k', value: 'v', question: 'q' } }, unattended());
    expect(d).toMatchObject({ outcome: 'deny', step: 4, rule: 'unattended.allow_safe.not_file' });
  });

  it('covers at least the task, workflow, memory and notify tools', () => {
    expect(OTHER_WRITES).toEqual(expect.arrayContaining(['task', 'workflow', 'memory', 'notify']));
  });
});
