import { execFileSync } from 'node:child_process';
import { chmod, mkdir, readdir, readFile, readlink, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { defaultConfig, type ConfigInput } from '../../src/config/schema.ts';
import { editFileTool } from '../../src/tools/catalog/edit-file.ts';
import { LIST_DIR_MAX_ENTRIES, listDirTool } from '../../src/tools/catalog/list-dir.ts';
import { searchFilesTool } from '../../src/tools/catalog/search-files.ts';
import { writeFileTool } from '../../src/tools/catalog/write-file.ts';
import { buildContext } from '../../src/tools/context.ts';
import { MemoryEffectLedger } from '../../src/tools/effects.ts';
import { executeTool } from '../../src/tools/executor.ts';
import type { Config } from '../../src/config/schema.ts';
import type { Tool, ToolResult } from '../../src/tools/types.ts';
import { workspaceAndOutside } from '../support/workspace.ts';

let root: string;
let ws: string;
let outside: string;

beforeEach(async () => {
  ({ root, ws, outside } = await workspaceAndOutside('echo-file-tools-'));
  await mkdir(join(ws, 'src', 'deep'), { recursive: true });
  await mkdir(join(ws, 'node_modules', 'pkg'), { recursive: true });
  await mkdir(join(ws, '.git'), { recursive: true });
  await mkdir(join(outside, 'dir'), { recursive: true });
  await writeFile(join(ws, 'README.md'), '# Project\nneedle in the readme\n');
  await writeFile(join(ws, 'src', 'main.ts'), 'const a = 1;\n// needle here\nexport {};\n');
  await writeFile(join(ws, 'src', 'deep', 'util.ts'), 'export const needle = 2;\n');
  await writeFile(join(ws, 'src', 'image.bin'), Buffer.from('needle\0binary'));
  await writeFile(join(ws, 'node_modules', 'pkg', 'index.js'), 'needle in a dependency\n');
  await writeFile(join(ws, '.git', 'config'), 'needle in git\n');
  await writeFile(join(outside, 'secret.txt'), 'needle outside\n');
  await writeFile(join(outside, 'dir', 'other.txt'), 'needle outside dir\n');
  await symlink('../outside/secret.txt', join(ws, 'link-out.txt'));
  await symlink('../outside/dir', join(ws, 'link-out-dir'));
  await symlink('../outside/new.txt', join(ws, 'dangling-out.txt'));
  await symlink('src/main.ts', join(ws, 'link-in.ts'));
});
afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

type Tools = NonNullable<ConfigInput['tools']>;
const config = (tools: Tools = {}) => defaultConfig({ tools: { workspace: ws, restrict_to_workspace: true, ...tools } });
const call = (tool: Tool, params: Record<string, unknown>) => executeTool(tool, params, buildContext({ tool: tool.name, params }));
const out = <T = Record<string, unknown>>(r: ToolResult) => {
  expect(r.error).toBeUndefined();
  return r.output as T;
};
const text = (rel: string) => readFile(join(ws, rel), 'utf8');

const factories: Record<string, (c: Config) => Tool> = {
  list_dir: listDirTool, search_files: searchFilesTool, write_file: writeFileTool, edit_file: editFileTool,
};
const tool = (name: keyof typeof factories, tools: Tools = {}) => factories[name]!(config(tools));

describe('list_dir', () => {
  type Listing = { entries: { name: string; type: string; size?: number }[]; truncated: boolean; not_descended?: string[] };

  it('lists a directory with types and file sizes, symlinks as symlinks', async () => {
    const r = out<Listing>(await call(tool('list_dir'), { path: '.' }));
    expect(r.entries).toEqual([
      { name: '.git', type: 'dir' },
      { name: 'README.md', type: 'file', size: 31 },
      { name: 'dangling-out.txt', type: 'symlink' },
      { name: 'link-in.ts', type: 'symlink' },
      { name: 'link-out-dir', type: 'symlink' },
      { name: 'link-out.txt', type: 'symlink' },
      { name: 'node_modules', type: 'dir' },
      { name: 'src', type: 'dir' },
    ]);
    expect(r.truncated).toBe(false);
  });

  it('lists recursively without following symlinks or descending into node_modules and .git', async () => {
    const r = out<Listing>(await call(tool('list_dir'), { path: '.', recursive: true }));
    const names = r.entries.map((e) => e.name);
    expect(names).toEqual(expect.arrayContaining(['src/deep', 'src/deep/util.ts', 'src/main.ts', 'node_modules', '.git']));
    expect(names.some((n) => n.startsWith('node_modules/') || n.startsWith('.git/') || n.startsWith('link-out-dir/'))).toBe(false);
    expect(r.not_descended).toEqual(['.git', 'node_modules']);
  });

  it('stops at its entry limit and says so', async () => {
    await mkdir(join(ws, 'many'));
    await Promise.all(Array.from({ length: LIST_DIR_MAX_ENTRIES + 1 }, (_, i) => writeFile(join(ws, 'many', `f${i}`), '')));
    const r = out<Listing>(await call(tool('list_dir'), { path: 'many' }));
    expect(r.entries).toHaveLength(LIST_DIR_MAX_ENTRIES);
    expect(r.truncated).toBe(true);
  });

  it.each([
    ['missing', () => `list_dir: path: missing does not exist in the workspace ${ws}`],
    ['README.md', () => 'list_dir: path: README.md is not a directory; use read_file'],
  ])('says what is wrong with %s', async (path, message) => {
    expect(await call(tool('list_dir'), { path })).toEqual({ success: false, errorKind: 'business', error: message() });
  });

  it('lists a directory outside through a symlink only when restrict_to_workspace is off', async () => {
    expect(out<Listing>(await call(tool('list_dir', { restrict_to_workspace: false }), { path: 'link-out-dir' })).entries).toEqual([{ name: 'other.txt', type: 'file', size: 19 }]);
  });
});

describe('search_files', () => {
  type Found = { matches: { file: string; line?: number; text?: string }[]; truncated: boolean; skipped_files?: number };

  it('finds lines matching a pattern, skipping node_modules, .git, binary files and symlinks', async () => {
    const r = out<Found>(await call(tool('search_files'), { path: '.', pattern: 'needle' }));
    expect(r.matches).toEqual([
      { file: 'README.md', line: 2, text: 'needle in the readme' },
      { file: 'src/main.ts', line: 2, text: '// needle here' },
      { file: 'src/deep/util.ts', line: 1, text: 'export const needle = 2;' },
    ]);
    expect(r.skipped_files).toBe(1);
    expect(r.truncated).toBe(false);
  });

  it.each([
    ['*.ts', ['src/main.ts', 'src/deep/util.ts']],
    ['src/*.ts', ['src/main.ts']],
    ['src/**/*.ts', ['src/main.ts', 'src/deep/util.ts']],
    ['*.md', ['README.md']],
  ])('lists the files matching the glob %s', async (glob, files) => {
    const r = out<Found>(await call(tool('search_files'), { path: '.', glob }));
    expect(r.matches.map((m) => m.file)).toEqual(files);
  });

  it('combines glob and pattern, and searches a single file', async () => {
    expect(out<Found>(await call(tool('search_files'), { path: 'src', glob: '*.ts', pattern: 'export' })).matches).toEqual([
      { file: 'main.ts', line: 3, text: 'export {};' },
      { file: 'deep/util.ts', line: 1, text: 'export const needle = 2;' },
    ]);
    expect(out<Found>(await call(tool('search_files'), { path: 'src/main.ts', pattern: 'const' })).matches).toEqual([{ file: 'main.ts', line: 1, text: 'const a = 1;' }]);
  });

  it('says truncated only when there were more matches than max_results', async () => {
    expect(out<Found>(await call(tool('search_files'), { path: '.', pattern: 'needle', max_results: 3 }))).toMatchObject({ truncated: false });
    const r = out<Found>(await call(tool('search_files'), { path: '.', pattern: 'needle', max_results: 2 }));
    expect(r.matches).toHaveLength(2);
    expect(r.truncated).toBe(true);
  });

  it('refuses an invalid regular expression naming pattern', async () => {
    const r = await call(tool('search_files'), { path: '.', pattern: 'needle(' });
    expect(r.errorKind).toBe('validation');
    expect(r.error).toMatch(/^pattern: not a valid regular expression/);
  });

  it('says a missing path does not exist', async () => {
    expect(await call(tool('search_files'), { path: 'nowhere', pattern: 'x' })).toEqual({ success: false, errorKind: 'business', error: `search_files: path: nowhere does not exist in the workspace ${ws}` });
  });

  it('refuses a FIFO at once instead of blocking on it, named or met in a walk', async () => {
    const dir = join(ws, 'fifos');
    await mkdir(dir, { recursive: true });
    execFileSync('mkfifo', [join(dir, 'pipe')]);
    await writeFile(join(dir, 'note.txt'), 'needle here');
    expect(await call(tool('search_files'), { path: 'fifos/pipe', pattern: 'x' })).toMatchObject({ success: false, errorKind: 'business', error: expect.stringMatching(/neither a directory nor a regular file/) });
    const r = out<Found>(await call(tool('search_files'), { path: 'fifos', pattern: 'needle' }));
    expect(r.matches.map((m) => m.file)).toEqual(['note.txt']);
  });

  it('a runaway pattern is stopped at its budget while the event loop keeps running', async () => {
    await writeFile(join(ws, 'backtrack.txt'), `${'a'.repeat(40)}!\n`);
    let ticks = 0;
    const ticker = setInterval(() => ticks++, 10);
    try {
      // (a+)+$ on 40 a's and a '!' backtracks about 2^40 times: hours on the main thread
      const r = await call(searchFilesTool(config(), { patternBudgetMs: 300 }), { path: 'backtrack.txt', pattern: '(a+)+$' });
      expect(r.errorKind).toBe('validation');
      expect(r.error).toMatch(/^pattern: took longer than 300 ms on one file \(backtrack\.txt\)/);
    } finally {
      clearInterval(ticker);
    }
    // a blocked loop would not have ticked at all until the end
    expect(ticks).toBeGreaterThan(10);
  }, 10_000);

  it('a pattern searched off the main thread still finds what the plain search finds', async () => {
    await writeFile(join(ws, 'lines.txt'), 'alpha\nbeta 42\ngamma\ndelta 7\n');
    const r = out<Found>(await call(tool('search_files'), { path: 'lines.txt', pattern: '\\d+$' }));
    expect(r.matches).toEqual([{ file: 'lines.txt', line: 2, text: 'beta 42' }, { file: 'lines.txt', line: 4, text: 'delta 7' }]);
  });
});

describe('write_file', () => {
  it('creates a file and its directories, then overwrites it', async () => {
    expect(out(await call(tool('write_file'), { path: 'new/dir/file.txt', content: 'héllo\n' }))).toEqual({ path: 'new/dir/file.txt', bytes: 7, created: true });
    expect(await text('new/dir/file.txt')).toBe('héllo\n');
    expect(out(await call(tool('write_file'), { path: 'new/dir/file.txt', content: 'second' }))).toMatchObject({ created: false });
    expect(await text('new/dir/file.txt')).toBe('second');
    expect((await readdir(join(ws, 'new', 'dir'))).sort()).toEqual(['file.txt']);
  });

  it('a file system error names the file written, not its temp file, and its cause', async () => {
    // a name the path policy accepts whose temp file's name passes the 255-byte limit: the error is the temp file's
    const name = 'n'.repeat(250);
    const r = await call(tool('write_file'), { path: name, content: 'x' });
    expect(r.success).toBe(false);
    expect(r.error).toContain(`cannot write ${join(ws, name)}: name too long (ENAMETOOLONG)`);
    expect(r.error).not.toContain('echo-agent.tmp');
  });

  it('writes through a symlink inside the workspace to its target, keeping the link', async () => {
    out(await call(tool('write_file'), { path: 'link-in.ts', content: 'rewritten\n' }));
    expect(await readlink(join(ws, 'link-in.ts'))).toBe('src/main.ts');
    expect(await text('src/main.ts')).toBe('rewritten\n');
  });

  it('keeps the permission bits of the file it replaces', async () => {
    await writeFile(join(ws, 'run.sh'), '#!/bin/sh\n');
    await chmod(join(ws, 'run.sh'), 0o750);
    out(await call(tool('write_file'), { path: 'run.sh', content: '#!/bin/sh\necho hi\n' }));
    expect((await stat(join(ws, 'run.sh'))).mode & 0o777).toBe(0o750);
  });

  it('drops setuid, setgid and sticky bits from a file it rewrites: new content must not run with its owner\'s rights', async () => {
    await writeFile(join(ws, 'tool'), '#!/bin/sh\n');
    await chmod(join(ws, 'tool'), 0o6755);
    out(await call(tool('write_file'), { path: 'tool', content: '#!/bin/sh\nid\n' }));
    expect((await stat(join(ws, 'tool'))).mode & 0o7777).toBe(0o755);
  });

  it.each([
    ['src', 'write_file: path: src is a directory'],
    ['README.md/child', 'write_file: path: cannot write README.md/child'],
  ])('refuses to write %s', async (path, message) => {
    const r = await call(tool('write_file'), { path, content: 'x' });
    expect(r).toMatchObject({ success: false, errorKind: 'business' });
    expect(r.error).toContain(message);
  });

  it('writes only under safe_write_root, even with the workspace restriction off', async () => {
    await mkdir(join(ws, 'scratch'));
    const loose = { restrict_to_workspace: false, safe_write_root: 'scratch' };
    const r = await call(tool('write_file', loose), { path: 'README.md', content: 'x' });
    expect(r).toMatchObject({ success: false, errorKind: 'denied' });
    expect(r.error).toContain('outside tools.safe_write_root');
    expect(await text('README.md')).toBe('# Project\nneedle in the readme\n');
    out(await call(tool('write_file', loose), { path: 'scratch/ok.txt', content: 'ok' }));
    expect(await text('scratch/ok.txt')).toBe('ok');
  });

  it('does not write the file again on a replay, even after someone changed it', async () => {
    const ledger = new MemoryEffectLedger();
    const params = { path: 'notes.txt', content: 'from the agent\n' };
    const ctx = (is_replay: boolean) => buildContext({ trace_id: 'trace-write', tool: 'write_file', params, is_replay });
    const first = await executeTool(tool('write_file'), params, ctx(false), { ledger });
    expect(first.success).toBe(true);
    await writeFile(join(ws, 'notes.txt'), 'edited by a person\n');
    const replay = await executeTool(tool('write_file'), params, ctx(true), { ledger });
    expect(replay).toEqual(first);
    expect(await text('notes.txt')).toBe('edited by a person\n');
  });
});

describe('edit_file', () => {
  it('replaces one exact occurrence', async () => {
    expect(out(await call(tool('edit_file'), { path: 'src/main.ts', old_text: 'const a = 1;', new_text: 'const a = 2;' }))).toEqual({ path: 'src/main.ts', replacements: 1, changed: true });
    expect(await text('src/main.ts')).toBe('const a = 2;\n// needle here\nexport {};\n');
  });

  it('replaces every occurrence with replace_all, and refuses an ambiguous one without it', async () => {
    await writeFile(join(ws, 'dup.txt'), 'x = 1\nx = 1\nx = 1\n');
    const r = await call(tool('edit_file'), { path: 'dup.txt', old_text: 'x = 1', new_text: 'x = 2' });
    expect(r).toMatchObject({ success: false, errorKind: 'business' });
    expect(r.error).toContain('old_text occurs 3 times in dup.txt; give more context or set replace_all');
    expect(await text('dup.txt')).toBe('x = 1\nx = 1\nx = 1\n');
    expect(out(await call(tool('edit_file'), { path: 'dup.txt', old_text: 'x = 1', new_text: 'x = $&2', replace_all: true }))).toMatchObject({ replacements: 3 });
    expect(await text('dup.txt')).toBe('x = $&2\n'.repeat(3));
  });

  it('matches LF text in a CRLF file and keeps the file\'s line ends', async () => {
    await writeFile(join(ws, 'win.txt'), 'one\r\ntwo\r\nthree\r\n');
    out(await call(tool('edit_file'), { path: 'win.txt', old_text: 'one\ntwo', new_text: 'ONE\nTWO' }));
    expect(await text('win.txt')).toBe('ONE\r\nTWO\r\nthree\r\n');
  });

  it('keeps the permission bits of the file', async () => {
    await chmod(join(ws, 'src', 'main.ts'), 0o700);
    out(await call(tool('edit_file'), { path: 'src/main.ts', old_text: 'export', new_text: 'export default' }));
    expect((await stat(join(ws, 'src', 'main.ts'))).mode & 0o777).toBe(0o700);
  });

  it.each([
    [{ path: 'missing.txt', old_text: 'a', new_text: 'b' }, {}, 'edit_file: missing.txt does not exist'],
    [{ path: 'src', old_text: 'a', new_text: 'b' }, {}, 'edit_file: src is not a regular file'],
    [{ path: 'README.md', old_text: 'absent', new_text: 'b' }, {}, 'old_text was not found in README.md'],
    [{ path: 'README.md', old_text: 'Project', new_text: 'b' }, { read_max_bytes: 10 }, 'README.md is 31 bytes, over the 10-byte size limit (tools.read_max_bytes)'],
  ])('refuses %j', async (params, tools, message) => {
    const r = await call(tool('edit_file', tools), params);
    expect(r).toMatchObject({ success: false, errorKind: 'business' });
    expect(r.error).toContain(message);
  });

  it('refuses a file outside safe_write_root', async () => {
    await mkdir(join(ws, 'scratch'));
    const r = await call(tool('edit_file', { safe_write_root: 'scratch' }), { path: 'README.md', old_text: 'Project', new_text: 'P' });
    expect(r).toMatchObject({ success: false, errorKind: 'denied' });
    expect(await text('README.md')).toContain('# Project');
  });

  it('edits once across a call and its replay, even when new_text contains old_text', async () => {
    const ledger = new MemoryEffectLedger();
    const params = { path: 'README.md', old_text: 'needle', new_text: 'needle and thread' };
    const ctx = (is_replay: boolean) => buildContext({ trace_id: 'trace-edit', tool: 'edit_file', params, is_replay });
    const first = await executeTool(tool('edit_file'), params, ctx(false), { ledger });
    const replay = await executeTool(tool('edit_file'), params, ctx(true), { ledger });
    expect(replay).toEqual(first);
    expect(await text('README.md')).toBe('# Project\nneedle and thread in the readme\n');
  });
});

describe('file tools under the workspace policy', () => {
  const cases: [keyof typeof factories, (path: string) => Record<string, unknown>][] = [
    ['list_dir', (path) => ({ path })],
    ['search_files', (path) => ({ path, pattern: 'needle' })],
    ['write_file', (path) => ({ path, content: 'pwned' })],
    ['edit_file', (path) => ({ path, old_text: 'needle', new_text: 'pwned' })],
  ];
  const targets: [string, (name: string) => string][] = [
    ['an absolute path outside', (name) => (name === 'list_dir' || name === 'search_files' ? join(outside, 'dir') : join(outside, 'secret.txt'))],
    ['a path climbing out', (name) => (name === 'list_dir' || name === 'search_files' ? '../outside/dir' : '../outside/secret.txt')],
    ['a symlink pointing outside', (name) => (name === 'list_dir' || name === 'search_files' ? 'link-out-dir' : 'link-out.txt')],
  ];

  it.each(cases.flatMap(([name, params]) => targets.map(([what, path]) => [name, what, params, path] as const)))(
    '%s refuses %s when restrict_to_workspace is on', async (name, _what, params, path) => {
      const r = await call(tool(name), params(path(name)));
      expect(r).toMatchObject({ success: false, errorKind: 'denied' });
      expect(r.error).toContain('outside the workspace');
      expect(JSON.stringify(r)).not.toContain('needle outside');
      expect(await readFile(join(outside, 'secret.txt'), 'utf8')).toBe('needle outside\n');
    },
  );

  it('write_file refuses a dangling symlink whose target would be outside', async () => {
    const r = await call(tool('write_file'), { path: 'dangling-out.txt', content: 'pwned' });
    expect(r).toMatchObject({ success: false, errorKind: 'denied' });
    await expect(stat(join(outside, 'new.txt'))).rejects.toThrow();
  });

  it.each([
    ['list_dir', {}, 'path: is required'],
    ['list_dir', { path: '.', recursive: 'yes' }, 'recursive: must be boolean'],
    ['search_files', { path: '.', max_results: 0 }, 'max_results: must be >= 1'],
    ['search_files', { path: '.', max_results: 1001 }, 'max_results: must be <= 1000'],
    ['search_files', { path: '.', regex: 'x' }, 'regex: is not a known parameter'],
    ['write_file', { path: 'a.txt' }, 'content: is required'],
    ['write_file', { path: 'a.txt', content: 5 }, 'content: must be string'],
    ['edit_file', { path: 'README.md', old_text: '', new_text: 'x' }, 'old_text: must NOT have fewer than 1 characters'],
    ['edit_file', { path: 'README.md', old_text: 'x' }, 'new_text: is required'],
    ['edit_file', { path: 'README.md', old_text: 'x', new_text: 'y', replace_all: 'true' }, 'replace_all: must be boolean'],
  ] as const)('%s refuses bad arguments %j naming the field', async (name, params, message) => {
    const r = await call(tool(name), params);
    expect(r.errorKind).toBe('validation');
    expect(r.error).toContain(message);
  });
});
