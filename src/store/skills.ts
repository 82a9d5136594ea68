import { asc, eq, sql } from 'drizzle-orm';
import { skills, type SkillManifest, type SkillRow } from './catalog-schema.ts';
import type { Executor } from './db.ts';

export interface SkillRecord {
  readonly name: string;
  readonly version: string;
  readonly description: string;
  readonly dir: string;
  readonly source: string;
  readonly manifest: SkillManifest;
  readonly installed_by: string;
}

export async function getSkill(exec: Executor, name: string): Promise<SkillRow | null> {
  const [row] = await exec.select().from(skills).where(eq(skills.name, name));
  return row ?? null;
}

export async function listSkills(exec: Executor): Promise<SkillRow[]> {
  return exec.select().from(skills).orderBy(asc(skills.name));
}

/** Serialises installs and removals of one name until the surrounding transaction ends. */
export async function lockSkillName(exec: Executor, name: string): Promise<void> {
  await exec.execute(sql`select pg_advisory_xact_lock(hashtext(${`skill:${name}`}))`);
}

/** A new install, or a new version over an old one (installed_at now; a disabled skill stays disabled). */
export async function upsertSkill(exec: Executor, rec: SkillRecord): Promise<SkillRow> {
  const values = { ...rec, installed_at: sql`now()`, updated_at: sql`now()` };
  const [row] = await exec.insert(skills).values(values).onConflictDoUpdate({ target: skills.name, set: values }).returning();
  return row!;
}

export async function setSkillEnabled(exec: Executor, name: string, enabled: boolean): Promise<SkillRow | null> {
  const [row] = await exec.update(skills).set({ enabled, updated_at: sql`now()` }).where(eq(skills.name, name)).returning();
  return row ?? null;
}

export async function deleteSkill(exec: Executor, name: string): Promise<SkillRow | null> {
  const [row] = await exec.delete(skills).where(eq(skills.name, name)).returning();
  return row ?? null;
}
