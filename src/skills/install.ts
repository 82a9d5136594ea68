import { mkdir, mkdtemp, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Config } from '../config/schema.ts';
import type { SkillManifest } from '../store/catalog-schema.ts';
import type { Executor } from '../store/db.ts';
import { getSkill, lockSkillName, upsertSkill } from '../store/skills.ts';
import { skillsDir } from './dir.ts';
import { Budget, PackageRefused } from './limits.ts';
import { findPackageRoot, loadManifest, MANIFEST_FILE } from './manifest.ts';
import { InstallError, stageSource, type NetDeps } from './source.ts';

export { InstallError, type NetDeps } from './source.ts';

export interface InstallRequest {
  readonly source: string;
  readonly installedBy: string;
  /** A replayed call finds its own earlier install in place and reports it instead of refusing. */
  readonly replay: boolean;
  readonly signal: AbortSignal;
}

export interface Installed {
  readonly name: string;
  readonly version: string;
  readonly dir: string;
}

/** Temp work dirs start with '.', which no skill name can, so they never collide with an installed skill. */
export const WORK_PREFIX = '.install-';

/** In a work dir: the record its `previous` copy belongs to, so recovery never restores it over a later install. */
export const REPLACES_FILE = 'replaces.json';

export interface Replaces {
  readonly version: string;
  /** The replaced record's installed_at, on the database clock. */
  readonly installed_at: string;
}

/**
 * Installs a skill package: unpacks it into a temp dir inside the skills dir, validates it, then renames it
 * into `<skills dir>/<name>` and records it, under a per-name lock. A previous version is moved aside first
 * and deleted only once the new one is in place and recorded; a failure puts it back, under the lock.
 * Throws InstallError / PackageRefused.
 */
export async function installSkill(config: Config, db: Executor, net: NetDeps, req: InstallRequest): Promise<Installed> {
  const root = skillsDir(config);
  await mkdir(root, { recursive: true });
  const work = await mkdtemp(join(root, WORK_PREFIX));
  let keep = false;
  try {
    const staged = join(work, 'package');
    await mkdir(staged);
    const source = await stageSource(config, net, req.source, staged, new Budget(config.skills.max_archive_bytes), req.signal);
    const pkg = await findPackageRoot(staged);
    if (!pkg) throw new PackageRefused(`${MANIFEST_FILE}: not found at the package root`);
    const loaded = await loadManifest(pkg);
    if (!loaded.ok) throw new PackageRefused(loaded.problems.join('; '));
    if (req.signal.aborted) throw req.signal.reason instanceof Error ? req.signal.reason : new Error('aborted');
    return await place(db, { root, work, pkg, source, manifest: loaded.manifest, installedBy: req.installedBy, replay: req.replay });
  } catch (err) {
    if (err instanceof KeepWorkDir) {
      keep = true;
      throw err.original;
    }
    throw err;
  } finally {
    if (!keep) await rm(work, { recursive: true, force: true });
  }
}

interface Placement {
  readonly root: string;
  readonly work: string;
  readonly pkg: string;
  readonly source: string;
  readonly manifest: SkillManifest;
  readonly installedBy: string;
  readonly replay: boolean;
}

async function place(db: Executor, p: Placement): Promise<Installed> {
  const { name, version, description } = p.manifest;
  const dir = join(p.root, name);
  const aside = join(p.work, 'previous');
  let swapped = false;
  try {
    return await db.transaction(async (tx) => {
      await lockSkillName(tx, name);
      const existing = await getSkill(tx, name);
      if (existing?.version === version) {
        if (p.replay) return { name, version, dir: existing.dir };
        throw new InstallError('business', `skill_install: ${name} ${version} is already installed`);
      }
      if (existing) {
        const replaces: Replaces = { version: existing.version, installed_at: existing.installed_at.toISOString() };
        await writeFile(join(p.work, REPLACES_FILE), JSON.stringify(replaces));
      }
      const undo = await swapIn(p.pkg, dir, aside);
      swapped = true;
      try {
        await upsertSkill(tx, { name, version, description, dir, source: p.source, manifest: p.manifest, installed_by: p.installedBy });
      } catch (err) {
        // still under the name's lock: nobody else can have touched the dir
        await undo();
        swapped = false;
        throw err;
      }
      return { name, version, dir };
    });
  } catch (err) {
    // the commit itself failed, so the lock is gone and the outcome may be unknown: settle the files with
    // what the database records, under the lock again; if that cannot be done now, recovery does it later
    if (swapped) await settleFailedCommit(db, { name, version, dir, aside }).catch(() => { throw new KeepWorkDir(err); });
    throw err;
  }
}

/** Thrown when a failed install's work dir must stay for recoverSkillInstalls: it may hold the only copy of the recorded version. */
class KeepWorkDir extends Error {
  constructor(readonly original: unknown) {
    super('skill_install: work dir kept for recovery');
  }
}

async function settleFailedCommit(db: Executor, s: { name: string; version: string; dir: string; aside: string }): Promise<void> {
  await db.transaction(async (tx) => {
    await lockSkillName(tx, s.name);
    const recorded = await getSkill(tx, s.name);
    if (recorded?.version === s.version) return; // it committed after all
    await rm(s.dir, { recursive: true, force: true });
    // the previous version, when there was one, is the one still recorded
    await rename(s.aside, s.dir).catch((err: NodeJS.ErrnoException) => { if (err.code !== 'ENOENT') throw err; });
  });
}

/**
 * Renames `fresh` to `dir`, first moving any old `dir` to `aside` (each rename atomic, so `dir` is always
 * a whole package, absent only between the two). Returns how to undo it.
 */
async function swapIn(fresh: string, dir: string, aside: string): Promise<() => Promise<void>> {
  let movedOld = false;
  try {
    await rename(dir, aside);
    movedOld = true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
  try {
    await rename(fresh, dir);
  } catch (err) {
    if (movedOld) await rename(aside, dir);
    throw err;
  }
  return async () => {
    await rename(dir, fresh);
    if (movedOld) await rename(aside, dir);
  };
}
