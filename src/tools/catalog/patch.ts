import { rm, stat, unlink } from 'node:fs/promises';
import { resolve } from 'node:path';
import { applyPatch, reversePatch, type StructuredPatch } from 'diff';
import { sectionsOf, type Action, type Section } from '../patch-sections.ts';
import type { Config } from '../../config/schema.ts';
import { defineTool } from '../define.ts';
import { fail, ok, type ToolResult } from '../types.ts';
import { stoppedByAbort } from './abort.ts';
import { editableText } from './read-file.ts';
import { atomicWrite, PathChangedError } from './write-file.ts';
import { confine, inWorkspace, openConfined } from './workspace-files.ts';

// the guard imports them from the pure module; kept here for the tool's callers
export { patchPaths, sectionsOf } from '../patch-sections.ts';

/** One file of the diff, checked and computed, before anything is written. */
interface Plan {
  readonly path: string;
  readonly abs: string;
  readonly action: Action;
  readonly hunks: number;
  /** null: the file does not exist now. */
  readonly before: string | null;
  /** null: the file is to be deleted. */
  readonly after: string | null;
  /** Found already in its patched state on a replay: nothing to write. */
  readonly already: boolean;
}

const bad = (message: string) => fail('validation', `diff: ${message}`);

const hunkHeader = (h: StructuredPatch['hunks'][number]) => `@@ -${h.oldStart},${h.oldLines} +${h.newStart},${h.newLines} @@`;

/** The first hunk that does not apply: hunks are fitted in order, so the shortest failing prefix ends with it. */
function failingHunk(source: string, patch: StructuredPatch): number {
  for (let k = 1; k < patch.hunks.length; k++) {
    if (applyPatch(source, { ...patch, hunks: patch.hunks.slice(0, k) }) === false) return k - 1;
  }
  return patch.hunks.length - 1;
}

async function current(config: Config, abs: string, shown: string): Promise<string | null | ToolResult> {
  const max = config.tools.read_max_bytes;
  const info = await stat(abs).catch((err: NodeJS.ErrnoException) => (err.code === 'ENOENT' || err.code === 'ENOTDIR' ? null : err));
  if (info === null) return null;
  if (info instanceof Error) return fail('business', `patch: cannot read ${shown}: ${info.code ?? info.message}`);
  if (!info.isFile()) return fail('business', `patch: ${shown} is not a regular file`);
  if (info.size > max) return fail('business', `patch: ${shown} is ${info.size} bytes, over the ${max}-byte size limit (tools.read_max_bytes)`);
  const opened = await openConfined(config, abs);
  if ('refused' in opened) return opened.refused;
  const bytes = await opened.handle.readFile().finally(() => opened.handle.close());
  // decoding invalid bytes as U+FFFD and writing the result back would corrupt the file
  const decoded = editableText(bytes);
  if ('problem' in decoded) return fail('business', `patch: ${shown} ${decoded.problem}; patch changes UTF-8 text only, so nothing was written; convert it to UTF-8 first, or change it with a program made for its format`);
  return decoded.text;
}

