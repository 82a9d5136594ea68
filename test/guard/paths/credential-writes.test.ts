import { mkdir, rm, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkPaths, type PathPolicy } from '../../../src/guard/paths/index.ts';
import { systemPathFs } from '../../../src/util/system-ports.ts';
import { CREDENTIAL_BASENAMES, CREDENTIAL_STORES } from '../../../src/guard/shell/path-tables.ts';
import { workspaceAndOutside } from '../../support/workspace.ts';

let root: string;
let ws: string;

beforeAll(async () => {
  ({ root, ws } = await workspaceAndOutside('echo-credwrite-'));
  await mkdir(join(ws, 'repo', '.git', 'hooks'), { recursive: true });
  await writeFile(join(ws, 'notes.txt'), 'x');
  // an innocent name for a start-up file
  await symlink('.bashrc', join(ws, 'settings.txt'));
  await symlink('repo/.git', join(ws, 'gitdir'));
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

const policy = (): PathPolicy => ({ workspace: ws, restrictToWorkspace: true, safeWriteRoot: '' });
const findings = async (paths: { read?: string[]; write?: string[] }) => checkPaths({ read: paths.read ?? [], write: paths.write ?? [] }, policy(), systemPathFs);

/** Files that hold nothing but credentials: refused outright (path.secret), read or written. */
const STORES = new Set(CREDENTIAL_STORES.map((s) => s.split('/').pop()!));

/** Files whose content later runs as code or hands out credentials (the shell guard's shell.credential.write table). */
const PLANTED: readonly string[] = [
  ...[...CREDENTIAL_BASENAMES].filter((name) => !STORES.has(name)),
  '.git/config', 'repo/.git/config', 'repo/.git/hooks/pre-commit', '.git/hooks/post-checkout', '.gitconfig', '.config/git/config',
  '.ssh/authorized_keys', '.config/fish/config.fish',
];

describe('a file tool writing a credential or start-up file asks a person (path.credential_write)', () => {
  it.each(PLANTED)('writing %s is flagged, not refused: a person decides', async (path) => {
    const out = await findings({ write: [path] });
    expect(out).toEqual([expect.objectContaining({ rule: 'path.credential_write', severity: 'ask' })]);
  });

  it.each(PLANTED)('reading %s is not flagged by this rule', async (path) => {
    expect((await findings({ read: [path] })).map((f) => f.rule)).not.toContain('path.credential_write');
  });

  it.each(CREDENTIAL_STORES)('a credential store (%s) stays refused outright when written', async (path) => {
    expect((await findings({ write: [path] })).map((f) => f.rule)).toEqual(['path.secret']);
  });

  it('by where a symlink leads, too: an innocent name for ~/.bashrc or a repository\'s .git', async () => {
    const out = await findings({ write: ['settings.txt', 'gitdir/config', 'gitdir/hooks/pre-push'] });
    expect(out.map((f) => f.rule)).toEqual(['path.credential_write', 'path.credential_write', 'path.credential_write']);
    expect(out[0]!.reason).toContain('.bashrc');
  });

  it.each(['notes.txt', 'src/config', 'repo/README.md', 'repo/.github/workflows/ci.yml', 'repo/.gitignore', 'hooks/pre-commit'])('an ordinary file is not flagged: %s', async (path) => {
    expect(await findings({ write: [path] })).toEqual([]);
  });
});
