import { mkdir, rm, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkPaths, PATH_RULES, type PathPolicy } from '../../../src/guard/paths/index.ts';
import { systemPathFs } from '../../../src/util/system-ports.ts';
import { checkCommand } from '../../../src/guard/shell/index.ts';
import { workspaceAndOutside } from '../../support/workspace.ts';

/*
 * The shell guard's secret paths (shell/path-tables.ts) applied to the paths file tools read and write.
 * Layout (real files in a temp dir):
 *   ws/src/a.ts
 *   ws/keys/.ssh/id_ed25519          a private key, by name
 *   ws/proj/.aws/credentials         a credential store, by name
 *   ws/link-shadow -> /etc/shadow    a symlink: judged by where it leads
 *   ws/link-keys -> /root/.ssh
 *   ws/link-etc -> /etc
 */
let root: string;
let ws: string;

beforeAll(async () => {
  ({ root, ws } = await workspaceAndOutside('echo-secret-paths-'));
  await mkdir(join(ws, 'src'), { recursive: true });
  await mkdir(join(ws, 'keys', '.ssh'), { recursive: true });
  await mkdir(join(ws, 'proj', '.aws'), { recursive: true });
  await writeFile(join(ws, 'src', 'a.ts'), 'x');
  await writeFile(join(ws, 'keys', '.ssh', 'id_ed25519'), 'k');
  await writeFile(join(ws, 'proj', '.aws', 'credentials'), 'c');
  await symlink('/etc/shadow', join(ws, 'link-shadow'));
  await symlink('/root/.ssh', join(ws, 'link-keys'));
  await symlink('/etc', join(ws, 'link-etc'));
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

const open = (): PathPolicy => ({ workspace: ws, restrictToWorkspace: false, safeWriteRoot: '' });
const restricted = (): PathPolicy => ({ ...open(), restrictToWorkspace: true });
type Kind = 'read' | 'write' | 'tree';
const judge = async (kind: Kind, path: string, policy = open()) =>
  (await checkPaths({ read: kind === 'read' ? [path] : [], write: kind === 'write' ? [path] : [], tree: kind === 'tree' ? [path] : [] }, policy, systemPathFs)).map((f) => f.rule);

describe('file tools: the shell guard\'s secret paths are refused whatever the workspace policy', () => {
  it.each<[Kind, string, string[]]>([
    // the secrets themselves, and anything in root's key directory
    ['read', '/etc/shadow', ['path.secret']],
    ['read', '/etc/gshadow', ['path.secret']],
    ['read', '/tmp/../etc/./shadow', ['path.secret']],
    ['read', '/root/.ssh', ['path.secret']],
    ['read', '/root/.ssh/id_rsa', ['path.secret']],
    ['read', '/root/.ssh/authorized_keys', ['path.secret']],
    ['read', '/home/alice/.ssh/id_ed25519', ['path.secret']],
    ['read', '/root/.aws/credentials', ['path.secret']],
    ['read', '/home/alice/.git-credentials', ['path.secret']],
    // a model's `~` is not expanded by the tools, but the name alone is enough
    ['read', '~/.aws/credentials', ['path.secret']],
    ['read', '~/.ssh/id_rsa', ['path.secret']],
    ['read', 'keys/.ssh/id_ed25519', ['path.secret']],
    ['read', 'proj/.aws/credentials', ['path.secret']],
    // symlinks are judged by where they lead
    ['read', 'link-shadow', ['path.secret']],
    ['read', 'link-keys/id_rsa', ['path.secret']],
    ['read', 'link-etc/shadow', ['path.secret']],
    // writes too: planting a key or rewriting the password file
    ['write', '/root/.ssh/authorized_keys', ['path.secret']],
    ['write', '/etc/shadow', ['path.secret']],
    ['write', 'link-shadow', ['path.secret']],
    // a tool reading the whole tree below a directory that holds a secret
    ['tree', '/', ['path.secret_tree']],
    ['tree', '/etc', ['path.secret_tree']],
    ['tree', '/root', ['path.secret_tree']],
    ['tree', '/home', ['path.secret_tree']],
    ['tree', '/home/alice', ['path.secret_tree']],
    ['tree', 'keys/.ssh', ['path.secret_tree']],
    ['tree', 'proj/.aws', ['path.secret_tree']],
    ['tree', 'link-etc', ['path.secret_tree']],
    ['tree', '/root/.ssh', ['path.secret']],
    ['tree', '/root/.gnupg/private-keys-v1.d', ['path.secret_tree']],
    ['tree', '/home/alice/.kube', ['path.secret_tree']],
    ['tree', '/etc/ssl', ['path.secret_tree']],
    // what is not a secret
    ['read', '/etc/hostname', []],
    ['read', '/etc/passwd', []],
    ['read', '/home/alice/.ssh/id_rsa.pub', []],
    ['read', '/home/alice/.ssh/config', []],
    ['read', '/home/alice/.aws/config', []],
    ['read', '/etc', []],
    ['read', '/root', []],
    ['read', 'src/a.ts', []],
    ['write', 'out.txt', []],
    ['write', '/tmp/report.txt', []],
    ['tree', 'src', []],
    ['tree', '.', []],
    ['tree', '/etc/nginx', []],
    ['tree', '/tmp', []],
  ])('%s %j -> %j', async (kind, path, expected) => {
    expect(await judge(kind, path)).toEqual(expected);
  });

  it('adds to the workspace restriction, which still reports where the path leads', async () => {
    expect(await judge('read', '/etc/shadow', restricted())).toEqual(['path.secret', 'path.outside_workspace']);
    expect(await judge('tree', '/etc', restricted())).toEqual(['path.secret_tree', 'path.outside_workspace']);
    expect(await judge('read', 'keys/.ssh/id_ed25519', restricted())).toEqual(['path.secret']);
  });

  it('says which rule and where, with a reason a person can read', async () => {
    const [f] = await checkPaths({ read: ['link-shadow'], write: [] }, open(), systemPathFs);
    expect(f).toEqual({ rule: 'path.secret', severity: 'deny', matched: 'link-shadow', reason: expect.stringContaining(PATH_RULES['path.secret']) });
    expect(f!.reason).toContain('/etc/shadow');
  });
});

describe('one table for both guards: a secret `cat` refuses is refused to read_file, a tree `tar` refuses to search_files', () => {
  it.each<[string, boolean]>([
    ['/etc/shadow', true], ['/etc/gshadow-', true], ['/etc/security/opasswd', true], ['/root/.ssh/authorized_keys', true], ['/home/bob/.ssh/id_ecdsa', true],
    ['/root/.aws/credentials', true], ['/home/bob/.git-credentials', true], ['/var/lib/postgresql/.pgpass', true],
    // registry logins, cluster and CLI credentials, GnuPG and TLS private keys, the unit's EnvironmentFile
    ['/root/.kube/config', true], ['/home/bob/.docker/config.json', true], ['/root/.config/containers/auth.json', true],
    ['/root/.config/gh/hosts.yml', true], ['/root/.config/gcloud/credentials.db', true], ['/root/.config/gcloud/application_default_credentials.json', true],
    ['/home/bob/.azure/msal_token_cache.json', true], ['/root/.vault-token', true], ['/root/.cargo/credentials.toml', true],
    ['/root/.gnupg/private-keys-v1.d/0123ABCD.key', true], ['/root/.gnupg/secring.gpg', true],
    ['/etc/ssl/private/server.key', true], ['/etc/echo-agent/env', true],
    ['/etc/hostname', false], ['/home/bob/.ssh/id_ecdsa.pub', false], ['/home/bob/.ssh/known_hosts', false],
    ['/root/.config/gh/config.yml', false], ['/root/.gnupg/pubring.kbx', false], ['/etc/ssl/certs/ca-certificates.crt', false], ['/etc/echo-agent/echo-agent.yaml', false],
  ])('%s (secret: %s)', async (path, secret) => {
    const shell = await checkCommand(`cat ${path}`);
    expect(shell.findings.some((f) => f.rule === 'shell.secret.read')).toBe(secret);
    expect(await judge('read', path)).toEqual(secret ? ['path.secret'] : []);
  });

  it.each<[string, boolean]>([
    ['/', true], ['/etc', true], ['/root', true], ['/home', true], ['/home/bob', true], ['/home/bob/.ssh', true], ['/home/bob/.aws', true],
    ['/etc/nginx', false], ['/home/bob/project', false], ['/var/log', false], ['/tmp', false],
  ])('tree %s (holds a secret: %s)', async (path, holds) => {
    const shell = await checkCommand(`tar czf /tmp/x.tgz ${path}`);
    expect(shell.findings.some((f) => f.rule === 'shell.secret.read')).toBe(holds);
    expect((await judge('tree', path)).some((r) => r === 'path.secret_tree' || r === 'path.secret')).toBe(holds);
  });
});