async function plan(config: Config, rootAbs: string, s: Section, replay: boolean): Promise<Plan | ToolResult> {
  const abs = resolve(rootAbs, s.path);
  const refused = await confine(config, { read: [abs], write: [abs] });
  if (refused) return refused;
  const before = await current(config, abs, s.path);
  if (typeof before === 'object' && before !== null) return before;
  const base = { path: s.path, abs, action: s.action, hunks: s.patch.hunks.length, before };
  const applied = (after: string | null): Plan => ({ ...base, after, already: false });
  const alreadyDone = (): Plan => ({ ...base, after: before, already: true });
  const nothing = 'nothing was written';
  if (s.action === 'created') {
    const created = applyPatch('', s.patch);
    if (created === false) return fail('business', `patch: ${s.path}: hunk 1 of ${s.patch.hunks.length} does not create a file; ${nothing}`);
    if (before === null) return applied(created);
    if (replay && before === created) return alreadyDone();
    return fail('business', `patch: ${s.path} already exists, but the diff creates it (--- /dev/null); ${nothing}`);
  }
  if (before === null) {
    if (replay && s.action === 'deleted') return alreadyDone();
    return fail('business', `patch: ${s.path} does not exist; ${nothing}`);
  }
  const after = applyPatch(before, s.patch);
  if (after === false) {
    if (replay && s.action === 'modified' && applyPatch(before, reversePatch(s.patch)) !== false) return alreadyDone();
    const k = failingHunk(before, s.patch);
    const h = s.patch.hunks[k]!;
    return fail('business', `patch: hunk ${k + 1} of ${s.patch.hunks.length} (${hunkHeader(h)}) does not apply to ${s.path}: its context or removed lines are not in the file; read the file and make the diff again; ${nothing}`);
  }
  if (s.action === 'deleted') {
    if (after !== '') return fail('business', `patch: ${s.path}: the diff deletes the file but does not remove all of its content; ${nothing}`);
    return applied(null);
  }
  return applied(after);
}

async function put(config: Config, p: Plan, content: string | null): Promise<void> {
  if (content === null) await rm(p.abs, { force: true });
  else await atomicWrite(p.abs, content, config);
}

/**
 * Writes every plan, or none: on a failed write, or when `signal` fires before the last file is written,
 * the files already written get their old content back.
 */
async function writeAll(config: Config, plans: readonly Plan[], signal: AbortSignal): Promise<ToolResult | null> {
  const done: Plan[] = [];
  for (const p of plans) {
    if (p.already) continue;
    try {
      signal.throwIfAborted();
      if (p.after === null) await unlink(p.abs);
      else await atomicWrite(p.abs, p.after, config, signal);
      done.push(p);
    } catch (err) {
      const moved = err instanceof PathChangedError;
      const why = moved ? PathChangedError.DETAIL : (err as NodeJS.ErrnoException).code ?? (err as Error).message;
      const unrestored: string[] = [];
      // not under the signal: putting the old content back is what a cancelled call must still finish
      for (const d of done.reverse()) await put(config, d, d.before).catch(() => unrestored.push(d.path));
      const state = unrestored.length === 0
        ? 'the files written before it were restored; nothing changed'
        : `restoring ${unrestored.join(', ')} failed as well; check them`;
      if (signal.aborted && !moved) return stoppedByAbort('patch', signal, `${p.path} was not written; ${state}`);
      // a refusal is not retried: the path leads somewhere else now
      return fail(moved ? 'denied' : 'internal', `patch: writing ${p.path} failed (${why}); ${state}`);
    }
  }
  return null;
}

export function patchTool(config: Config) {
  return defineTool('patch', config, {
    async execute(params, ctx, { signal }): Promise<ToolResult> {
      const root = typeof params.root === 'string' ? params.root : '.';
      // root is only where names start; each file is checked for reading and writing on its own
      const refused = await confine(config, { read: [root] });
      if (refused) return refused;
      const rootAbs = inWorkspace(config, root);
      const rootInfo = await stat(rootAbs).catch(() => null);
      if (!rootInfo?.isDirectory()) return fail('business', `patch: root: ${root} is not a directory`);
      const sections = sectionsOf(String(params.diff));
      if (typeof sections === 'string') return bad(sections);
      const plans: Plan[] = [];
      for (const s of sections) {
        const p = await plan(config, rootAbs, s, ctx?.is_replay === true);
        if ('success' in p) return p;
        plans.push(p);
      }
      const failed = await writeAll(config, plans, signal);
      if (failed) return failed;
      return ok({
        root,
        files: plans.map((p) => ({ path: p.path, action: p.action, hunks: p.hunks, ...(p.already ? { already_applied: true } : {}) })),
      });
    },
  });
}
