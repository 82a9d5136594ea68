import { has, parseOptions } from '../flags.ts';
import { isLister } from '../listers.ts';
import type { Emit, Invocation } from '../model.ts';
import { deleteClass, inSystemDir, showCanon } from '../paths.ts';
import { SOURCE_REMOVERS, TREE_COPIES } from '../program-tables.ts';
import { literal } from '../values.ts';
import { RULE, findDeletes } from './delete.ts';
import { treeSources } from './targets.ts';

/**
 * Programs that delete what they read (`tar --remove-files`, `zip -m`, `rsync --remove-source-files`, `7z a -sdel`, and
 * mv) destroy it like `rm -rf`: a protected tree given whole (`zip -rm x.zip ~`), or the names a lister prints over one
 * (`find ~ | zip -m -@ x.zip`, `find / | xargs mv -t /tmp/x`). Moving workspace files is ordinary, so only protected
 * places count (a narrowed listing of one asks, as `find / -name x | xargs rm` does).
 */
export function checkSourceDeletes(inv: Invocation, emit: Emit): void {
  const mv = inv.program === 'mv';
  if (!mv && !removesSources(inv)) return;
  // mv's own operands: checkMove; rsync --files-from: the operand is only the base its names are relative to
  const named = mv || (inv.program === 'rsync' && has(parseOptions(inv.args, TREE_COPIES.rsync!.spec), 'files-from'));
  for (const t of named ? [] : treeSources(inv)) {
    const cls = t.path && deleteClass(t.path);
    if (t.path && cls) { emit(RULE[cls], `${inv.text} → ${showCanon(t.path)} (deletes what it reads)`); return; }
  }
  // one file (or a directory read without recursion) inside a system directory, as `rm /etc/passwd`
  const file = named ? undefined : treeSources(inv, true).find((t) => t.path && inSystemDir(t.path));
  if (file) { emit('shell.rm.system_file', `${inv.text} → ${showCanon(file.path!)} (deletes what it reads)`); return; }
  const listers = [...(inv.appendsArgs ? inv.upstream : []), ...(inv.listedBy ?? [])].filter(isLister);
  for (const lister of new Set(listers)) findDeletes(lister, `${lister.text} | ${inv.text}`, emit, true);
}

function removesSources(inv: Invocation): boolean {
  const r = SOURCE_REMOVERS[inv.program];
  if (!r) return false;
  if (r.word) return inv.args.some((a) => r.word!.test(literal(a.v) ?? ''));
  return has(parseOptions(inv.args, TREE_COPIES[inv.program]?.spec ?? {}), ...(r.options ?? []));
}
