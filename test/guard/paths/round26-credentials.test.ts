import { rm } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkPaths, type PathPolicy } from '../../../src/guard/paths/index.ts';
import { systemPathFs } from '../../../src/util/system-ports.ts';
import { checkCommand } from '../../../src/guard/shell/index.ts';
import { workspaceAndOutside } from '../../support/workspace.ts';

/*
 * Guard round 26: credential files added to the shared tables (shell/path-tables.ts) behave alike in the shell and the
 * file tools: settings files holding a login ask (shell.credential.read / path.credential_read), files holding nothing but
 * keys are refused (shell.secret.read / path.secret), and a tree above them is refused whole (path.secret_tree).
 */
let root: string;
let ws: string;

beforeAll(async () => {
  ({ root, ws } = await workspaceAndOutside('echo-round26-credentials-'));
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

const open = (): PathPolicy => ({ workspace: ws, restrictToWorkspace: false, safeWriteRoot: '' });
const judge = async (kind: 'read' | 'tree', path: string) =>
  (await checkPaths({ read: kind === 'read' ? [path] : [], write: [], tree: kind === 'tree' ? [path] : [] }, open(), systemPathFs)).map((f) => f.rule);

describe('settings files holding a login: asked by the shell and the file tools alike', () => {
  it.each(['/root/.my.cnf', '/home/bob/.my.cnf', '/home/bob/.m2/settings.xml', '/root/.m2/settings.xml'])('%s', async (path) => {
    const shell = await checkCommand(`cat ${path}`);
    expect(shell.decision).toBe('ask');
    expect(shell.findings.map((f) => f.rule)).toContain('shell.credential.read');
    expect(await judge('read', path)).toEqual(['path.credential_read']);
  });

  it.each(['settings.xml', 'src/main/resources/settings.xml', '/home/bob/project/my.cnf.example'])('%s is no login file', async (path) => {
    expect((await checkCommand(`cat ${path}`)).decision).toBe('allow');
    expect(await judge('read', path)).toEqual([]);
  });
});

describe('keytabs, rclone remotes and a control plane\'s kubeconfigs and keys: refused by both', () => {
  it.each([
    '/etc/krb5.keytab', '/home/bob/svc.keytab', 'deploy/http.keytab', '/root/.config/rclone/rclone.conf', '/etc/kubernetes/admin.conf',
    '/etc/kubernetes/super-admin.conf', '/etc/kubernetes/kubelet.conf', '/etc/kubernetes/pki/ca.key', '/etc/kubernetes/pki/sa.key', '/etc/rancher/k3s/k3s.yaml',
  ])('%s', async (path) => {
    const shell = await checkCommand(`cat ${path}`);
    expect(shell.decision).toBe('deny');
    expect(shell.findings.map((f) => f.rule)).toContain('shell.secret.read');
    expect(await judge('read', path)).toEqual(['path.secret']);
  });

  it.each(['/etc/kubernetes', '/etc/kubernetes/pki', '/root/.config/rclone'])('tree %s holds one', async (path) => {
    expect((await judge('tree', path)).some((r) => r === 'path.secret_tree' || r === 'path.secret')).toBe(true);
    expect((await checkCommand(`tar czf /tmp/x.tgz ${path}`)).findings.map((f) => f.rule)).toContain('shell.secret.read');
  });

  it.each(['/etc/kubernetes/manifests/kube-apiserver.yaml', '/etc/krb5.conf', 'docs/keytab.md'])('%s is none', async (path) => {
    expect((await checkCommand(`cat ${path}`)).decision).toBe('allow');
    expect(await judge('read', path)).toEqual([]);
  });
});
