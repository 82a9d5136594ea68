import { mkdir, rm, symlink, unlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultConfig } from '../../src/config/schema.ts';
import { knowledgeChunks } from '../../src/store/catalog-schema.ts';
import { effectLedger } from '../../src/store/effects.ts';
import { buildContext } from '../../src/tools/context.ts';
import { executeTool } from '../../src/tools/executor.ts';
import { chunkLines, knowledgeIndexTool } from '../../src/tools/catalog/knowledge-index.ts';
import { knowledgeSearchTool } from '../../src/tools/catalog/knowledge-search.ts';
import type { Tool, ToolResult } from '../../src/tools/types.ts';
import { useTestDatabase } from '../support/db.ts';
import { workspaceAndOutside } from '../support/workspace.ts';

const database = useTestDatabase();
let root: string;
let workspace: string;
let outside: string;

beforeAll(async () => {
  ({ root, ws: workspace, outside } = await workspaceAndOutside('echo-knowledge-'));
  await writeFile(join(outside, 'secret-plans.md'), 'zanzibar outside document\n');
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

const tools = (restrict = true) => {
  const config = defaultConfig({ tools: { workspace, restrict_to_workspace: restrict } });
  return { index: knowledgeIndexTool(config, database().db), search: knowledgeSearchTool(config, database().db) };
};
const ctx = (memory_scope: string, tool = 'knowledge_index', params: unknown = {}) => buildContext({ memory_scope, session_key: 's', tool, params });
const call = (tool: Tool, params: Record<string, unknown>, scope = 'alice') => executeTool(tool, params, ctx(scope, tool.name, params));
const out = <T = Record<string, unknown>>(r: ToolResult) => {
  expect(r.error).toBeUndefined();
  return r.output as T;
};
type Hits = { results: { path: string; chunk: number; score: number; snippet: string }[] };

async function project(name: string, files: Record<string, string | Buffer>): Promise<string> {
  const dir = join(workspace, name);
  for (const [rel, content] of Object.entries(files)) {
    await mkdir(join(dir, rel, '..'), { recursive: true });
    await writeFile(join(dir, rel), content);
  }
  return dir;
}

async function storedPaths(scope: string): Promise<string[]> {
  const rows = await database().db.select({ path: knowledgeChunks.path, memory_scope: knowledgeChunks.memory_scope }).from(knowledgeChunks);
  return [...new Set(rows.filter((r) => r.memory_scope === scope).map((r) => r.path))].sort();
}

describe('chunkLines', () => {
  it.each([
    ['short text', 'one\ntwo\n', [8]],
    ['many lines cut at line ends', 'x'.repeat(99).concat('\n').repeat(50), [2000, 2000, 1000]],
    ['one very long line', 'y'.repeat(4500), [2000, 2000, 500]],
  ])('%s', (_name, text, sizes) => {
    const chunks = chunkLines(text);
    expect(chunks.map((c) => c.length)).toEqual(sizes);
    expect(chunks.join('')).toBe(text);
  });

  it('drops whitespace-only text', () => {
    expect(chunkLines('\n\n  \n')).toEqual([]);
  });
});

describe('knowledge_index and knowledge_search', () => {
  it('indexes the text files of a directory, skipping binary, oversized, node_modules and .git', async () => {
    await project('docs', {
      'guide.md': 'The quokka lives on Rottnest island.\n'.repeat(100),
      'sub/notes.txt': 'quokka quokka quokka: a small marsupial\n',
      'logo.png': Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x00, 0x01, 0x02]),
      'huge.log': 'quokka\n'.repeat(160_000),
      'node_modules/pkg/readme.md': 'quokka in a dependency\n',
      '.git/HEAD': 'ref: quokka\n',
    });
    const r = out<{ files: number; chunks: number; skipped: { path: string; reason: string }[] }>(await call(tools().index, { path: 'docs' }));
    expect(r.files).toBe(2);
    expect(r.chunks).toBe(3); // guide.md is 3,700 characters: two chunks
    expect(r.skipped).toEqual([
      { path: 'docs/huge.log', reason: 'larger than 1 MiB' },
      { path: 'docs/logo.png', reason: 'binary (contains NUL bytes)' },
    ]);
    expect(await storedPaths('alice')).toEqual(['docs/guide.md', 'docs/sub/notes.txt']);
  });

  it('finds chunks ranked by relevance with highlighted snippets', async () => {
    const r = out<Hits>(await call(tools().search, { query: 'quokka marsupial' }));
    expect(r.results.map((h) => h.path)).toEqual(['docs/sub/notes.txt']);
    expect(r.results[0]!.snippet).toContain('**quokka**');
    await project('rank', { 'once.md': 'a lemur among other animals\n', 'often.md': 'lemur lemur lemur and more lemur\n' });
    out(await call(tools().index, { path: 'rank' }));
    const ranked = out<Hits>(await call(tools().search, { query: 'lemur' }));
    expect(ranked.results.map((h) => h.path)).toEqual(['rank/often.md', 'rank/once.md']);
    expect(ranked.results[0]!.score).toBeGreaterThan(ranked.results[1]!.score);
    expect(out<Hits>(await call(tools().search, { query: 'quokka' })).results).toHaveLength(3);
    const limited = out<Hits>(await call(tools().search, { query: 'quokka', limit: 1 }));
    expect(limited.results).toHaveLength(1);
  });

  it('a credential in an indexed file never reaches a snippet, even where the highlight splits its key (I11)', async () => {
    await project('creds', { 'app.env': 'dugong settings\nDB_PASSWORD=hunter2dugong\napi_key: sk-dugongsecret123\n' });
    out(await call(tools().index, { path: 'creds' }));
    for (const query of ['password dugong', 'key dugong', 'hunter2dugong']) {
      const hits = out<Hits>(await call(tools().search, { query }));
      expect(JSON.stringify(hits)).not.toMatch(/hunter2dugong|sk-dugongsecret123/);
    }
    const found = out<Hits>(await call(tools().search, { query: 'password' }));
    expect(found.results.map((h) => h.path)).toContain('creds/app.env');
  });

  it('re-indexing a path replaces its chunks: edited content is new, deleted files are dropped, siblings stay', async () => {
    const dir = await project('wiki', { 'a.md': 'platypus original text\n', 'b.md': 'echidna lives here\n' });
    await project('other', { 'c.md': 'wombat sibling\n' });
    out(await call(tools().index, { path: 'wiki' }));
    out(await call(tools().index, { path: 'other' }));
    await writeFile(join(dir, 'a.md'), 'platypus rewritten text\n');
    await unlink(join(dir, 'b.md'));
    const r = out<{ files: number }>(await call(tools().index, { path: 'wiki' }));
    expect(r.files).toBe(1);
    expect(out<Hits>(await call(tools().search, { query: 'original' })).results).toEqual([]);
    expect(out<Hits>(await call(tools().search, { query: 'rewritten' })).results.map((h) => h.path)).toEqual(['wiki/a.md']);
    expect(out<Hits>(await call(tools().search, { query: 'echidna' })).results).toEqual([]);
    expect(out<Hits>(await call(tools().search, { query: 'wombat' })).results.map((h) => h.path)).toEqual(['other/c.md']);
    // a single file re-indexed leaves the rest of its directory alone
    out(await call(tools().index, { path: 'wiki/a.md' }));
    expect(await storedPaths('alice')).toContain('other/c.md');
  });

  it('an index stopped part-way leaves the previous chunks in place', async () => {
    await project('stopped', { 'a.md': 'narwhal before\n' });
    out(await call(tools().index, { path: 'stopped' }));
    await writeFile(join(workspace, 'stopped', 'a.md'), 'narwhal after\n');
    const controller = new AbortController();
    controller.abort();
    const r = await tools().index.execute({ path: 'stopped' }, ctx('alice'), { signal: controller.signal });
    expect(r).toMatchObject({ success: false, errorKind: 'timeout' });
    expect(out<Hits>(await call(tools().search, { query: 'before' })).results.map((h) => h.path)).toEqual(['stopped/a.md']);
  });

  it("never returns another scope's documents, and another scope's index does not replace them", async () => {
    await project('private', { 'diary.md': 'axolotl confidential\n' });
    out(await call(tools().index, { path: 'private' }, 'alice'));
    expect(out<Hits>(await call(tools().search, { query: 'axolotl' }, 'bob')).results).toEqual([]);
    await writeFile(join(workspace, 'private', 'diary.md'), 'different words\n');
    out(await call(tools().index, { path: 'private' }, 'bob'));
    expect(out<Hits>(await call(tools().search, { query: 'axolotl' }, 'alice')).results).toHaveLength(1);
    expect(out<Hits>(await call(tools().search, { query: 'axolotl' }, 'bob')).results).toEqual([]);
    expect(out<Hits>(await call(tools().search, { query: 'different' }, 'alice')).results).toEqual([]);
  });

  it('applies a replayed index call once (the recorded result, no second index)', async () => {
    const ledger = effectLedger(database().db);
    await project('replayed', { 'a.md': 'pangolin first\n' });
    const params = { path: 'replayed' };
    const first = ctx('alice', 'knowledge_index', params);
    const done = await executeTool(tools().index, params, first, { ledger });
    expect(done.success).toBe(true);
    await writeFile(join(workspace, 'replayed', 'a.md'), 'pangolin second\n');
    const replay = buildContext({ trace_id: first.trace_id, memory_scope: 'alice', session_key: 's', tool: 'knowledge_index', params, is_replay: true });
    expect(await executeTool(tools().index, params, replay, { ledger })).toEqual(done);
    expect(out<Hits>(await call(tools().search, { query: 'second' })).results).toEqual([]);
    expect(out<Hits>(await call(tools().search, { query: 'first' })).results.map((h) => h.path)).toEqual(['replayed/a.md']);
  });
});

