/**
 * path.proc_escape (SPEC §6 "Workspace"): /dev/fd/N and /dev/stdin|stdout|stderr are /proc/self/fd magic links
 * too. A file tool opens them in the daemon's own process, where they reach what it holds open, a deleted file
 * included; so does any symlink whose walk passes through /proc/<pid>/fd, though realpath shows only its end.
 */
import { closeSync, mkdirSync, mkdtempSync, openSync, realpathSync, rmSync, symlinkSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { defaultConfig } from '../../../src/config/schema.ts';
import { createGuard } from '../../../src/guard/index.ts';
import { systemGuardDeps } from '../../../src/util/system-ports.ts';
import { checkPaths, type PathPolicy } from '../../../src/guard/paths/index.ts';
import { systemPathFs } from '../../../src/util/system-ports.ts';
import { checkCommand } from '../../../src/guard/shell/index.ts';
import { buildContext } from '../../../src/tools/context.ts';

const root = realpathSync(mkdtempSync(join(tmpdir(), 'echo-dev-fd-')));
const ws = join(root, 'ws');
mkdirSync(join(ws, 'src'), { recursive: true });
writeFileSync(join(ws, 'src', 'a.ts'), 'x');
// a file this process holds open after it was unlinked: its name no longer resolves, the descriptor still reads it
writeFileSync(join(root, 'deleted'), 'DELETED-BUT-OPEN\n');
const fd = openSync(join(root, 'deleted'), 'r');
unlinkSync(join(root, 'deleted'));
symlinkSync(`/dev/fd/${fd}`, join(ws, 'via-dev'));
symlinkSync('/proc/self/fd', join(ws, 'fds'));
symlinkSync('/proc/self', join(ws, 'me'));
symlinkSync('/dev', join(ws, 'dev'));
symlinkSync('fds', join(ws, 'fds-again'));
symlinkSync('src/a.ts', join(ws, 'plain-link'));
afterAll(() => {
  closeSync(fd);
  rmSync(root, { recursive: true, force: true });
});

const open = (): PathPolicy => ({ workspace: ws, restrictToWorkspace: false, safeWriteRoot: '' });
const rules = async (read: string[], write: string[] = []) => (await checkPaths({ read, write }, open(), systemPathFs)).map((f) => f.rule);

describe('file tools: /dev/fd and the standard streams are /proc magic links', () => {
  it.each([
    `/dev/fd/${fd}`, '/dev/fd', '/dev/fd/', '/dev/stdin', '/dev/stdout', '/dev/stderr', '/dev/./fd/0', '/dev/../dev/stdin',
    // a symlink on the way: the walk passes through /proc/<pid>/fd though realpath ends at the (deleted) file
    'via-dev', 'fds/' + fd, 'me/fd/' + fd, 'dev/fd/' + fd, 'dev/stdin', 'fds-again/' + fd, `${ws}/via-dev`,
  ])('refuses %s as path.proc_escape', async (p) => {
    expect(await rules([p])).toEqual(['path.proc_escape']);
  });

  it('refuses writes through them too', async () => {
    expect(await rules([], ['/dev/stdout', 'dev/stderr'])).toEqual(['path.proc_escape', 'path.proc_escape']);
  });

  it.each(['src/a.ts', 'plain-link', '/dev/null', '/dev/urandom', 'dev/null', '/proc/self/status', '/proc/cpuinfo'])('leaves %s alone', async (p) => {
    expect(await rules([p])).toEqual([]);
  });

  it('the gate refuses read_file of /dev/fd/N for a deleted-but-open file (the red-team reproduction)', async () => {
    const guard = createGuard(defaultConfig({ tools: { workspace: ws } }), systemGuardDeps({ dns: false }));
    const ctx = buildContext({ channel: 'cli', user_id: 'alice', session_key: 'cli:alice' });
    for (const path of [`/dev/fd/${fd}`, 'via-dev', '/dev/stdin']) {
      const v = await guard.inspect({ tool: 'read_file', args: { path } }, ctx);
      expect(v.decision, path).toBe('deny');
      expect(v.findings.map((f) => f.rule), path).toContain('path.proc_escape');
    }
  });
});

describe('the shell: a command\'s own descriptors are its own', () => {
  // the exec tool's shell is a process of its own: /dev/fd names its descriptors (stdio pipes, `<(…)`), not the daemon's
  it.each(['cat /dev/stdin', 'cat /dev/fd/3', 'diff <(ls a) <(ls b)', 'tee /dev/stderr < x', 'echo hi > /dev/stdout'])('allows %s', async (c) => {
    expect((await checkCommand(c)).decision).toBe('allow');
  });
});
