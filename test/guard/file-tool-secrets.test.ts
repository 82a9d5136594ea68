import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApprovalGate, type ApprovalGate } from '../../src/approval/gate.ts';
import { defaultConfig } from '../../src/config/schema.ts';
import { createGuard } from '../../src/guard/index.ts';
import { systemGatePorts, systemGuardDeps } from '../../src/util/system-ports.ts';
import { buildContext } from '../../src/tools/context.ts';
import { catalogLookup } from '../../src/tools/facts.ts';
import { instantClock, MemoryAllowlist, RecordingApprover } from '../support/gate-harness.ts';

/*
 * Review: read_file of /root/.ssh/id_rsa was allowed unattended at step 4 while `cat` of it is a hard block.
 * The real guard behind the real gate: a file tool's secret path is refused at step 1, and no standing
 * policy (auto_approve, cli_auto_approve, trusted channels, mode off, a cron grant) lets it through (I9).
 */
let dataDir: string;
let gate: ApprovalGate;
let approver: RecordingApprover;

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'echo-file-secrets-'));
  const tools = ['read_file', 'list_dir', 'search_files', 'knowledge_index', 'write_file', 'edit_file', 'patch', 'exec'];
  const config = defaultConfig({
    daemon: { data_dir: dataDir },
    permissions: { approval: { mode: 'off', auto_approve: tools, cli_auto_approve: true, trusted_channels: ['cli', 'cron'] } },
  });
  approver = new RecordingApprover();
  gate = createApprovalGate(config, {
    ...systemGatePorts,
    guard: createGuard(config, systemGuardDeps({ dns: false })), allowlist: new MemoryAllowlist(), lookupTool: catalogLookup(config), smartReviewer: null,
    humanApprover: approver, clock: instantClock,
  });
});
afterAll(async () => {
  await rm(dataDir, { recursive: true, force: true });
});

const contexts = {
  unattended: () => buildContext({ unattended: true, channel: 'cron', session_key: 'cron:job_x' }),
  'unattended, cron_authorized': () => buildContext({ unattended: true, cron_authorized: true, channel: 'cron', session_key: 'cron:job_x' }),
  'attended cli': () => buildContext({ channel: 'cli' }),
};

describe.each(Object.entries(contexts))('file tools over secrets are refused at step 1 (%s)', (_name, ctx) => {
  it.each<[string, Record<string, unknown>, string]>([
    ['read_file', { path: '/root/.ssh/id_rsa' }, 'path.secret'],
    ['read_file', { path: '/etc/shadow' }, 'path.secret'],
    ['read_file', { path: '/etc/../etc/gshadow' }, 'path.secret'],
    ['read_file', { path: '~/.aws/credentials' }, 'path.secret'],
    ['read_file', { path: '/root/.aws/credentials' }, 'path.secret'],
    ['read_file', { path: '/home/alice/.ssh/id_ed25519' }, 'path.secret'],
    ['list_dir', { path: '/root/.ssh' }, 'path.secret'],
    ['list_dir', { path: '/root', recursive: true }, 'path.secret_tree'],
    ['search_files', { path: '/root/.ssh', pattern: 'BEGIN' }, 'path.secret'],
    ['search_files', { path: '/etc', pattern: 'root:' }, 'path.secret_tree'],
    ['search_files', { path: '/', pattern: 'PRIVATE KEY' }, 'path.secret_tree'],
    ['search_files', { path: '/home/alice/.aws' }, 'path.secret_tree'],
    ['knowledge_index', { path: '/root' }, 'path.secret_tree'],
    ['write_file', { path: '/root/.ssh/authorized_keys', content: 'ssh-ed25519 AAAA x' }, 'path.secret'],
    ['edit_file', { path: '/etc/shadow', old_text: 'root:*', new_text: 'root::' }, 'path.secret'],
    ['patch', { diff: '--- a/.ssh/id_rsa\n+++ b/.ssh/id_rsa\n@@ -1 +1 @@\n-a\n+b\n', root: '/root' }, 'path.secret'],
  ])('%s %j -> deny %s', async (tool, args, rule) => {
    const d = await gate.check({ tool, args }, ctx());
    expect(d, JSON.stringify(d)).toMatchObject({ outcome: 'deny', step: 1, rule });
    expect(d.flagged).toContainEqual(expect.objectContaining({ rule, severity: 'deny' }));
    expect(approver.asked).toHaveLength(0);
  });
});

describe('what lies beside the secrets stays readable', () => {
  it.each<[string, Record<string, unknown>]>([
    ['read_file', { path: '/etc/hostname' }],
    ['read_file', { path: '/home/alice/.ssh/id_ed25519.pub' }],
    ['list_dir', { path: '/root' }],
    ['list_dir', { path: '/etc' }],
    ['search_files', { path: '/etc/ssl/certs', pattern: 'x' }],
    ['search_files', { path: 'notes', pattern: 'x' }],
  ])('%s %j is judged by the later steps', async (tool, args) => {
    const d = await gate.check({ tool, args }, contexts.unattended());
    expect(d, JSON.stringify(d)).toMatchObject({ outcome: 'allow', step: 4, rule: 'unattended.read_only' });
  });
});
