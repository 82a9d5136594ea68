import { mkdir, mkdtemp, readFile, readdir, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { eq } from 'drizzle-orm';
import { c as createTar } from 'tar';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { defaultConfig, type Config } from '../../src/config/schema.ts';
import { undiciTransport } from '../../src/tools/net/index.ts';
import { skillsDir } from '../../src/skills/dir.ts';
import { skills } from '../../src/store/catalog-schema.ts';
import { effectLedger } from '../../src/store/effects.ts';
import { toolEffects } from '../../src/store/schema.ts';
import { skillInstallTool } from '../../src/tools/catalog/skill-install.ts';
import { skillManageTool } from '../../src/tools/catalog/skill-manage.ts';
import { skillViewTool } from '../../src/tools/catalog/skill-view.ts';
import { skillsListTool } from '../../src/tools/catalog/skills-list.ts';
import { buildContext, contextForCall } from '../../src/tools/context.ts';
import { executeTool } from '../../src/tools/executor.ts';
import type { Tool, ToolResult } from '../../src/tools/types.ts';
import { fakeInternet, lookupOf, scriptedServer, type ScriptedServer } from '../support/fake-internet.ts';
import { useTestDatabase } from '../support/db.ts';
import { craftTar, manifestJson, type CraftedEntry } from '../skills/craft-tar.ts';

const MIB = 1024 * 1024;
const PUBLIC = '93.184.216.34';
const db = useTestDatabase();

let tmp: string;
let workspace: string;
let outside: string;
let config: Config;
let server: ScriptedServer;
let internet: ReturnType<typeof fakeInternet>;
let tools: { install: Tool; manage: Tool; list: Tool; view: Tool };

beforeAll(async () => {
  tmp = await mkdtemp(join(tmpdir(), 'skills-tools-'));
  workspace = join(tmp, 'ws');
  outside = join(tmp, 'outside');
  await mkdir(workspace);
  await mkdir(outside);
  config = defaultConfig({
    tools: { workspace, restrict_to_workspace: true },
    daemon: { data_dir: join(tmp, 'data') },
    skills: { max_archive_bytes: MIB },
  });
  server = await scriptedServer();
  internet = fakeInternet({ [`${PUBLIC}:80`]: server.port });
  const net = { lookup: lookupOf({ 'skills.example': [PUBLIC] }), transport: undiciTransport({ connector: internet.connector }) };
  const exec = db().db;
  tools = { install: skillInstallTool(config, exec, net), manage: skillManageTool(config, exec), list: skillsListTool(config, exec), view: skillViewTool(config, exec) };
});
afterAll(async () => {
  await server?.close();
  await rm(tmp, { recursive: true, force: true });
});
beforeEach(async () => {
  await db().db.delete(skills);
  await rm(skillsDir(config), { recursive: true, force: true });
  server.reset();
  internet.dialled.length = 0;
});

const call = (tool: Tool, params: Record<string, unknown>, user_id = 'alice'): Promise<ToolResult> =>
  executeTool(tool, params, buildContext({ tool: tool.name, params, user_id }));

/** A package directory in the workspace (or elsewhere); returns its path. */
async function writePackage(dir: string, manifest: Record<string, unknown> = {}, files: Record<string, string | Buffer> = {}): Promise<string> {
  await mkdir(dir, { recursive: true });
  await writeFile(join(dir, 'skill.json'), manifestJson(manifest));
  for (const [name, body] of Object.entries(files)) {
    await mkdir(join(dir, name, '..'), { recursive: true });
    await writeFile(join(dir, name), body);
  }
  return dir;
}

/** A .tgz made with tar.c of a package directory (as `tar czf out -C parent name`). */
async function tgzOf(pkgDir: string, out: string): Promise<string> {
  await createTar({ gzip: true, file: out, cwd: join(pkgDir, '..'), portable: true }, [pkgDir.split('/').pop()!]);
  return out;
}

const rowOf = async (name: string) => (await db().db.select().from(skills).where(eq(skills.name, name)))[0];
const installedNames = async () => (await readdir(skillsDir(config)).catch(() => [])).map(String).sort();

describe('skill_install installs a package', () => {
  it('from a workspace directory, recording who installed it', async () => {
    await writePackage(join(workspace, 'pkgs/hello'), { entry: 'run.sh' }, { 'run.sh': 'echo hi', 'SKILL.md': '# Hello' });
    const r = await call(tools.install, { source: 'pkgs/hello' });
    const dir = join(skillsDir(config), 'hello');
    expect(r).toEqual({ success: true, output: { name: 'hello', version: '1.0.0', dir } });
    expect(await readFile(join(dir, 'run.sh'), 'utf8')).toBe('echo hi');
    expect(await rowOf('hello')).toMatchObject({ version: '1.0.0', enabled: true, dir, source: join(workspace, 'pkgs/hello'), installed_by: 'alice', manifest: { entry: 'run.sh' } });
    // no temp dirs left beside it
    expect(await installedNames()).toEqual(['hello']);
  });

  it('from a local .tgz made with tar, with the package in a top-level directory', async () => {
    const pkg = await writePackage(join(tmp, 'build/greeter'), { name: 'greeter', version: '0.2.0' }, { 'lib/main.js': 'export {}' });
    await tgzOf(pkg, join(workspace, 'greeter.tgz'));
    const r = await call(tools.install, { source: 'greeter.tgz' }, '');
    expect(r.output).toMatchObject({ name: 'greeter', version: '0.2.0' });
    expect(await readFile(join(skillsDir(config), 'greeter/lib/main.js'), 'utf8')).toBe('export {}');
    expect((await rowOf('greeter'))?.installed_by).toBe('unknown');
  });

  it('from a plain .tar', async () => {
    await writeFile(join(workspace, 'plain.tar'), craftTar([{ path: 'skill.json', body: manifestJson({ name: 'plain' }) }]));
    expect((await call(tools.install, { source: 'plain.tar' })).output).toMatchObject({ name: 'plain' });
  });

  it('from an http URL through the guarded fetch, recording the URL redacted', async () => {
    const pkg = await writePackage(join(tmp, 'build/remote'), { name: 'remote' });
    const archive = await readFile(await tgzOf(pkg, join(tmp, 'remote.tgz')));
    server.answer((_q, res) => res.writeHead(200, { 'content-type': 'application/gzip' }).end(archive));
    const r = await call(tools.install, { source: 'http://skills.example/remote.tgz?token=hunter2' });
    expect(r.error).toBeUndefined();
    expect(r.output).toMatchObject({ name: 'remote', version: '1.0.0' });
    expect(server.requests.map((q) => q.url)).toEqual(['/remote.tgz?token=hunter2']);
    const row = await rowOf('remote');
    expect(row?.source).toBe('http://skills.example/remote.tgz?…');
    expect(JSON.stringify(row)).not.toContain('hunter2');
  });

  it('reports an HTTP error status as a business error', async () => {
    server.answer((_q, res) => res.writeHead(404).end('nope'));
    const r = await call(tools.install, { source: 'http://skills.example/missing.tgz' });
    expect(r).toMatchObject({ success: false, errorKind: 'business', error: 'source: http://skills.example/missing.tgz answered HTTP 404' });
  });

  it('refuses the same version again and replaces a different version, removing the old files', async () => {
    const src = await writePackage(join(workspace, 'v'), {}, { 'old.txt': 'old' });
    expect((await call(tools.install, { source: 'v' })).success).toBe(true);
    const again = await call(tools.install, { source: 'v' });
    expect(again).toMatchObject({ success: false, errorKind: 'business', error: 'skill_install: hello 1.0.0 is already installed' });

    await rm(join(src, 'old.txt'));
    await writePackage(src, { version: '1.1.0', description: 'Says hello better' }, { 'new.txt': 'new' });
    const up = await call(tools.install, { source: 'v' });
    expect(up.output).toMatchObject({ name: 'hello', version: '1.1.0' });
    const dir = join(skillsDir(config), 'hello');
    expect((await readdir(dir)).sort()).toEqual(['new.txt', 'skill.json']);
    expect(await rowOf('hello')).toMatchObject({ version: '1.1.0', description: 'Says hello better' });
    expect(await installedNames()).toEqual(['hello']);
  });
});

describe('skill_install refuses unsafe or broken packages, installing nothing', () => {
  const good: CraftedEntry = { path: 'skill.json', body: manifestJson({ name: 'evil' }) };
  it.each<[string, () => Buffer, string]>([
    ['a path traversal entry', () => gzipSync(craftTar([good, { path: '../evil', body: 'x' }])), 'entry "../evil" has a ".." component'],
    ['an absolute path entry', () => gzipSync(craftTar([good, { path: '/tmp/evil-skill', body: 'x' }])), 'entry "/tmp/evil-skill" is an absolute path'],
    ['a symlink entry', () => gzipSync(craftTar([good, { path: 'passwd', type: 'SymbolicLink', linkpath: '/etc/passwd' }])), 'entry "passwd" is a symbolic link'],
    ['an oversized (zip-bomb-like) archive', () => gzipSync(craftTar([good, { path: 'zeros', body: Buffer.alloc(5 * MIB) }])), 'content is more than skills.max_archive_bytes'],
    ['a bad manifest', () => craftTar([{ path: 'skill.json', body: manifestJson({ name: 'Evil!' }) }]), 'skill.json: name: must match ^[a-z][a-z0-9-]{0,62}$'],
    ['a missing manifest', () => craftTar([{ path: 'README', body: 'x' }]), 'skill.json: not found at the package root'],
  ])('%s', async (_what, archive, message) => {
    const bytes = archive();
    expect(bytes.length).toBeLessThan(MIB);
    await writeFile(join(workspace, 'bad.tgz'), bytes);
    const r = await call(tools.install, { source: 'bad.tgz' });
    expect(r).toMatchObject({ success: false, errorKind: 'business' });
    expect(r.error).toContain(message);
    expect(await installedNames()).toEqual([]);
    expect(await db().db.select().from(skills)).toEqual([]);
    await expect(stat(join(skillsDir(config), '..', 'evil'))).rejects.toThrow();
  });

  it('a symlink inside a source directory', async () => {
    const src = await writePackage(join(workspace, 'linked'));
    await symlink(join(outside), join(src, 'escape'));
    const r = await call(tools.install, { source: 'linked' });
    expect(r).toMatchObject({ success: false, errorKind: 'business' });
    expect(r.error).toContain('entry "escape" is a symbolic link');
  });

  it('a source directory outside the workspace (restrict_to_workspace)', async () => {
    const src = await writePackage(join(outside, 'pkg'));
    const r = await call(tools.install, { source: src });
    expect(r).toMatchObject({ success: false, errorKind: 'denied' });
    expect(r.error).toContain('outside the workspace');
    expect(await installedNames()).toEqual([]);
  });

  it('a workspace symlink that leads outside it', async () => {
    await writePackage(join(outside, 'pkg2'));
    await symlink(join(outside, 'pkg2'), join(workspace, 'sneaky'));
    const r = await call(tools.install, { source: 'sneaky' });
    expect(r).toMatchObject({ success: false, errorKind: 'denied' });
  });

  it.each([
    (port: number) => `http://127.0.0.1:${port}/pkg.tgz`,
    () => 'http://169.254.169.254/latest/pkg.tgz',
    (port: number) => `http://localhost:${port}/pkg.tgz`,
  ])('a URL the SSRF guard refuses: %s (the server sees no request)', async (urlOf) => {
    const r = await call(tools.install, { source: urlOf(server.port) });
    expect(r).toMatchObject({ success: false, errorKind: 'denied' });
    expect(r.error).toContain('refused by the network guard');
    expect(server.connections).toBe(0);
    expect(internet.dialled).toEqual([]);
  });

  it('a URL carrying credentials, without repeating them', async () => {
    const r = await call(tools.install, { source: 'http://user:hunter2@skills.example/pkg.tgz' });
    expect(r).toMatchObject({ success: false, errorKind: 'denied' });
    expect(r.error).toContain('ssrf.userinfo');
    expect(r.error).not.toContain('hunter2');
    expect(server.connections).toBe(0);
  });

  it('a non-http URL scheme', async () => {
    const r = await call(tools.install, { source: 'file:///etc/passwd' });
    expect(r).toMatchObject({ success: false, errorKind: 'validation', error: 'source: only http(s) URLs can be installed from (got file:)' });
  });

  it('a local file that is not an archive', async () => {
    await writeFile(join(workspace, 'notes.txt'), 'x');
    const r = await call(tools.install, { source: 'notes.txt' });
    expect(r).toMatchObject({ success: false, errorKind: 'validation' });
    expect(r.error).toMatch(/^source: notes\.txt is not a directory/);
  });
});

describe('bad arguments are refused by the executor, naming the field', () => {
  it.each<[keyof typeof tools, Record<string, unknown>, string]>([
    ['install', {}, 'source: is required'],
    ['install', { source: 42 }, 'source: must be string'],
    ['install', { source: '' }, 'source: must NOT have fewer than 1 characters'],
    ['install', { source: 'x', force: true }, 'force: is not a known parameter'],
    ['manage', { action: 'explode', name: 'hello' }, 'action: expected one of enable, disable, remove'],
    ['manage', { action: 'enable' }, 'name: is required'],
    ['view', {}, 'name: is required'],
  ])('%s %j', async (which, params, message) => {
    const r = await call(tools[which], params);
    expect(r).toMatchObject({ success: false, errorKind: 'validation' });
    expect(r.error).toContain(message);
  });
});

describe('skill_manage, skills_list and skill_view', () => {
  beforeEach(async () => {
    await writePackage(join(workspace, 'm/hello'), { tools: ['read_file'] }, { 'SKILL.md': '# Hello\nUse it well.' });
    await writePackage(join(workspace, 'm/alpha'), { name: 'alpha', description: 'First' });
    for (const s of ['m/hello', 'm/alpha']) expect((await call(tools.install, { source: s })).success).toBe(true);
  });

  it('lists name, version, description and enabled, by name', async () => {
    expect((await call(tools.list, {})).output).toEqual({ skills: [
      { name: 'alpha', version: '1.0.0', description: 'First', enabled: true },
      { name: 'hello', version: '1.0.0', description: 'Says hello', enabled: true },
    ] });
  });

  it('disables and enables a skill', async () => {
    expect((await call(tools.manage, { action: 'disable', name: 'hello' })).output).toEqual({ name: 'hello', action: 'disable', enabled: false });
    expect((await rowOf('hello'))?.enabled).toBe(false);
    expect(((await call(tools.list, {})).output as { skills: { name: string; enabled: boolean }[] }).skills.find((s) => s.name === 'hello')?.enabled).toBe(false);
    expect((await call(tools.manage, { action: 'enable', name: 'hello' })).output).toEqual({ name: 'hello', action: 'enable', enabled: true });
    expect((await rowOf('hello'))?.enabled).toBe(true);
  });

  it('removes the row and the directory', async () => {
    const r = await call(tools.manage, { action: 'remove', name: 'hello' });
    expect(r.output).toEqual({ action: 'remove', name: 'hello', version: '1.0.0', dir_removed: true });
    expect(await rowOf('hello')).toBeUndefined();
    expect(await installedNames()).toEqual(['alpha']);
  });

  it.each(['enable', 'disable', 'remove'])('%s of an unknown skill is a business error', async (action) => {
    const r = await call(tools.manage, { action, name: 'ghost' });
    expect(r).toMatchObject({ success: false, errorKind: 'business', error: 'skill_manage: name: no skill named "ghost" is installed' });
  });

  it('views the manifest, SKILL.md, enabled and who installed it when', async () => {
    const r = await call(tools.view, { name: 'hello' });
    const row = await rowOf('hello');
    expect(r.output).toMatchObject({
      name: 'hello', version: '1.0.0', enabled: true, installed_by: 'alice', installed_at: row!.installed_at.toISOString(),
      manifest: { name: 'hello', version: '1.0.0', description: 'Says hello', tools: ['read_file'] },
      skill_md: '# Hello\nUse it well.', skill_md_truncated: false,
    });
    expect((await call(tools.view, { name: 'alpha' })).output).toMatchObject({ skill_md: null });
    expect(await call(tools.view, { name: 'ghost' })).toMatchObject({ success: false, errorKind: 'business', error: 'skill_view: name: no skill named "ghost" is installed' });
  });

  it('cuts a large SKILL.md to the size limit', async () => {
    await writePackage(join(workspace, 'm/big'), { name: 'big' }, { 'SKILL.md': 'x'.repeat(100 * 1024) });
    await call(tools.install, { source: 'm/big' });
    const out = (await call(tools.view, { name: 'big' })).output as { skill_md: string; skill_md_truncated: boolean };
    expect(out.skill_md.length).toBe(64 * 1024);
    expect(out.skill_md_truncated).toBe(true);
  });
});

describe('replay', () => {
  it('installs once across a call and its replay: the installed dir is not re-extracted', async () => {
    await writePackage(join(workspace, 'r'), { name: 'replayed' });
    const ledger = effectLedger(db().db);
    const params = { source: 'r' };
    const first = buildContext({ tool: 'skill_install', params, user_id: 'alice' });
    const r1 = await executeTool(tools.install, params, first, { ledger });
    expect(r1.success).toBe(true);
    const dir = (r1.output as { dir: string }).dir;
    await writeFile(join(dir, 'marker'), 'still here');
    const before = await rowOf('replayed');

    const replay = contextForCall(first, { tool: 'skill_install', callIndex: 0, params }, { is_replay: true });
    expect(replay.idempotency_key).toBe(first.idempotency_key);
    const r2 = await executeTool(tools.install, params, replay, { ledger });
    expect(r2).toEqual(r1);
    expect(await readFile(join(dir, 'marker'), 'utf8')).toBe('still here');
    expect((await rowOf('replayed'))?.installed_at).toEqual(before?.installed_at);
    expect(await db().db.select().from(toolEffects).where(eq(toolEffects.idempotency_key, first.idempotency_key))).toHaveLength(1);
  });

  it('a replay whose result was never recorded finds its install in place and reports it', async () => {
    await writePackage(join(workspace, 'r2'), { name: 'unrecorded' });
    const params = { source: 'r2' };
    const first = buildContext({ tool: 'skill_install', params });
    const r1 = await executeTool(tools.install, params, first);
    await writeFile(join((r1.output as { dir: string }).dir, 'marker'), 'x');
    const r2 = await executeTool(tools.install, params, contextForCall(first, { tool: 'skill_install', callIndex: 0, params }, { is_replay: true }));
    expect(r2).toEqual(r1);
    expect(await readFile(join((r1.output as { dir: string }).dir, 'marker'), 'utf8')).toBe('x');
  });
});
