import { basename, dirname, resolve } from 'node:path';
import type { GuardFinding } from '../types.ts';
import { printable } from '../../util/printable.ts';
import { GIT_CONFIG_NAMES, gitConfigRunsCode } from '../shell/git-config-text.ts';
import { GIT_HOOKS_DIR } from '../shell/path-tables.ts';
import type { PathFs } from './real-path.ts';

/**
 * Writes into a git directory that its name does not show (shell/paths.ts judges `.git/config`, `.git/hooks`, `.git`
 * itself, `repo.git/config` and hook names by name): a gitfile (`sub/.git` holding `gitdir: ../gd`) makes any directory a
 * repository, and git runs what its config and hooks name on the next `git status` there. Judged two ways:
 * - a file named `config` (`config.worktree`) whose new text is git configuration that runs commands (gitConfigRunsCode),
 *   before any repository exists there;
 * - a `config` or anything under `hooks/` of a directory that holds a repository's HEAD and objects, whatever the text.
 * Both are path.credential_write (asked, refused unattended).
 */
export async function gitDirWrites(
  writes: readonly string[], texts: readonly string[], workspace: string, fs: PathFs,
): Promise<{ readonly path: string; readonly detail: string }[]> {
  const out: { path: string; detail: string }[] = [];
  const code = texts.map((t) => gitConfigRunsCode(t) ?? gitConfigRunsCode(unprefixed(t))).find((c) => c !== null) ?? null;
  for (const path of writes) {
    const abs = resolve(workspace, path);
    const name = basename(abs);
    if (GIT_CONFIG_NAMES.has(name) && code !== null) { out.push({ path, detail: `Its new text is git configuration that can run commands (${printable(code, 80)}).` }); continue; }
    const dir = GIT_CONFIG_NAMES.has(name) ? dirname(abs) : hooksOwner(abs);
    if (dir !== null && await isGitDir(dir, fs)) out.push({ path, detail: `${printable(dir, 200)} is a git directory (it holds HEAD and objects).` });
  }
  return out;
}

/** A diff's lines without their `+`, `-` or ` ` column, so a hunk's section headers and keys read as the file's. */
const unprefixed = (text: string): string => text.split('\n').map((l) => (/^[+ -](?![+-]{2} )/.test(l) ? l.slice(1) : l)).join('\n');

/** `DIR/hooks/…/NAME` → DIR; null when no `hooks` directory is above the file. */
function hooksOwner(abs: string): string | null {
  const segs = abs.split('/');
  const at = segs.lastIndexOf(GIT_HOOKS_DIR, segs.length - 2);
  return at > 0 ? segs.slice(0, at).join('/') || '/' : null;
}

/** Whether `dir` holds what makes git take it for a repository (HEAD, objects): probed through the injected realpath. */
async function isGitDir(dir: string, fs: PathFs): Promise<boolean> {
  const exists = (p: string): Promise<boolean> => fs.realpath(p).then(() => true, () => false);
  const [head, objects] = await Promise.all([exists(`${dir}/HEAD`), exists(`${dir}/objects`)]);
  return head && objects;
}

/** The finding for one such write. */
export const gitDirFinding = (w: { readonly path: string; readonly detail: string }, reason: string): GuardFinding =>
  ({ rule: 'path.credential_write', severity: 'ask', matched: printable(w.path, 300), reason: `${reason} ${w.detail}` });
