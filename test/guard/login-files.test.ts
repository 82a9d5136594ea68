import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
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
 * Red team F3: read_file (READ_ONLY, allowed at step 4 in every unattended run) handed over ~/.netrc, ~/.npmrc,
 * ~/.pypirc and ~/.gem/credentials, while web_fetch could send them anywhere. Settings files holding a login are
 * flagged (path.credential_read): refused unattended, a person asked attended; files holding nothing but
 * credentials (.gem/credentials, the host's SSH keys) are refused like ~/.aws/credentials (path.secret).
 */
let root: string;
let ws: string;
let gate: ApprovalGate;
let approver: RecordingApprover;

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'echo-login-files-'));
  ws = join(root, 'ws');
  await mkdir(ws, { recursive: true });
  await writeFile(join(root, '.netrc'), 'machine example.com login me password hunter2\n');
  await symlink(join(root, '.netrc'), join(ws, 'hosts.txt'));
  await writeFile(join(ws, 'package.json'), '{}');
  const config = defaultConfig({ daemon: { data_dir: join(root, 'data') }, tools: { workspace: ws } });
  approver = new RecordingApprover();
  gate = createApprovalGate(config, {
    ...systemGatePorts,
    guard: createGuard(config, systemGuardDeps({ dns: false })), allowlist: new MemoryAllowlist(), lookupTool: catalogLookup(config), smartReviewer: null,
    humanApprover: approver, clock: instantClock,
  });
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

const unattended = () => buildContext({ unattended: true, channel: 'cron', session_key: 'cron:job_x' });
const attended = () => buildContext({ channel: 'cli' });
const LOGIN_READS: readonly [string, Record<string, unknown>][] = [
  ['read_file', { path: '~/.netrc' }], ['read_file', { path: '/root/.netrc' }], ['read_file', { path: '/home/alice/.netrc' }],
  ['read_file', { path: '~/.npmrc' }], ['read_file', { path: '.npmrc' }], ['read_file', { path: '~/.pypirc' }],
  // a workspace name whose symlink leads to one
  ['read_file', { path: 'hosts.txt' }],
  ['search_files', { path: '/home/alice/.npmrc', pattern: 'authToken' }],
];

describe('settings files holding a login, read by a file tool', () => {
  it.each(LOGIN_READS)('%s %j is refused unattended, as a flagged call', async (tool, args) => {
    const d = await gate.check({ tool, args }, unattended());
    expect(d).toMatchObject({ outcome: 'deny', step: 4, rule: 'unattended.flagged' });
    expect(d.flagged.map((f) => f.rule)).toContain('path.credential_read');
  });

  it.each(LOGIN_READS)('%s %j asks a person attended', async (tool, args) => {
    const asked = approver.asked.length;
    const d = await gate.check({ tool, args }, attended());
    expect(d.step).toBe(11);
    expect(approver.asked.length).toBe(asked + 1);
  });

  it.each([
    ['~/.gem/credentials'], ['/home/alice/.gem/credentials'], ['/etc/ssh/ssh_host_ed25519_key'], ['/etc/ssh/ssh_host_rsa_key'],
  ])('%s holds nothing but credentials: refused at step 1 (path.secret), attended too', async (path) => {
    for (const ctx of [unattended(), attended()]) {
      expect(await gate.check({ tool: 'read_file', args: { path } }, ctx)).toMatchObject({ outcome: 'deny', step: 1, rule: 'path.secret' });
    }
  });

  it.each(['package.json', '.npmrc.example', 'netrc.md'])('%s is read unattended as before', async (path) => {
    expect(await gate.check({ tool: 'read_file', args: { path } }, unattended())).toMatchObject({ outcome: 'allow', step: 4, rule: 'unattended.read_only' });
  });
});
