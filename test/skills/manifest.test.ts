import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { defaultConfig } from '../../src/config/schema.ts';
import { skillsDir } from '../../src/skills/dir.ts';
import { findPackageRoot, loadManifest, parseManifest } from '../../src/skills/manifest.ts';
import { manifestJson } from './craft-tar.ts';

describe('parseManifest', () => {
  it('accepts a complete manifest and keeps extra fields', () => {
    const r = parseManifest(manifestJson({ version: '2.1.0-beta.1+build.5', entry: 'bin/run.sh', tools: ['read_file'], homepage: 'x' }));
    expect(r).toEqual({ ok: true, manifest: expect.objectContaining({ name: 'hello', version: '2.1.0-beta.1+build.5', entry: 'bin/run.sh', tools: ['read_file'], homepage: 'x' }) });
  });

  it.each([
    [{ name: 'Bad_Name' }, 'skill.json: name: must match ^[a-z][a-z0-9-]{0,62}$'],
    [{ name: 'a'.repeat(64) }, 'skill.json: name: must match'],
    [{ name: 7 }, 'skill.json: name: must be a string'],
    [{ version: undefined }, 'skill.json: version: is required'],
    [{ version: 'latest' }, 'skill.json: version: must be a semantic version'],
    [{ version: '1.0' }, 'skill.json: version: must be a semantic version'],
    [{ description: '' }, 'skill.json: description: must not be empty'],
    [{ entry: '../outside.js' }, 'skill.json: entry: must be a relative path inside the package (it has a ".." component)'],
    [{ entry: '/usr/bin/env' }, 'skill.json: entry: must be a relative path inside the package (it is an absolute path)'],
    [{ tools: 'read_file' }, 'skill.json: tools: must be an array of strings'],
    [{ tools: ['ok', 3] }, 'skill.json: tools.1: must be a string'],
  ])('names the field of %j', (over, message) => {
    const r = parseManifest(manifestJson(over));
    expect(r.ok).toBe(false);
    expect(r.ok ? [] : r.problems.join('; ')).toContain(message);
  });

  it('reports every problem, not just the first', () => {
    const r = parseManifest(JSON.stringify({ name: 'X' }));
    expect(r.ok ? [] : r.problems).toEqual([
      expect.stringContaining('skill.json: name:'),
      'skill.json: version: is required',
      'skill.json: description: is required',
    ]);
  });

  it.each([['[1, 2]', 'skill.json: must be a JSON object'], ['{ nope', 'skill.json: is not valid JSON']])('refuses %s', (text, message) => {
    const r = parseManifest(text);
    expect(r.ok ? '' : r.problems[0]).toContain(message);
  });
});

describe('package layout', () => {
  let tmp: string;
  beforeEach(async () => {
    tmp = await mkdtemp(join(tmpdir(), 'skills-manifest-'));
  });
  afterEach(async () => {
    await rm(tmp, { recursive: true, force: true });
  });

  it('finds skill.json at the root or in a single top-level directory', async () => {
    await writeFile(join(tmp, 'skill.json'), manifestJson());
    expect(await findPackageRoot(tmp)).toBe(tmp);
    const nested = join(tmp, 'nested');
    await mkdir(join(nested, 'my-skill'), { recursive: true });
    await writeFile(join(nested, 'my-skill', 'skill.json'), manifestJson());
    expect(await findPackageRoot(nested)).toBe(join(nested, 'my-skill'));
    await mkdir(join(nested, 'second'));
    expect(await findPackageRoot(nested)).toBeNull();
  });

  it('requires the entry file to be in the package', async () => {
    await writeFile(join(tmp, 'skill.json'), manifestJson({ entry: 'run.js' }));
    expect(await loadManifest(tmp)).toEqual({ ok: false, problems: ['skill.json: entry: "run.js" is not a file of the package'] });
    await writeFile(join(tmp, 'run.js'), '');
    expect((await loadManifest(tmp)).ok).toBe(true);
  });
});

describe('skillsDir', () => {
  it('is skills.dir, or <daemon.data_dir>/skills when that is empty, as an absolute path', () => {
    expect(skillsDir(defaultConfig({ skills: { dir: '/srv/skills' } }))).toBe('/srv/skills');
    expect(skillsDir(defaultConfig({ daemon: { data_dir: '/var/lib/echo' } }))).toBe('/var/lib/echo/skills');
    expect(skillsDir(defaultConfig())).toBe(join(process.cwd(), 'data', 'skills'));
  });
});
