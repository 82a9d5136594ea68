import { mkdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApprovalGate } from '../../../src/approval/gate.ts';
import { defaultConfig } from '../../../src/config/schema.ts';
import { createGuard } from '../../../src/guard/index.ts';
import { checkPaths } from '../../../src/guard/paths/index.ts';
import { buildContext } from '../../../src/tools/context.ts';
import { catalogLookup } from '../../../src/tools/facts.ts';
import { systemGatePorts, systemGuardDeps, systemPathFs } from '../../../src/util/system-ports.ts';
import { instantClock, MemoryAllowlist, RecordingApprover } from '../../support/gate-harness.ts';
import { workspaceAndOutside } from '../../support/workspace.ts';

/*
 * Guard round 27, the file tools: a gitfile and a git directory's config or hooks its name does not show, dotenv files
 * and private keys by name, and start-up places that run or pick programs later. Each asks (path.credential_write,
 * path.credential_read: refused unattended) or, for ssh-keygen's key names, is refused (path.secret).
 */
let root: string;
let ws: string;

beforeAll(async () => {
  ({ root, ws } = await workspaceAndOutside('echo-round27-'));
  // a real git directory the model did not name as one: HEAD and objects beside its config
  await mkdir(join(ws, 'realgd', 'objects'), { recursive: true });
  await writeFile(join(ws, 'realgd', 'HEAD'), 'ref: refs/heads/main\n');
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

const guard = () => createGuard(defaultConfig({ tools: { profile: 'full', workspace: ws, restrict_to_workspace: false } }), systemGuardDeps({ dns: false }));
const rules = async (tool: string, args: Record<string, unknown>) => (await guard().inspect({ tool, args }, buildContext({ channel: 'cli' }))).findings.map((f) => f.rule);
const FSMONITOR = '[core]\n\tfsmonitor = touch /tmp/pwned\n';

describe('git directories a gitfile can point to: path.credential_write', () => {
  it.each<[string, Record<string, unknown>]>([
    ['write_file', { path: 'sub/.git', content: 'gitdir: ../gd\n' }],
    ['write_file', { path: '.git', content: 'gitdir: gd\n' }],
    ['write_file', { path: 'gd/config', content: FSMONITOR }],
    ['write_file', { path: 'gd/config', content: '[Core] pager = sh -c x' }],
    ['write_file', { path: 'gd/config.worktree', content: '[include]\n\tpath = /tmp/x\n' }],
    ['edit_file', { path: 'gd/config', old_text: 'bare = false', new_text: 'bare = false\n\tfsmonitor = touch /tmp/x' }],
    ['patch', { diff: '--- /dev/null\n+++ b/gd2/config\n@@ -0,0 +1,2 @@\n+[core]\n+\tfsmonitor = touch /tmp/x\n' }],
    ['write_file', { path: 'realgd/config', content: 'x = 1\n' }],
    ['write_file', { path: 'realgd/hooks/anything', content: '#!/bin/sh\n' }],
    ['write_file', { path: '.git/modules/sub/hooks/pre-commit', content: 'x' }],
    ['write_file', { path: 'srv/repo.git/config', content: 'x' }],
  ])('%s %j', async (tool, args) => {
    expect(await rules(tool, args)).toEqual(['path.credential_write']);
  });

  it.each<[string, Record<string, unknown>]>([
    ['write_file', { path: 'config.yaml', content: '[core]\nfsmonitor = x' }],
    ['write_file', { path: 'app/config', content: 'port = 80\n[server]\nhost = x\n' }],
    ['write_file', { path: 'hooks/pre-commit', content: '#!/bin/sh\n' }],
    ['write_file', { path: 'notes/git.md', content: FSMONITOR }],
    ['write_file', { path: 'src/.gitignore', content: 'node_modules\n' }],
  ])('not %s %j', async (tool, args) => {
    expect(await rules(tool, args)).toEqual([]);
  });

  it('the report\'s repro is refused unattended under allow_safe, where it was allowed at step 4', async () => {
    const config = defaultConfig({ tools: { profile: 'full', workspace: ws, restrict_to_workspace: true }, permissions: { approval: { mode: 'smart', unattended_policy: 'allow_safe' } } });
    const gate = createApprovalGate(config, {
      ...systemGatePorts, guard: createGuard(config, systemGuardDeps({ dns: false })), allowlist: new MemoryAllowlist(), lookupTool: catalogLookup(config),
      smartReviewer: null, humanApprover: new RecordingApprover(), clock: instantClock,
    });
    const unattended = () => buildContext({ unattended: true, channel: 'cron', session_key: 'cron:job_x' });
    for (const args of [{ path: 'sub/.git', content: 'gitdir: ../gd\n' }, { path: 'gd/config', content: FSMONITOR }]) {
      expect(await gate.check({ tool: 'write_file', args }, unattended()), args.path).toMatchObject({ outcome: 'deny', rule: 'unattended.flagged' });
    }
    expect(await gate.check({ tool: 'write_file', args: { path: 'gd/notes.txt', content: FSMONITOR } }, unattended())).toMatchObject({ outcome: 'allow' });
  });
});

const judge = async (kind: 'read' | 'write' | 'tree', path: string) =>
  (await checkPaths({ read: kind === 'read' ? [path] : [], write: kind === 'write' ? [path] : [], tree: kind === 'tree' ? [path] : [] },
    { workspace: ws, restrictToWorkspace: false, safeWriteRoot: '' }, systemPathFs)).map((f) => f.rule);

describe('dotenv files and private keys by name', () => {
  it.each(['.env', '.env.local', 'app/.env.production', 'certs/privkey.pem', 'tls/server-key.pem', 'keys/x.ppk'])('read %s asks', async (path) => {
    expect(await judge('read', path)).toEqual(['path.credential_read']);
    expect(await rules('search_files', { path, pattern: 'KEY' })).toEqual(['path.credential_read']);
  });

  it.each(['keys/id_rsa', '/tmp/rtws/keys/id_ed25519', 'deploy/id_ecdsa'])('%s is a secret, read or written', async (path) => {
    expect(await judge('read', path)).toEqual(['path.secret']);
    expect(await judge('write', path)).toEqual(['path.secret']);
  });

  it.each(['.env.example', '.env.sample', '.env.template', 'keys/id_rsa.pub', 'cert.pem', 'public-key.pem', 'docs/id_rsa.md', 'environment.ts'])('%s is none', async (path) => {
    expect(await judge('read', path)).toEqual([]);
  });
});

describe('start-up and settings places that run or pick programs later: path.credential_write', () => {
  it.each([
    '/root/.pam_environment', '/etc/ld.so.conf', '/etc/ld.so.conf.d/x.conf', '/etc/pam.d/sshd', '/usr/local/bin/git', '/usr/local/sbin/x',
    '/root/.config/pip/pip.conf', '/root/.pip/pip.conf', '/etc/pip.conf', 'venv/pip.conf', '/root/.condarc', '/root/.config/conda/condarc',
    '.envrc', '.vscode/tasks.json', '.vscode/settings.json',
  ])('%s', async (path) => {
    expect(await judge('write', path)).toEqual(['path.credential_write']);
  });

  it.each(['.vscode/launch.json', '/usr/local/share/x', 'envrc.md', 'pip.conf.md'])('%s is none', async (path) => {
    expect(await judge('write', path)).toEqual([]);
  });
});
