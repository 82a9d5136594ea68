import { mkdir, mkdtemp, readdir, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { defaultConfig, type Config } from '../../src/config/schema.ts';
import { skillsDir } from '../../src/skills/dir.ts';
import { recoverSkillInstalls } from '../../src/skills/recover.ts';
import { upsertSkill } from '../../src/store/skills.ts';
import { useTestDatabase } from '../support/db.ts';
import { manifestJson } from './craft-tar.ts';

const database = useTestDatabase();
let config: Config;
let root: string;
beforeEach(async () => {
  config = defaultConfig({ skills: { dir: await mkdtemp(join(tmpdir(), 'echo-skills-recover-')) } });
  root = skillsDir(config);
});

async function pkg(dir: string, version: string, name = 'hello') {
  await mkdir(dir, { recursive: true });
  await writeFile(join(dir, 'skill.json'), manifestJson({ name, version }));
}
const installedVersion = async (name = 'hello') => JSON.parse(await readFile(join(root, name, 'skill.json'), 'utf8')).version as string;
const recorded = (name: string, version: string) => upsertSkill(database().db, {
  name, version, description: 'Says hello', dir: join(root, name), source: 'test', manifest: { name, version, description: 'Says hello' }, installed_by: 'test',
});

describe('recovering interrupted skill installs', () => {
  it('puts the recorded version back when the crash came after the swap and before the commit', async () => {
    await recorded('hello', '1.0.0');
    // the crash left 2.0.0 in place, 1.0.0 aside in the work dir, and the database still at 1.0.0
    await pkg(join(root, 'hello'), '2.0.0');
    await pkg(join(root, '.install-abc', 'previous'), '1.0.0');
    const out = await recoverSkillInstalls(config, database().db, { minAgeMs: 0 });
    expect(out).toEqual({ restored: [{ name: 'hello', version: '1.0.0' }], removed: ['.install-abc'], kept: [] });
    expect(await installedVersion()).toBe('1.0.0');
    expect(await readdir(root)).toEqual(['hello']);
  });

  it('puts back only the copy of the very record it replaced, not over the same version installed again since', async () => {
    const row = await recorded('hello', '1.0.0');
    await pkg(join(root, 'hello'), '2.0.0');
    await pkg(join(root, '.install-abc', 'previous'), '1.0.0');
    await writeFile(join(root, '.install-abc', 'replaces.json'), JSON.stringify({ version: '1.0.0', installed_at: row.installed_at.toISOString() }));
    // crashed while replacing an earlier 1.0.0; since then 1.0.0 was removed and installed afresh
    await pkg(join(root, '.install-old', 'previous'), '1.0.0');
    await writeFile(join(root, '.install-old', 'replaces.json'), JSON.stringify({ version: '1.0.0', installed_at: new Date(row.installed_at.getTime() - 3600_000).toISOString() }));
    const out = await recoverSkillInstalls(config, database().db, { minAgeMs: 0 });
    expect(out.restored).toEqual([{ name: 'hello', version: '1.0.0' }]);
    expect([...out.removed].sort()).toEqual(['.install-abc', '.install-old']);
    expect(await readdir(root)).toEqual(['hello']);
  });

  it('leaves the files of a later install of the same version in place', async () => {
    const row = await recorded('hello', '1.0.0');
    await pkg(join(root, 'hello'), '1.0.0');
    await writeFile(join(root, 'hello', 'fresh.txt'), 'the later install');
    await pkg(join(root, '.install-old', 'previous'), '1.0.0');
    await writeFile(join(root, '.install-old', 'replaces.json'), JSON.stringify({ version: '1.0.0', installed_at: new Date(row.installed_at.getTime() - 3600_000).toISOString() }));
    expect((await recoverSkillInstalls(config, database().db, { minAgeMs: 0 })).restored).toEqual([]);
    expect(await readFile(join(root, 'hello', 'fresh.txt'), 'utf8')).toBe('the later install');
  });

  it('keeps the new version when its record committed and only the clean-up was lost', async () => {
    await recorded('greet', '2.0.0');
    await pkg(join(root, 'greet'), '2.0.0', 'greet');
    await pkg(join(root, '.install-def', 'previous'), '1.0.0', 'greet');
    const out = await recoverSkillInstalls(config, database().db, { minAgeMs: 0 });
    expect(out.restored).toEqual([]);
    expect(await installedVersion('greet')).toBe('2.0.0');
    expect(await readdir(root)).toEqual(['greet']);
  });

  it('removes a work dir left in staging, but not one young enough to be a live install', async () => {
    await pkg(join(root, '.install-old', 'package'), '1.0.0', 'staged');
    expect((await recoverSkillInstalls(config, database().db)).removed).toEqual([]);
    expect(await readdir(root)).toEqual(['.install-old']);
    expect((await recoverSkillInstalls(config, database().db, { minAgeMs: 0 })).removed).toEqual(['.install-old']);
    expect(await readdir(root)).toEqual([]);
  });

  it('does nothing when the skills dir does not exist yet', async () => {
    const missing = defaultConfig({ skills: { dir: join(tmpdir(), `echo-no-skills-${Date.now()}`) } });
    expect(await recoverSkillInstalls(missing, database().db, { minAgeMs: 0 })).toEqual({ restored: [], removed: [], kept: [] });
  });

  it('two recoveries at once restore the skill once and never delete it', async () => {
    await recorded('twice', '1.0.0');
    await pkg(join(root, 'twice'), '2.0.0', 'twice');
    await pkg(join(root, '.install-ghi', 'previous'), '1.0.0', 'twice');
    const [a, b] = await Promise.all([0, 1].map(() => recoverSkillInstalls(config, database().db, { minAgeMs: 0 })));
    expect([...a!.restored, ...b!.restored]).toEqual([{ name: 'twice', version: '1.0.0' }]);
    expect(await installedVersion('twice')).toBe('1.0.0');
  });

  it('keeps a work dir whose previous version cannot be identified', async () => {
    await mkdir(join(root, '.install-jkl', 'previous'), { recursive: true });
    await writeFile(join(root, '.install-jkl', 'previous', 'skill.json'), '{ not json');
    const out = await recoverSkillInstalls(config, database().db, { minAgeMs: 0 });
    expect(out.removed).toEqual([]);
    expect(out.kept).toEqual([{ dir: '.install-jkl', why: expect.stringContaining('skill.json') }]);
    expect(await readdir(root)).toEqual(['.install-jkl']);
  });
});
