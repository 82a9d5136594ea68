import { describe, expect, it } from 'vitest';
import { defaultConfig } from '../../src/config/schema.ts';
import { createGuard } from '../../src/guard/index.ts';
import { systemGuardDeps } from '../../src/util/system-ports.ts';
import { buildContext } from '../../src/tools/context.ts';

const guard = createGuard(defaultConfig(), systemGuardDeps({ dns: false }));
const inspect = (tool: string, args: Record<string, unknown>) => guard.inspect({ tool, args }, buildContext({ channel: 'cli' }));

describe('the static guard reads every argument that reaches a shell', () => {
  it('stdin written to a process is shell text: a hard block there is refused', async () => {
    const verdict = await inspect('process', { action: 'write', id: 'p1', input: 'rm -rf /\n' });
    expect(verdict).toMatchObject({ decision: 'deny', findings: [expect.objectContaining({ rule: 'shell.rm.recursive_root' })] });
  });

  it('an answer typed into a process passes, and its scope is what it runs', async () => {
    expect(await inspect('process', { action: 'write', id: 'p1', input: 'y\n' })).toMatchObject({ decision: 'allow', commands: [{ program: 'y' }] });
  });

  it('starting a shell is judged by its command; reading output or signalling has nothing to judge', async () => {
    expect((await inspect('process', { action: 'start', command: 'rm -rf ~' })).decision).toBe('deny');
    expect((await inspect('process', { action: 'read', id: 'p1', input: 'rm -rf /' })).decision).toBe('allow');
  });

  it('execute_code in bash or sh is shell text', async () => {
    expect((await inspect('execute_code', { language: 'sh', code: 'rm -rf /' })).decision).toBe('deny');
  });

  it.each(['python', 'node'])('execute_code in %s cannot be read by the shell guard, so it is flagged for a person', async (language) => {
    const verdict = await inspect('execute_code', { language, code: 'import os; os.system("rm -rf /")' });
    expect(verdict.decision).toBe('ask');
    expect(verdict.findings).toEqual([expect.objectContaining({ rule: 'shell.interpreter.inline', matched: expect.stringContaining(`${language}: import os`) })]);
  });
});

describe('an argument that is a URL or a local path is judged as whichever it is', () => {
  it.each([
    ['vision_analyze', { image: '/etc/shadow' }, 'path.secret'],
    ['vision_analyze', { image: '/root/.ssh/id_ed25519' }, 'path.secret'],
    ['skill_install', { source: '/root' }, 'path.secret_tree'],
  ])('%s %j is refused (%s)', async (tool, args, rule) => {
    expect(await inspect(tool, args)).toMatchObject({ decision: 'deny', findings: [expect.objectContaining({ rule })] });
  });

  it('one with a scheme goes to the SSRF guard instead, and is not read as a path', async () => {
    const verdict = await inspect('vision_analyze', { image: 'http://169.254.169.254/latest/meta-data/x.png' });
    expect(verdict.findings.map((f) => f.rule)).toEqual(['ssrf.ip.metadata']);
  });

  it('a local path outside a restricted workspace is found like a read_file of it', async () => {
    const restricted = createGuard(defaultConfig({ tools: { workspace: '/home/alice/proj', restrict_to_workspace: true } }), systemGuardDeps({ dns: false }));
    const verdict = await restricted.inspect({ tool: 'vision_analyze', args: { image: '/tmp/chart.png' } }, buildContext({ channel: 'cli' }));
    expect(verdict.findings.map((f) => f.rule)).toContain('path.outside_workspace');
  });
});

describe('the shell guard judges relative paths from where the tool starts the command', () => {
  const inWorkspace = createGuard(defaultConfig({ tools: { workspace: '/home/alice/proj' } }), systemGuardDeps({ dns: false }));
  const run = (command: string, extra: Record<string, unknown> = {}) =>
    inWorkspace.inspect({ tool: 'exec', args: { command, shell: true, ...extra } }, buildContext({ channel: 'cli' }));

  it.each([
    ['rm -rf ..', {}, 'shell.rm.recursive_home'],
    ['rm -rf ../..', {}, 'shell.rm.recursive_system_path'],
    ['rm -rf ../../..', {}, 'shell.rm.recursive_root'],
    ['rm -rf ../../../..', { cwd: 'sub' }, 'shell.rm.recursive_root'],
  ])('%s (cwd %j) is a hard block', async (command, extra, rule) => {
    expect(await run(command, extra)).toMatchObject({ decision: 'deny', findings: [expect.objectContaining({ rule })] });
  });

  it('a directory inside the workspace stays a soft block', async () => {
    expect(await run('rm -rf build')).toMatchObject({ decision: 'ask', findings: [expect.objectContaining({ rule: 'shell.rm.recursive' })] });
  });
});

describe('the embedded database files are out of every file tool\'s reach', () => {
  it('its password file and directory are refused, read or written, symlinked or not; the rest of data_dir is not', async () => {
    const { mkdtemp, mkdir, writeFile, symlink } = await import('node:fs/promises');
    const { tmpdir } = await import('node:os');
    const { join } = await import('node:path');
    // as under systemd: the workspace lives inside data_dir
    const dataDir = await mkdtemp(join(tmpdir(), 'echo-state-'));
    const workspace = join(dataDir, 'workspace');
    await mkdir(join(dataDir, 'pg'), { recursive: true });
    await mkdir(workspace);
    await writeFile(join(dataDir, 'pg-password'), 'hunter2');
    await writeFile(join(workspace, 'notes.txt'), 'ok');
    await symlink(join(dataDir, 'pg-password'), join(workspace, 'innocent.txt'));
    const g = createGuard(defaultConfig({ daemon: { data_dir: dataDir }, tools: { workspace } }), systemGuardDeps({ dns: false }));
    const check = (tool: string, args: Record<string, unknown>) => g.inspect({ tool, args }, buildContext({ channel: 'cron', unattended: true }));
    for (const [tool, args] of [
      ['read_file', { path: join(dataDir, 'pg-password') }],
      ['read_file', { path: '../pg-password' }],
      ['read_file', { path: 'innocent.txt' }],
      ['list_dir', { path: join(dataDir, 'pg') }],
      ['write_file', { path: join(dataDir, 'pg', 'postgresql.conf'), content: 'x' }],
    ] as const) {
      expect(await check(tool, args), `${tool} ${JSON.stringify(args)}`).toMatchObject({ decision: 'deny', findings: [expect.objectContaining({ rule: 'path.daemon_state' })] });
    }
    expect((await check('read_file', { path: 'notes.txt' })).decision).toBe('allow');
    expect((await check('list_dir', { path: dataDir })).decision).toBe('allow');
    // a shell reads them as it reads /etc/shadow: the exec tool starts in the workspace, one level below
    for (const command of ['cat ../pg-password', `cp ${join(dataDir, 'pg-password')} stolen`, 'ln ../pg-password here', 'grep -r PASS ..', `tar cf x.tar ${join(dataDir, 'pg')}`]) {
      expect(await check('exec', { command }), command).toMatchObject({ decision: 'deny', findings: [expect.objectContaining({ rule: 'shell.secret.read' })] });
    }
    expect((await check('exec', { command: 'cat notes.txt' })).decision).toBe('allow');
  });
});
