import { mkdir, mkdtemp, readFile, readdir, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'drizzle-orm';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { defaultConfig, type Config } from '../../src/config/schema.ts';
import { skillsDir } from '../../src/skills/dir.ts';
import { installSkill, type NetDeps } from '../../src/skills/install.ts';
import { recoverSkillInstalls } from '../../src/skills/recover.ts';
import { getSkill } from '../../src/store/skills.ts';
import { useTestDatabase } from '../support/db.ts';
import { manifestJson } from './craft-tar.ts';

const database = useTestDatabase();
// sources here are workspace directories: nothing goes to the network
const noNetwork = { lookup: async () => { throw new Error('no network in this test'); } } as unknown as NetDeps;
let config: Config;
let workspace: string;

beforeEach(async () => {
  const tmp = await mkdtemp(join(tmpdir(), 'echo-skills-install-'));
  workspace = join(tmp, 'ws');
  config = defaultConfig({ tools: { workspace, restrict_to_workspace: true }, skills: { dir: join(tmp, 'skills') } });
  await database().db.execute(sql`delete from skills`);
});
afterEach(async () => {
  await database().db.execute(sql`drop trigger if exists refuse_skill on skills`);
  await database().db.execute(sql`drop function if exists refuse_skill()`);
});

async function install(version: string, db = database().db) {
  const source = `pkg-${version}`;
  await mkdir(join(workspace, source), { recursive: true });
  await writeFile(join(workspace, source, 'skill.json'), manifestJson({ version }));
  return installSkill(config, db, noNetwork, { source, installedBy: 'alice', replay: false, signal: new AbortController().signal });
}

/** drizzle reports the query; PostgreSQL's own message is its cause. */
const refused = { cause: expect.objectContaining({ message: 'skill record refused' }) };

const filesVersion = async () => JSON.parse(await readFile(join(skillsDir(config), 'hello', 'skill.json'), 'utf8')).version as string;

/** A trigger that refuses the skill's record, when it is written or only at commit (a deferred constraint). */
async function refuseRecord(when: 'at write' | 'at commit') {
  const db = database().db;
  await db.execute(sql.raw(`create function refuse_skill() returns trigger language plpgsql as $$ begin raise exception 'skill record refused'; end $$`));
  await db.execute(sql.raw(when === 'at write'
    ? 'create trigger refuse_skill before insert or update on skills for each row execute function refuse_skill()'
    : 'create constraint trigger refuse_skill after insert or update on skills deferrable initially deferred for each row execute function refuse_skill()'));
}

/** The database handle with its n-th transaction (from 0) replaced. */
function withTransaction(n: number, replace: (real: () => Promise<unknown>) => Promise<unknown>) {
  const db = database().db;
  let calls = 0;
  return new Proxy(db, {
    get(target, prop, receiver) {
      if (prop !== 'transaction') return Reflect.get(target, prop, receiver);
      return (fn: Parameters<typeof db.transaction>[0]) => (calls++ === n ? replace(() => target.transaction(fn)) : target.transaction(fn));
    },
  });
}

describe('installing a skill whose record cannot be written', () => {
  for (const when of ['at write', 'at commit'] as const) {
    it(`refused ${when}: the previous version is back in place, as recorded, and no work dir is left`, async () => {
      await install('1.0.0');
      await refuseRecord(when);
      await expect(install('2.0.0')).rejects.toMatchObject(refused);
      expect((await getSkill(database().db, 'hello'))?.version).toBe('1.0.0');
      expect(await filesVersion()).toBe('1.0.0');
      expect(await readdir(skillsDir(config))).toEqual(['hello']);
    });

    it(`refused ${when} on a first install: no directory is left behind for a skill that is not recorded`, async () => {
      await refuseRecord(when);
      await expect(install('1.0.0')).rejects.toMatchObject(refused);
      expect(await getSkill(database().db, 'hello')).toBeNull();
      expect(await readdir(skillsDir(config))).toEqual([]);
    });
  }

  it('a commit that fails while the database cannot be asked again keeps the work dir, and recovery restores the recorded version', async () => {
    await install('1.0.0');
    await refuseRecord('at commit');
    // the database refuses the commit and then goes away before the install can settle its files
    const flaky = withTransaction(1, () => Promise.reject(new Error('connection lost')));
    await expect(install('2.0.0', flaky)).rejects.toMatchObject(refused);
    expect(await filesVersion()).toBe('2.0.0');
    expect((await readdir(skillsDir(config))).some((d) => d.startsWith('.install-'))).toBe(true);
    const recovered = await recoverSkillInstalls(config, database().db, { minAgeMs: 0 });
    expect(recovered.restored).toEqual([{ name: 'hello', version: '1.0.0' }]);
    expect(await filesVersion()).toBe('1.0.0');
  });

  it('a commit that went through but whose answer was lost keeps the new version, as recorded', async () => {
    await install('1.0.0');
    const lostAnswer = withTransaction(0, (real) => real().then(() => { throw new Error('connection lost'); }));
    await expect(install('2.0.0', lostAnswer)).rejects.toThrow('connection lost');
    expect((await getSkill(database().db, 'hello'))?.version).toBe('2.0.0');
    expect(await filesVersion()).toBe('2.0.0');
    expect(await readdir(skillsDir(config))).toEqual(['hello']);
  });
});