describe('knowledge tools refuse', () => {
  it.each([
    ['knowledge_index', {}, 'path: is required'],
    ['knowledge_index', { path: 'docs', depth: 2 }, 'depth: is not a known parameter'],
    ['knowledge_index', { path: '  ' }, 'path: must not be empty'],
    ['knowledge_search', {}, 'query: is required'],
    ['knowledge_search', { query: '' }, 'query: must NOT have fewer than 1 characters'],
    ['knowledge_search', { query: 'x', limit: 0 }, 'limit: must be >= 1'],
    ['knowledge_search', { query: '   ' }, 'query: must contain search terms'],
  ])('%s with bad arguments %j', async (name, params, message) => {
    const t = name === 'knowledge_index' ? tools().index : tools().search;
    const r = await call(t, params);
    expect(r).toMatchObject({ success: false, errorKind: 'validation' });
    expect(r.error).toContain(message);
  });

  it.each([
    ['a path outside the workspace', () => outside],
    ['a relative path climbing out', () => '../outside'],
    ['a symlink in the workspace pointing out', () => 'link-out'],
  ])('%s when restrict_to_workspace is on', async (_name, path) => {
    await symlink(outside, join(workspace, 'link-out')).catch(() => undefined);
    const r = await call(tools(true).index, { path: path() });
    expect(r).toMatchObject({ success: false, errorKind: 'denied' });
    expect(r.error).toContain('outside the workspace');
    expect(out<Hits>(await call(tools().search, { query: 'zanzibar' })).results).toEqual([]);
  });

  it('skips a symlink inside an indexed directory that leads out of the workspace', async () => {
    const dir = await project('linked', { 'own.md': 'capybara own file\n' });
    await symlink(join(outside, 'secret-plans.md'), join(dir, 'plans.md'));
    const r = out<{ files: number; skipped: unknown[] }>(await call(tools(true).index, { path: 'linked' }));
    expect(r.files).toBe(1);
    expect(r.skipped).toEqual([{ path: 'linked/plans.md', reason: 'symlink leads outside the workspace' }]);
    expect(out<Hits>(await call(tools().search, { query: 'zanzibar' })).results).toEqual([]);
  });

  it('indexes outside the workspace only when restrict_to_workspace is off, under the absolute path', async () => {
    const r = out<{ files: number }>(await call(tools(false).index, { path: outside }, 'carol'));
    expect(r.files).toBe(1);
    expect(await storedPaths('carol')).toEqual([join(outside, 'secret-plans.md')]);
  });

  it.each([
    ['a missing path', { path: 'no/such/dir' }, 'alice', 'path: no/such/dir does not exist'],
    ['a context without a memory scope', { path: 'docs' }, '', 'this context has no memory scope'],
  ])('%s as a business error', async (_name, params, scope, message) => {
    const r = await call(tools().index, params, scope);
    expect(r).toMatchObject({ success: false, errorKind: 'business' });
    expect(r.error).toContain(message);
    const s = await call(tools().search, { query: 'quokka' }, '');
    expect(s).toMatchObject({ success: false, errorKind: 'business', error: 'knowledge_search: this context has no memory scope' });
  });

  it('is unavailable and not ready without a database', async () => {
    const config = defaultConfig({ tools: { workspace } });
    for (const t of [knowledgeIndexTool(config, null), knowledgeSearchTool(config, null)]) {
      expect(t.isReady()).toBe(false);
      expect(t.readinessDetail()).toEqual([false, 'needs the database']);
      const params = t.name === 'knowledge_index' ? { path: 'docs' } : { query: 'x' };
      expect(await call(t, params)).toMatchObject({ success: false, errorKind: 'unavailable', error: `${t.name}: needs the database` });
    }
  });
});

it('indexes the whole workspace as "." with workspace-relative paths, replacing only relative paths', async () => {
  const r = out<{ path: string; files: number; skipped: { path: string; reason: string }[] }>(await call(tools(true).index, { path: '.' }, 'carol'));
  expect(r.path).toBe('.');
  expect(r.skipped).toContainEqual({ path: 'link-out', reason: 'symlink leads outside the workspace' });
  const paths = await storedPaths('carol');
  expect(paths).toContain('docs/guide.md');
  expect(paths).toContain(join(outside, 'secret-plans.md')); // indexed earlier from outside; not under "."
  expect(paths.filter((p) => p.includes('node_modules') || p.startsWith('..'))).toEqual([]);
});
