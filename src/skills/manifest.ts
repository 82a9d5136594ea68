import { constants } from 'node:fs';
import { lstat, open, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import type { SkillManifest } from '../store/catalog-schema.ts';
import { normalisePackagePath, packagePathProblem } from './limits.ts';

export const MANIFEST_FILE = 'skill.json';
export const SKILL_DOC_FILE = 'SKILL.md';
export const MANIFEST_MAX_BYTES = 64 * 1024;
export const SKILL_NAME = /^[a-z][a-z0-9-]{0,62}$/;
// semver 2.0 core, pre-release and build metadata
const VERSION = /^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(-[0-9A-Za-z-]+(\.[0-9A-Za-z-]+)*)?(\+[0-9A-Za-z-]+(\.[0-9A-Za-z-]+)*)?$/;

const text = () => z.string({ error: (i) => (i.input === undefined ? 'is required' : 'must be a string') });

const manifestSchema = z.looseObject({
  name: text().regex(SKILL_NAME, `must match ${SKILL_NAME.source}`),
  version: text().max(64, 'must be at most 64 characters').regex(VERSION, 'must be a semantic version such as 1.2.0'),
  description: text().min(1, 'must not be empty').max(1000, 'must be at most 1000 characters'),
  entry: text().superRefine((p, c) => {
    const problem = packagePathProblem(p) ?? (normalisePackagePath(p) === '' ? 'names no file' : null);
    if (problem) c.addIssue({ code: 'custom', message: `must be a relative path inside the package (it ${problem})` });
  }).optional(),
  tools: z.array(text().min(1, 'must not be empty').max(64, 'must be at most 64 characters'), { error: 'must be an array of strings' })
    .max(100, 'must list at most 100 tools').optional(),
}, { error: 'must be a JSON object' });

export type ManifestResult = { ok: true; manifest: SkillManifest } | { ok: false; problems: string[] };

/** Parses skill.json text; every problem names its JSON path (`skill.json: name: must match …`). */
export function parseManifest(source: string): ManifestResult {
  let data: unknown;
  try {
    data = JSON.parse(source);
  } catch (err) {
    return { ok: false, problems: [`${MANIFEST_FILE}: is not valid JSON (${(err as Error).message})`] };
  }
  const r = manifestSchema.safeParse(data);
  if (r.success) return { ok: true, manifest: r.data as SkillManifest };
  return {
    ok: false,
    problems: r.error.issues.map((i) => `${MANIFEST_FILE}: ${i.path.length ? `${i.path.map(String).join('.')}: ` : ''}${i.message}`),
  };
}

const isPlainFile = async (path: string): Promise<boolean> => (await lstat(path).catch(() => null))?.isFile() ?? false;

/**
 * Where the package is in an unpacked tree: its root, or the single top-level directory an archive made
 * with `tar czf pkg.tgz my-skill/` has. Null when neither holds a skill.json.
 */
export async function findPackageRoot(staged: string): Promise<string | null> {
  if (await isPlainFile(join(staged, MANIFEST_FILE))) return staged;
  const top = await readdir(staged, { withFileTypes: true });
  const only = top.length === 1 ? top[0] : undefined;
  if (only?.isDirectory() && (await isPlainFile(join(staged, only.name, MANIFEST_FILE)))) return join(staged, only.name);
  return null;
}

/** Reads at most `max` bytes of a regular file (never through a symlink); null when it is absent or not a file. */
export async function readLimited(path: string, max: number): Promise<{ text: string; truncated: boolean; size: number } | null> {
  const handle = await open(path, constants.O_RDONLY | constants.O_NOFOLLOW).catch(() => null);
  if (!handle) return null;
  try {
    const info = await handle.stat();
    if (!info.isFile()) return null;
    const buf = Buffer.alloc(Math.min(info.size, max));
    const { bytesRead } = await handle.read(buf, 0, buf.length, 0);
    return { text: buf.subarray(0, bytesRead).toString('utf8'), truncated: info.size > max, size: info.size };
  } finally {
    await handle.close();
  }
}

/** The manifest of an unpacked package, checked against the package's files (the entry must exist). */
export async function loadManifest(root: string): Promise<ManifestResult> {
  const file = await readLimited(join(root, MANIFEST_FILE), MANIFEST_MAX_BYTES);
  if (!file) return { ok: false, problems: [`${MANIFEST_FILE}: not found at the package root`] };
  if (file.truncated) return { ok: false, problems: [`${MANIFEST_FILE}: is larger than ${MANIFEST_MAX_BYTES} bytes`] };
  const parsed = parseManifest(file.text);
  if (!parsed.ok) return parsed;
  const entry = parsed.manifest.entry;
  if (entry !== undefined && !(await isPlainFile(join(root, normalisePackagePath(entry))))) {
    return { ok: false, problems: [`${MANIFEST_FILE}: entry: ${JSON.stringify(entry)} is not a file of the package`] };
  }
  return parsed;
}
