import { access, mkdir, readFile, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { defaultConfig, type ConfigInput } from '../../src/config/schema.ts';
import { patchPaths, patchTool } from '../../src/tools/catalog/patch.ts';
import { buildContext } from '../../src/tools/context.ts';
import { MemoryEffectLedger } from '../../src/tools/effects.ts';
import { executeTool } from '../../src/tools/executor.ts';
import type { ToolResult } from '../../src/tools/types.ts';
import { workspaceAndOutside } from '../support/workspace.ts';

let root: string;
let ws: string;
let outside: string;

const ALPHA = 'a1\na2\na3\na4\na5\na6\na7\na8\na9\na10\n';
const BETA = 'b1\nb2\nb3\n';

beforeEach(async () => {
  ({ root, ws, outside } = await workspaceAndOutside('echo-patch-'));
  await mkdir(join(ws, 'src'));
  await writeFile(join(ws, 'src', 'alpha.txt'), ALPHA);
  await writeFile(join(ws, 'beta.txt'), BETA);
  await writeFile(join(ws, 'old.txt'), 'gone1\ngone2\n');
  await writeFile(join(outside, 'victim.txt'), 'v1\n');
  await symlink('../outside', join(ws, 'out-link'));
});
afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

const config = (tools: NonNullable<ConfigInput['tools']> = {}) => defaultConfig({ tools: { workspace: ws, restrict_to_workspace: true, ...tools } });
const run = (params: Record<string, unknown>, tools: NonNullable<ConfigInput['tools']> = {}) =>
  executeTool(patchTool(config(tools)), params, buildContext({ tool: 'patch', params }));
const out = <T = Record<string, unknown>>(r: ToolResult) => {
  expect(r.error).toBeUndefined();
  return r.output as T;
};
const text = (rel: string) => readFile(join(ws, rel), 'utf8');
const exists = (p: string) => access(p).then(() => true, () => false);
/** Every file the tests start with, as it is now. */
const snapshot = async () => ({ alpha: await text('src/alpha.txt'), beta: await text('beta.txt'), old: await text('old.txt') });
const untouched = { alpha: ALPHA, beta: BETA, old: 'gone1\ngone2\n' };

const alphaTwoHunks = (secondContext = 'a8') => [
  '--- a/src/alpha.txt',
  '+++ b/src/alpha.txt',
  '@@ -1,3 +1,3 @@',
  ' a1',
  '-a2',
  '+A2',
  ' a3',
  '@@ -7,3 +7,4 @@',
  ' a7',
  ` ${secondContext}`,
  '+inserted',
  ' a9',
].join('\n');
const betaHunk = ['--- a/beta.txt', '+++ b/beta.txt', '@@ -1,3 +1,3 @@', ' b1', '-b2', '+B2', ' b3'].join('\n');
const create = ['--- /dev/null', '+++ b/docs/new.md', '@@ -0,0 +1,2 @@', '+# New', '+text'].join('\n');
const remove = ['--- a/old.txt', '+++ /dev/null', '@@ -1,2 +0,0 @@', '-gone1', '-gone2'].join('\n');
const diff = (...parts: string[]) => `${parts.join('\n')}\n`;

describe('patch', () => {
  it('applies a multi-file diff: modifies, creates and deletes', async () => {
    const r = out(await run({ diff: diff(alphaTwoHunks(), betaHunk, create, remove) }));
    expect(r).toEqual({
      root: '.',
      files: [
        { path: 'src/alpha.txt', action: 'modified', hunks: 2 },
        { path: 'beta.txt', action: 'modified', hunks: 1 },
        { path: 'docs/new.md', action: 'created', hunks: 1 },
        { path: 'old.txt', action: 'deleted', hunks: 1 },
      ],
    });
    expect(await text('src/alpha.txt')).toBe('a1\nA2\na3\na4\na5\na6\na7\na8\ninserted\na9\na10\n');
    expect(await text('beta.txt')).toBe('b1\nB2\nb3\n');
    expect(await text('docs/new.md')).toBe('# New\ntext\n');
    expect(await exists(join(ws, 'old.txt'))).toBe(false);
  });

  it('takes paths relative to root, and git headers without a/ b/ confusion', async () => {
    const gitDiff = diff('diff --git a/alpha.txt b/alpha.txt', 'index 1234567..89abcde 100644', alphaTwoHunks().replace(/src\//g, ''));
    expect(out(await run({ diff: gitDiff, root: 'src' }))).toMatchObject({ root: 'src', files: [{ path: 'alpha.txt', action: 'modified' }] });
    expect(await text('src/alpha.txt')).toContain('A2');
  });

  it('creates an empty file and deletes a file from git headers without hunks', async () => {
    await writeFile(join(ws, 'empty.txt'), '');
    const gitDiff = diff(
      'diff --git a/new-empty.txt b/new-empty.txt', 'new file mode 100644', 'index 0000000..e69de29',
      'diff --git a/empty.txt b/empty.txt', 'deleted file mode 100644', 'index e69de29..0000000',
    );
    expect(out(await run({ diff: gitDiff }))).toMatchObject({ files: [{ path: 'new-empty.txt', action: 'created', hunks: 0 }, { path: 'empty.txt', action: 'deleted', hunks: 0 }] });
    expect(await text('new-empty.txt')).toBe('');
    expect(await exists(join(ws, 'empty.txt'))).toBe(false);
  });

  it('applies an LF diff to a CRLF file in its own line ends', async () => {
    await writeFile(join(ws, 'beta.txt'), 'b1\r\nb2\r\nb3\r\n');
    out(await run({ diff: diff(betaHunk) }));
    expect(await text('beta.txt')).toBe('b1\r\nB2\r\nb3\r\n');
  });

  it('keeps the permission bits of a file it modifies', async () => {
    const { chmod } = await import('node:fs/promises');
    await chmod(join(ws, 'beta.txt'), 0o755);
    out(await run({ diff: diff(betaHunk) }));
    expect((await stat(join(ws, 'beta.txt'))).mode & 0o777).toBe(0o755);
  });

  it('writes nothing when a later hunk fails, naming the file and the hunk', async () => {
    const r = await run({ diff: diff(betaHunk, create, alphaTwoHunks('not-in-file'), remove) });
    expect(r).toMatchObject({ success: false, errorKind: 'business' });
    expect(r.error).toContain('hunk 2 of 2 (@@ -7,3 +7,4 @@) does not apply to src/alpha.txt');
    expect(r.error).toContain('nothing was written');
    expect(await snapshot()).toEqual(untouched);
    expect(await exists(join(ws, 'docs'))).toBe(false);
  });

  it.each([
    ['a created file that exists', diff(betaHunk, ['--- /dev/null', '+++ b/old.txt', '@@ -0,0 +1 @@', '+x'].join('\n')), 'old.txt already exists, but the diff creates it'],
    ['a modified file that is missing', diff(betaHunk, ['--- a/nope.txt', '+++ b/nope.txt', '@@ -1 +1 @@', '-x', '+y'].join('\n')), 'nope.txt does not exist'],
    ['a deletion that leaves content', diff(betaHunk, ['--- a/old.txt', '+++ /dev/null', '@@ -1 +0,0 @@', '-gone1'].join('\n')), 'old.txt: the diff deletes the file but does not remove all of its content'],
    ['a first hunk that fails', diff(['--- a/beta.txt', '+++ b/beta.txt', '@@ -1,2 +1,2 @@', ' zz', '-b2', '+B2'].join('\n'), remove), 'hunk 1 of 1 (@@ -1,2 +1,2 @@) does not apply to beta.txt'],
  ])('refuses %s and writes nothing', async (_case, d, message) => {
    const r = await run({ diff: d });
    expect(r).toMatchObject({ success: false, errorKind: 'business' });
    expect(r.error).toContain(message);
    expect(await snapshot()).toEqual(untouched);
  });

  it.each([
    ['line counts that do not match the header', diff('--- a/beta.txt', '+++ b/beta.txt', '@@ -1,3 +1,3 @@', ' b1', '-b2', '+B2'), 'diff: malformed unified diff'],
    ['hunks without file headers', diff('@@ -1,3 +1,3 @@', ' b1', '-b2', '+B2', ' b3'), 'cannot tell which file they change'],
    ['old and new names that differ', diff(betaHunk.replace('+++ b/beta.txt', '+++ b/gamma.txt')), 'the old and new file names differ'],
    ['the same file twice', diff(betaHunk, betaHunk), 'beta.txt appears in more than one section'],
    ['an absolute path', diff(betaHunk.replace(/[ab]\/beta\.txt/g, '/tmp/beta.txt')), '/tmp/beta.txt: file names must be relative to root and stay inside it'],
    ['a path climbing out of root', diff(betaHunk.replace(/beta\.txt/g, '../outside/victim.txt')), '../outside/victim.txt: file names must be relative to root'],
    ['a binary patch', diff('diff --git a/logo.png b/logo.png', 'index 1..2 100644', 'Binary files a/logo.png and b/logo.png differ'), 'binary patches are not supported'],
    ['a rename', diff('diff --git a/beta.txt b/gamma.txt', 'similarity index 100%', 'rename from beta.txt', 'rename to gamma.txt'), 'renames and copies are not supported'],
    ['prose and no changes', 'Please apply this to the file.\n', 'contains no file changes'],
  ])('refuses %s with a validation error naming diff', async (_case, d, message) => {
    const r = await run({ diff: d });
    expect(r).toMatchObject({ success: false, errorKind: 'validation' });
    expect(r.error).toMatch(/^diff: /);
    expect(r.error).toContain(message);
    expect(await snapshot()).toEqual(untouched);
    expect(await text('../outside/victim.txt')).toBe('v1\n');
  });

  it('restores the files already written when a later write fails', async () => {
    await writeFile(join(ws, 'blocker'), 'a regular file where a directory is needed\n');
    const underFile = ['--- /dev/null', '+++ b/blocker/child.txt', '@@ -0,0 +1 @@', '+x'].join('\n');
    const r = await run({ diff: diff(betaHunk, remove, create, underFile) });
    expect(r).toMatchObject({ success: false, errorKind: 'internal' });
    expect(r.error).toMatch(/writing blocker\/child\.txt failed \((EEXIST|ENOTDIR)\)/);
    expect(r.error).toContain('restored; nothing changed');
    expect(await snapshot()).toEqual(untouched);
    expect(await exists(join(ws, 'docs', 'new.md'))).toBe(false);
  });

  it.each([
    [{}, 'diff: is required'],
    [{ diff: '' }, 'diff: must NOT have fewer than 1 characters'],
    [{ diff: betaHunk, root: 3 }, 'root: must be string'],
    [{ diff: betaHunk, strip: 1 }, 'strip: is not a known parameter'],
  ])('refuses bad arguments %j naming the field', async (params, message) => {
    const r = await run(params);
    expect(r.errorKind).toBe('validation');
    expect(r.error).toContain(message);
  });

  it('refuses a root that is not a directory', async () => {
    expect(await run({ diff: diff(betaHunk), root: 'beta.txt' })).toMatchObject({ success: false, errorKind: 'business', error: 'patch: root: beta.txt is not a directory' });
  });
});

describe('patch under the workspace policy', () => {
  const victim = ['--- a/victim.txt', '+++ b/victim.txt', '@@ -1 +1 @@', '-v1', '+pwned'].join('\n');

  it.each([
    ['a file behind a symlink pointing outside', { diff: diff(betaHunk, victim.replace(/victim/g, 'out-link/victim')) }],
    ['a root outside the workspace', { diff: diff(victim), root: '../outside' }],
    ['a root that is a symlink pointing outside', { diff: diff(victim), root: 'out-link' }],
  ])('refuses %s when restrict_to_workspace is on, writing nothing', async (_case, params) => {
    const r = await run(params);
    expect(r).toMatchObject({ success: false, errorKind: 'denied' });
    expect(r.error).toContain('outside the workspace');
    expect(await text('../outside/victim.txt')).toBe('v1\n');
    expect(await text('beta.txt')).toBe(BETA);
  });

  it('refuses a file outside safe_write_root even with the workspace restriction off', async () => {
    await mkdir(join(ws, 'scratch'));
    const r = await run({ diff: diff(betaHunk) }, { restrict_to_workspace: false, safe_write_root: 'scratch' });
    expect(r).toMatchObject({ success: false, errorKind: 'denied' });
    expect(r.error).toContain('outside tools.safe_write_root');
    expect(await text('beta.txt')).toBe(BETA);
    const inside = ['--- /dev/null', '+++ b/scratch/ok.txt', '@@ -0,0 +1 @@', '+ok'].join('\n');
    out(await run({ diff: diff(inside) }, { restrict_to_workspace: false, safe_write_root: 'scratch' }));
    expect(await text('scratch/ok.txt')).toBe('ok\n');
  });

  it('follows a symlink outside when restrict_to_workspace is off', async () => {
    out(await run({ diff: diff(victim.replace(/victim/g, 'out-link/victim')) }, { restrict_to_workspace: false }));
    expect(await text('../outside/victim.txt')).toBe('pwned\n');
  });
});

describe('patch and replays', () => {
  const params = () => ({ diff: diff(alphaTwoHunks(), create, remove) });
  const ctx = (is_replay: boolean) => buildContext({ trace_id: 'trace-patch', tool: 'patch', call_index: 0, params: params(), is_replay });

  it('applies once across a call and its replay through the effect ledger', async () => {
    const ledger = new MemoryEffectLedger();
    const tool = patchTool(config());
    const first = await executeTool(tool, params(), ctx(false), { ledger });
    expect(first.success).toBe(true);
    await writeFile(join(ws, 'docs', 'new.md'), 'edited by someone after the patch\n');
    const replay = await executeTool(tool, params(), ctx(true), { ledger });
    expect(replay).toEqual(first);
    expect(await text('src/alpha.txt')).toBe('a1\nA2\na3\na4\na5\na6\na7\na8\ninserted\na9\na10\n');
    expect(await text('docs/new.md')).toBe('edited by someone after the patch\n');
  });

  it('finds the changes already made on a replay the ledger has no record of', async () => {
    const tool = patchTool(config());
    out(await executeTool(tool, params(), ctx(false)));
    const replay = out<{ files: unknown[] }>(await executeTool(tool, params(), ctx(true), { ledger: new MemoryEffectLedger() }));
    expect(replay.files).toEqual([
      { path: 'src/alpha.txt', action: 'modified', hunks: 2, already_applied: true },
      { path: 'docs/new.md', action: 'created', hunks: 1, already_applied: true },
      { path: 'old.txt', action: 'deleted', hunks: 1, already_applied: true },
    ]);
    expect((await text('src/alpha.txt')).match(/inserted/g)).toHaveLength(1);
    // outside a replay the same diff is refused: it no longer applies
    const again = await executeTool(tool, params(), ctx(false));
    expect(again).toMatchObject({ success: false, errorKind: 'business' });
  });
});

describe('patchPaths', () => {
  it('names the files a diff changes under root, or null for a diff that cannot be applied', () => {
    expect(patchPaths(diff(alphaTwoHunks(), create, remove), 'pkg')).toEqual(['pkg/src/alpha.txt', 'pkg/docs/new.md', 'pkg/old.txt']);
    expect(patchPaths(diff(betaHunk))).toEqual(['beta.txt']);
    expect(patchPaths('no diff here')).toBeNull();
  });
});
