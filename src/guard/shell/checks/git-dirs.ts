import type { Emit, Invocation } from '../model.ts';
import { canonical, isCredentialFile, showCanon, type Canon } from '../paths.ts';
import { GIT_CONFIG_NAMES, gitConfigRunsCode } from '../git-config-text.ts';
import { staticOutput } from '../static-output.ts';
import { writeTargets } from './targets.ts';

/** Redirections that write a file (as checkRedirect's). */
const WRITES = new Set(['>', '>>', '>|', '&>', '&>>', '<>']);

const configName = (c: Canon | null): c is Canon => c !== null && c.segs.length > 0 && GIT_CONFIG_NAMES.has(c.segs[c.segs.length - 1]!);

/**
 * A file named like a git directory's config (`gd/config`) written with git configuration that runs commands, or with
 * text the guard cannot see (`cp x gd/config`): a gitfile (`.git` holding `gitdir: gd`) makes any directory a
 * repository, so its config runs on the next `git status` (shell.credential.write). Names judged by name alone
 * (`.git/config`, `repo.git/config`) are checkCredentialWrite's and checkRedirect's.
 */
export function checkGitConfigWrite(inv: Invocation, emit: Emit): void {
  const written: { path: Canon; text: string | null }[] = [];
  const output = staticOutput(inv);
  for (const r of inv.redirs) {
    if (!WRITES.has(r.op) || !r.target || !(r.fd === '' || r.fd === '1' || r.op.startsWith('&'))) continue;
    const c = canonical(r.target.v, r.cwd);
    if (configName(c)) written.push({ path: c, text: output });
  }
  for (const t of writeTargets(inv)) {
    // named as the destination (`cp x gd/config`), not a config copied into a directory under its own name (`cp .git/config /tmp/backup`)
    if (!configName(t.path) || !configName(canonical(t.arg.v, inv.cwd))) continue;
    // tee writes its stdin; the rest (cp, dd, sed -i, install) what the guard has not seen
    written.push({ path: t.path, text: inv.program === 'tee' ? inv.stdinText : null });
  }
  for (const w of written) {
    if (isCredentialFile(w.path)) continue;
    const code = w.text === null ? 'text the guard cannot see' : gitConfigRunsCode(w.text);
    if (code !== null) { emit('shell.credential.write', `${inv.text} → ${showCanon(w.path)} (${code})`); return; }
  }
}
