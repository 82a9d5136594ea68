import { mkdir, mkdtemp, rename, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultConfig } from '../../src/config/schema.ts';
import { knowledgeIndexTool } from '../../src/tools/catalog/knowledge-index.ts';
import { listDirTool } from '../../src/tools/catalog/list-dir.ts';
import { readFileTool } from '../../src/tools/catalog/read-file.ts';
import { searchFilesTool } from '../../src/tools/catalog/search-files.ts';
import { walk } from '../../src/tools/catalog/workspace-files.ts';
import { buildContext } from '../../src/tools/context.ts';
import { executeTool } from '../../src/tools/executor.ts';
import { MemorySpillStore } from '../../src/tools/spill.ts';
import type { Tool } from '../../src/tools/types.ts';
import { useTestDatabase } from '../support/db.ts';

const database = useTestDatabase();
const PASSWORD = 'pw-7f3c2a91e4';
let dataDir: string;

// the systemd and Docker layout: the workspace lives inside daemon.data_dir, next to the database
beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'echo-state-'));
  await mkdir(join(dataDir, 'pg'), { recursive: true });
  await mkdir(join(dataDir, 'workspace'));
  await writeFile(join(dataDir, 'pg-password'), PASSWORD);
  await writeFile(join(dataDir, 'pg', 'postgresql.conf'), `password_hint = ${PASSWORD}`);
  await writeFile(join(dataDir, 'workspace', 'notes.txt'), 'the notes');
  await writeFile(join(dataDir, 'readme.txt'), 'state dir readme');
});
afterAll(async () => { await rm(dataDir, { recursive: true, force: true }); });

const config = () => defaultConfig({ daemon: { data_dir: dataDir }, tools: { workspace: join(dataDir, 'workspace') } });
const run = (tool: Tool, params: Record<string, unknown>) => executeTool(tool, params, buildContext({ memory_scope: 'job', session_key: 'cron:job_x', tool: tool.name, params }));

describe('the embedded database files, out of reach of tools that walk a directory above them', () => {
  it('search_files of the data dir finds the rest, never the password file or the database directory', async () => {
    const r = await run(searchFilesTool(config()), { path: '..', pattern: '.' });
    expect(r.success, r.error).toBe(true);
    const text = JSON.stringify(r.output);
    expect(text).not.toContain(PASSWORD);
    expect(text).toContain('readme.txt');
    expect(text).toContain('notes.txt');
  });

  it('knowledge_index of the data dir indexes the rest and says it skipped the database files', async () => {
    const r = await run(knowledgeIndexTool(config(), database().db), { path: '..' });
    expect(r.success, r.error).toBe(true);
    const text = JSON.stringify(r.output);
    expect(text).toContain('path.daemon_state');
    const { rows } = await database().pool.query('select path, content from knowledge_chunks');
    expect(JSON.stringify(rows)).not.toContain(PASSWORD);
    expect(JSON.stringify(rows)).toContain('state dir readme');
  });

  it('list_dir of the data dir lists the rest, never the password file or the database directory', async () => {
    const r = await run(listDirTool(config()), { path: '..', recursive: true });
    expect(r.success, r.error).toBe(true);
    const names = (r.output as { entries: { name: string }[] }).entries.map((e) => e.name);
    expect(names).toContain('readme.txt');
    expect(names).toContain('workspace/notes.txt');
    expect(names.filter((n) => n === 'pg-password' || n === 'pg' || n.startsWith('pg/'))).toEqual([]);
  });

  it('a directory swapped for a symlink after the walk listed it is not followed', async () => {
    const root = await mkdtemp(join(tmpdir(), 'echo-walk-'));
    await mkdir(join(root, 'z'));
    await writeFile(join(root, 'a.txt'), 'a');
    const seen: string[] = [];
    for await (const e of walk(root, { recursive: true, exclude: [] })) {
      seen.push(e.rel);
      // listed as a directory; before the walk descends, it becomes a link to the data dir
      if (e.rel === 'z') {
        await rename(join(root, 'z'), join(root, 'z.old'));
        await symlink(dataDir, join(root, 'z'));
      }
    }
    await rm(root, { recursive: true, force: true });
    expect(seen).toEqual(['a.txt', 'z']);
  });

  it('the tools refuse the files themselves even when called directly, not through the gate', async () => {
    const r = await run(readFileTool(config(), new MemorySpillStore()), { path: '../pg-password' });
    expect(r).toMatchObject({ success: false, errorKind: 'denied' });
    expect(r.error).toContain("embedded database's directory, its password file");
    expect((await run(listDirTool(config()), { path: '../pg' })).success).toBe(false);
  });

  it('an ordinary path the daemon may not resolve is still the tool\'s own error, not a guard refusal', async () => {
    // a symlink loop: with restrict_to_workspace off, nothing but the store check needs its real path
    await symlink('loop-b', join(dataDir, 'workspace', 'loop-a'));
    await symlink('loop-a', join(dataDir, 'workspace', 'loop-b'));
    const r = await run(readFileTool(config(), new MemorySpillStore()), { path: 'loop-a/x.txt' });
    expect(r).toMatchObject({ success: false });
    expect(r.errorKind).not.toBe('denied');
    expect(r.error).not.toContain('cannot be determined');
  });
});
