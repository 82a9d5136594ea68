import { mkdir, rm, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkPaths, realPathOf, resolveRoots, writesInside, type PathPolicy } from '../../../src/guard/paths/index.ts';
import { monotonicMs, systemPathFs } from '../../../src/util/system-ports.ts';
import { workspaceAndOutside } from '../../support/workspace.ts';

/*
 * Layout (real files in a temp dir):
 *   root/ws/                     the workspace
 *   root/ws/src/a.ts
 *   root/ws/out/                 the safe write root
 *   root/ws/link-out -> ../outside       symlinked dir pointing out
 *   root/ws/link-file -> ../outside/secret.txt
 *   root/ws/link-in -> src               symlink staying inside
 *   root/ws/dangling -> ../outside/new.txt  (target does not exist yet)
 *   root/ws/deep/link-etc -> /etc
 *   root/ws/loop-a -> loop-b, loop-b -> loop-a
 *   root/ws/sub/up -> ..                 relative link back to ws
 *   root/outside/secret.txt
 *   root/ws-link -> ws                   the workspace named through a symlink
 */
let root: string;
let ws: string;
let outside: string;

beforeAll(async () => {
  ({ root, ws, outside } = await workspaceAndOutside('echo-paths-'));
  await mkdir(join(ws, 'src'), { recursive: true });
  await mkdir(join(ws, 'out'), { recursive: true });
  await mkdir(join(ws, 'deep'), { recursive: true });
  await mkdir(join(ws, 'sub'), { recursive: true });
  await writeFile(join(ws, 'src', 'a.ts'), 'x');
  await writeFile(join(outside, 'secret.txt'), 's');
  await symlink('../outside', join(ws, 'link-out'));
  await symlink('../outside/secret.txt', join(ws, 'link-file'));
  await symlink('src', join(ws, 'link-in'));
  await symlink('../outside/new.txt', join(ws, 'dangling'));
  await symlink('/etc', join(ws, 'deep', 'link-etc'));
  await symlink('loop-b', join(ws, 'loop-a'));
  await symlink('loop-a', join(ws, 'loop-b'));
  await symlink('..', join(ws, 'sub', 'up'));
  await symlink('ws', join(root, 'ws-link'));
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

const restricted = (): PathPolicy => ({ workspace: ws, restrictToWorkspace: true, safeWriteRoot: '' });
const rules = async (paths: { read?: string[]; write?: string[] }, policy: PathPolicy) =>
  (await checkPaths({ read: paths.read ?? [], write: paths.write ?? [] }, policy, systemPathFs)).map((f) => f.rule);

describe('restrict_to_workspace judges the real path', () => {
  it.each<[string, string[]]>([
    ['src/a.ts', []],
    ['./src/../src/a.ts', []],
    ['link-in/a.ts', []],
    ['new-file.txt', []],
    ['src/new/dir/file.txt', []],
    ['sub/up/src/a.ts', []],
    ['', []],
    ['.', []],
    ['link-out/secret.txt', ['path.outside_workspace']],
    ['link-out', ['path.outside_workspace']],
    ['link-file', ['path.outside_workspace']],
    ['link-out/not-yet/there.txt', ['path.outside_workspace']],
    ['dangling', ['path.outside_workspace']],
    ['deep/link-etc/passwd', ['path.outside_workspace']],
    ['../outside/secret.txt', ['path.outside_workspace']],
    ['src/../../outside/secret.txt', ['path.outside_workspace']],
    ['/etc/passwd', ['path.outside_workspace']],
    ['/tmp/../etc/shadow', ['path.secret', 'path.outside_workspace']],
    ['sub/up/../outside/secret.txt', ['path.outside_workspace']],
    ['loop-a/x', ['path.unresolvable']],
    ['/proc/self/root/etc/passwd', ['path.proc_escape']],
    ['/proc/1/root', ['path.proc_escape']],
    ['/proc/thread-self/cwd/x', ['path.proc_escape']],
    ['/proc/self/task/1/root/etc', ['path.proc_escape']],
    ['/proc/self/fd/3', ['path.proc_escape']],
    ['src/a.ts\0.png', ['path.nul_byte']],
  ])('read %j -> %j', async (p, expected) => {
    expect(await rules({ read: [p] }, restricted())).toEqual(expected);
  });

  it('an absolute path inside the workspace is fine, also when named through a symlinked workspace', async () => {
    expect(await rules({ read: [join(ws, 'src', 'a.ts')] }, restricted())).toEqual([]);
    expect(await rules({ read: ['src/a.ts', join(root, 'ws-link', 'src')] }, { ...restricted(), workspace: join(root, 'ws-link') })).toEqual([]);
    expect(await rules({ read: [join(ws, 'src')] }, { ...restricted(), workspace: join(root, 'ws-link') })).toEqual([]);
  });

  it('refuses a prefix look-alike of the workspace', async () => {
    await mkdir(`${ws}-evil`, { recursive: true });
    expect(await rules({ read: [`${ws}-evil/x`] }, restricted())).toEqual(['path.outside_workspace']);
  });

  it('applies to writes too, and says where the path really leads', async () => {
    const findings = await checkPaths({ read: [], write: ['link-out/x.txt'] }, restricted(), systemPathFs);
    expect(findings).toEqual([expect.objectContaining({ rule: 'path.outside_workspace', severity: 'deny', matched: 'link-out/x.txt' })]);
    expect(findings[0]!.reason).toContain(join(outside, 'x.txt'));
  });

  it('a symlink created inside the workspace after a first check is caught on the next', async () => {
    const p = 'later/file.txt';
    expect(await rules({ write: [p] }, restricted())).toEqual([]);
    await symlink(outside, join(ws, 'later'));
    expect(await rules({ write: [p] }, restricted())).toEqual(['path.outside_workspace']);
  });

  it('shows a NUL byte escaped, not raw', async () => {
    const [f] = await checkPaths({ read: ['a\0b'], write: [] }, restricted(), systemPathFs);
    expect(f?.matched).toBe('a\\0b');
  });
});

describe('without the workspace restriction', () => {
  const open = (safeWriteRoot = ''): PathPolicy => ({ workspace: ws, restrictToWorkspace: false, safeWriteRoot });

  it('reads and writes anywhere', async () => {
    expect(await rules({ read: ['/etc/hostname', 'link-out/secret.txt'], write: ['/tmp/x', 'link-out/y'] }, open())).toEqual([]);
  });

  it('still refuses NUL bytes and /proc magic links', async () => {
    expect(await rules({ read: ['/etc/passwd\0'], write: ['/proc/self/root/tmp/x'] }, open())).toEqual(['path.nul_byte', 'path.proc_escape']);
  });

  it.each<[string, string[]]>([
    ['out/report.txt', []],
    ['out/new/dir/report.txt', []],
    ['src/a.ts', ['path.outside_safe_write_root']],
    ['out/../src/a.ts', ['path.outside_safe_write_root']],
    ['link-out/x', ['path.outside_safe_write_root']],
    ['/tmp/x', ['path.outside_safe_write_root']],
  ])('safe_write_root confines write %j -> %j', async (p, expected) => {
    expect(await rules({ write: [p] }, open('out'))).toEqual(expected);
  });

  it('safe_write_root does not confine reads', async () => {
    expect(await rules({ read: ['/etc/hostname', 'src/a.ts'] }, open('out'))).toEqual([]);
  });

  it('a symlink inside the safe write root pointing out is refused', async () => {
    await symlink('../../outside', join(ws, 'out', 'escape'));
    expect(await rules({ write: ['out/escape/x.txt'] }, open('out'))).toEqual(['path.outside_safe_write_root']);
    expect(await rules({ write: ['out/escape/x.txt'] }, { ...open('out'), restrictToWorkspace: true })).toEqual([
      'path.outside_workspace',
      'path.outside_safe_write_root',
    ]);
  });

  it('an absolute safe_write_root works as well', async () => {
    expect(await rules({ write: [join(outside, 'ok.txt'), 'src/a.ts'] }, open(outside))).toEqual(['path.outside_safe_write_root']);
  });
});

describe('writesInside (unattended allow_safe)', () => {
  it.each<[string[], boolean]>([
    [['src/a.ts', 'new.txt', 'out/new/r.txt', 'link-in/b.ts'], true],
    [[], true],
    [['link-out/x'], false],
    [['dangling'], false],
    [['../x'], false],
    [['/etc/cron.d/job'], false],
    [['x\0y'], false],
    [['/proc/self/cwd/x'], false],
    [['src/a.ts', 'link-file'], false],
  ])('%j -> %s', async (paths, expected) => {
    expect(await writesInside(paths, ws, systemPathFs)).toBe(expected);
  });

  it('accepts absolute paths inside and a root named through a symlink', async () => {
    expect(await writesInside([join(ws, 'out', 'r.txt')], join(root, 'ws-link'), systemPathFs)).toBe(true);
    expect(await writesInside([join(outside, 'r.txt')], join(root, 'ws-link'), systemPathFs)).toBe(false);
  });
});

describe('realPathOf', () => {
  it('follows a symlink before applying .. like the kernel does', async () => {
    // deep/link-etc -> /etc, so deep/link-etc/../x is /x, not deep/x
    expect(await realPathOf(`${ws}/deep/link-etc/../x`, systemPathFs)).toBe('/x');
  });

  it('appends the missing tail to the deepest existing ancestor', async () => {
    expect(await realPathOf(`${ws}/link-out/a/b/c.txt`, systemPathFs)).toBe(join(outside, 'a', 'b', 'c.txt'));
  });

  it('uses only the injected file system', async () => {
    const fs = {
      realpath: async (p: string) => {
        if (p === '/' || p === '/v') return p;
        if (p === '/v/l') return '/target';
        throw Object.assign(new Error('nope'), { code: 'ENOENT' });
      },
      readlink: async () => {
        throw Object.assign(new Error('not a link'), { code: 'EINVAL' });
      },
    };
    expect(await realPathOf('/v/l/x/y', fs)).toBe('/target/x/y');
    expect(await checkPaths({ read: ['l/x'], write: [] }, { workspace: '/v', restrictToWorkspace: true, safeWriteRoot: '' }, fs)).toEqual([
      expect.objectContaining({ rule: 'path.outside_workspace' }),
    ]);
  });
});

describe('forbidden roots (the embedded database files)', () => {
  it('are judged by their real paths: a root named through a symlink still covers what it points at, however a path reaches it', async () => {
    // the forbidden root is named as ws/link-out, which leads to root/outside
    const policy: PathPolicy = { workspace: ws, restrictToWorkspace: false, safeWriteRoot: '', forbiddenRoots: resolveRoots([join(ws, 'link-out')], systemPathFs, monotonicMs) };
    expect(await rules({ read: [join(outside, 'secret.txt')] }, policy)).toEqual(['path.daemon_state']);
    expect(await rules({ write: ['link-file'] }, policy)).toEqual(['path.daemon_state']);
    expect(await rules({ read: ['src/a.ts'] }, policy)).toEqual([]);
  });

  it('one that does not exist yet is taken as written, and found once it exists', async () => {
    const later = join(root, 'later');
    const roots = resolveRoots([later], systemPathFs, monotonicMs, 0);
    expect(await roots()).toEqual([later]);
    await mkdir(later);
    expect(await roots()).toEqual([await realPathOf(later, systemPathFs)]);
  });
});
