import { isAbsolute, join, normalize } from 'node:path';
import { parsePatch, type StructuredPatch } from 'diff';

/*
 * Which files a unified diff changes, parsed without touching them: the patch tool plans its writes from it, and the
 * guard (src/guard/index.ts) judges the same files before the call, without loading the tool's file I/O.
 */

const DEV_NULL = '/dev/null';

export type Action = 'created' | 'modified' | 'deleted';

export interface Section {
  readonly path: string;
  readonly action: Action;
  readonly patch: StructuredPatch;
}

function stripPrefix(name: string | undefined, prefix: string): string | undefined {
  if (name === undefined || name === DEV_NULL) return name;
  return name.startsWith(prefix) ? name.slice(prefix.length) : name;
}

/** Which file each part of the diff changes, and how; a message when the diff cannot be applied as given. */
export function sectionsOf(diff: string): Section[] | string {
  let parsed: StructuredPatch[];
  try {
    parsed = parsePatch(diff);
  } catch (err) {
    return `malformed unified diff: ${(err as Error).message}`;
  }
  const sections: Section[] = [];
  const seen = new Set<string>();
  for (const p of parsed) {
    if (p.hunks.length === 0 && p.oldFileName === undefined && p.newFileName === undefined) continue; // prose between sections
    if (p.hunks.some((h) => [h.oldStart, h.oldLines, h.newStart, h.newLines].some((n) => !Number.isInteger(n)))) return 'malformed unified diff: a hunk header is not "@@ -a,b +c,d @@"';
    if (p.oldFileName === undefined || p.newFileName === undefined) return 'hunks without "--- a/file" and "+++ b/file" headers; cannot tell which file they change';
    if (p.isBinary) return `binary patches are not supported (${p.newFileName})`;
    if (p.isRename || p.isCopy) return `renames and copies are not supported (${p.oldFileName} -> ${p.newFileName})`;
    const oldName = p.isCreate ? DEV_NULL : stripPrefix(p.oldFileName, 'a/')!;
    const newName = p.isDelete ? DEV_NULL : stripPrefix(p.newFileName, 'b/')!;
    if (oldName === DEV_NULL && newName === DEV_NULL) return 'a section has /dev/null as both its old and its new file';
    if (oldName !== DEV_NULL && newName !== DEV_NULL && oldName !== newName) {
      return `the old and new file names differ (--- ${p.oldFileName}, +++ ${p.newFileName}); renames are not supported and the file to change is ambiguous`;
    }
    const path = newName === DEV_NULL ? oldName : newName;
    const action: Action = oldName === DEV_NULL ? 'created' : newName === DEV_NULL ? 'deleted' : 'modified';
    if (path === '' || isAbsolute(path) || normalize(path).split(/[\\/]/)[0] === '..') return `${path || '(empty name)'}: file names must be relative to root and stay inside it`;
    if (p.hunks.length === 0 && action === 'modified') return `${path}: has no hunks (mode-only changes are not supported)`;
    const key = normalize(path);
    if (seen.has(key)) return `${path} appears in more than one section; give each file's hunks in one section`;
    seen.add(key);
    sections.push({ path, action, patch: p });
  }
  if (sections.length === 0) return 'contains no file changes (expected "--- a/file", "+++ b/file" and "@@" hunks)';
  return sections;
}

/** The files a diff changes, joined to `root` as given: for a guard that wants to judge them before the call. */
export function patchPaths(diff: string, root = '.'): string[] | null {
  const sections = sectionsOf(diff);
  return typeof sections === 'string' ? null : sections.map((s) => join(root, s.path));
}
