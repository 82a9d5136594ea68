import { gitGrepPagers, preprocessor } from '../embedded-code.ts';
import { has, hasFamily, parseOptions, type OptionSpec } from '../flags.ts';
import type { Arg, Emit, Invocation } from '../model.ts';
import { canonical, deleteClass, inSystemDir, showCanon, type Canon, type DeleteClass } from '../paths.ts';
import { innermostProgram, programName } from '../unwrap.ts';
import { TRANSFER_OPTIONS } from '../program-tables.ts';
import { literal } from '../values.ts';
import { fdCommands, fdNarrowed, isLister, listerNarrowed, listerStarts, treeNarrowed } from '../listers.ts';
import { ugrepFilters } from '../ugrep.ts';
import { treeSources } from './targets.ts';

const RM: OptionSpec = { alias: { R: 'r', recursive: 'r', force: 'f', dir: 'd', verbose: 'v' } };
export const RULE: Record<DeleteClass, string> = {
  root: 'shell.rm.recursive_root',
  system: 'shell.rm.recursive_system_path',
  home: 'shell.rm.recursive_home',
};
const DELETERS = new Set(['rm', 'rmdir', 'unlink', 'shred', 'srm', 'trash', 'trash-put', 'gio']);
/** find predicates that narrow what is deleted (so not "everything below"). */
const FIND_FILTERS = new Set(['-name', '-iname', '-path', '-ipath', '-wholename', '-iwholename', '-regex', '-iregex', '-newer', '-mtime', '-mmin', '-atime', '-amin', '-ctime', '-cmin', '-size', '-user', '-group', '-perm', '-empty', '-links', '-inum', '-samefile', '-lname', '-ilname', '-uid', '-gid', '-nouser', '-nogroup', '-used']);

/** Package runners that fetch a package and run its program, with the verb that makes them (`pnpm dlx`). */
const PACKAGE_RUNNERS: Readonly<Record<string, readonly string[]>> = { npx: [], pnpx: [], bunx: [], pnpm: ['dlx'], yarn: ['dlx'], bun: ['x'] };
const RIMRAF = /^rimraf(?:@[^/\s]*)?$/;

/** What rimraf (node's `rm -rf`) deletes, run alone or fetched (`npx rimraf DIR`, `pnpm dlx rimraf DIR`); null when it does not run. */
function rimrafOperands(inv: Invocation): readonly Arg[] | null {
  let args = inv.args;
  if (inv.program !== 'rimraf') {
    const verb = Object.hasOwn(PACKAGE_RUNNERS, inv.program) ? PACKAGE_RUNNERS[inv.program]! : null;
    if (!verb || !verb.every((w, i) => literal(args[i]?.v ?? '') === w)) return null;
    args = args.slice(verb.length);
    // the runner's own options (`-y`, `--yes`); `-p PKG` leaves its value as an operand of rimraf, which names no protected path
    const at = args.findIndex((a) => !(literal(a.v) ?? '-').startsWith('-'));
    if (at < 0 || !RIMRAF.test(literal(args[at]!.v) ?? '')) return null;
    args = args.slice(at + 1);
  }
  return args.filter((a) => !(literal(a.v) ?? '').startsWith('-'));
}

export function checkRm(inv: Invocation, emit: Emit): void {
  const rimraf = rimrafOperands(inv);
  if (inv.program !== 'rm' && !rimraf) return;
  const p = rimraf ? null : parseOptions(inv.args, RM);
  const recursive = !p || has(p, 'r') || p.unknown;
  let blocked = false;
  for (const op of rimraf ?? p!.operands) {
    const c = canonical(op.v, inv.cwd);
    if (!c) continue;
    const cls = deleteClass(c);
    if (recursive && cls) {
      emit(RULE[cls], `${inv.text} → ${showCanon(c)}`);
      blocked = true;
    } else if (!recursive && inSystemDir(c)) {
      emit('shell.rm.system_file', `${inv.text} → ${showCanon(c)}`);
    }
  }
  if (recursive && !blocked) emit('shell.rm.recursive', inv.text);
}


/** Moving a protected directory away, or rsync --delete into one, destroys it like a recursive delete. */
export function checkMove(inv: Invocation, emit: Emit): void {
  if (inv.program === 'mv') {
    const p = parseOptions(inv.args, TRANSFER_OPTIONS.mv);
    const dir = has(p, 't', 'target-directory');
    for (const src of dir ? p.operands : p.operands.slice(0, -1)) {
      const c = canonical(src.v, inv.cwd);
      const cls = c && deleteClass(c);
      if (c && cls) { emit(RULE[cls], `${inv.text} → ${showCanon(c)}`); return; }
    }
  } else if (inv.program === 'rsync') {
    const p = parseOptions(inv.args, TRANSFER_OPTIONS.rsync);
    const dest = p.operands[p.operands.length - 1];
    if (!dest || p.operands.length < 2 || !hasFamily(p, 'delete')) return;
    const c = canonical(dest.v, inv.cwd);
    const cls = c && deleteClass(c);
    if (c && cls) emit(RULE[cls], `${inv.text} → ${showCanon(c)}`);
  }
}

const EXEC_ACTIONS = new Set(['-exec', '-execdir', '-ok', '-okdir']);
/** A name pattern of `*` matches everything: no narrowing. */
const MATCHES_ALL = new Set(['-name', '-iname', '-path', '-ipath', '-wholename', '-iwholename']);

export function checkFind(inv: Invocation, emit: Emit): void {
  if (inv.program === 'find') {
    const words = inv.args.map((a) => literal(a.v));
    const deletes = words.includes('-delete') || words.some((w, i) => EXEC_ACTIONS.has(w ?? '') && DELETERS.has(innermostProgram(inv.args.slice(i + 1)) ?? ''));
    if (deletes) findDeletes(inv, inv.text, emit);
    return;
  }
  // `fd . / -x rm -rf`: like find -exec, narrowed by fd's pattern and filters
  if (fdCommands(inv).some((words) => DELETERS.has(innermostProgram(words) ?? ''))) {
    deletesBelow(listerStarts(inv).map((t) => t.path), fdNarrowed(inv), inv.text, emit);
    return;
  }
  // `ugrep --filter='*:rm %' x DIR` runs rm on every file it searches; a filter for some extensions only narrows it
  const filters = ugrepFilters(inv).filter((f) => DELETERS.has(innermostProgram(f.words) ?? ''));
  if (filters.length > 0) {
    deletesBelow(treeSources(inv).map((t) => t.path), filters.every((f) => !f.exts.includes('*')), inv.text, emit);
    return;
  }
  // `rg --pre rm x PATH` runs rm on every file it searches, like `find PATH -exec rm {} ;`
  const pre = preprocessor(inv);
  if (pre && DELETERS.has(innermostProgram([pre]) ?? '')) {
    // a glob or type narrows the files, as find -name does
    deletesBelow(treeSources(inv).map((t) => t.path), treeNarrowed(inv), inv.text, emit);
    return;
  }
  // `git grep -Orm x`: the pager gets every matching file (the rest of its code is walked as shell code)
  if (gitGrepPagers(inv).some((code) => DELETERS.has(programName(/^\s*(\S*)/.exec(code)![1]!) ?? ''))) {
    emit('shell.find.delete', inv.text);
    return;
  }
  // `find / | xargs rm`, `find / | while read f; do rm -rf "$f"; done`: what find (or fd) lists is deleted
  if (DELETERS.has(inv.program)) {
    const lister = [...(inv.appendsArgs ? inv.upstream : []), ...(inv.listedBy ?? [])].find(isLister);
    if (lister) findDeletes(lister, `${lister.text} | ${inv.text}`, emit);
  }
}

/**
 * What a find (or fd) that deletes what it matches destroys, judged by its start points. `protectedOnly`: moving or
 * archiving away what it lists (`| xargs mv -t`, `| zip -m -@`) matters only below a protected start.
 */
export function findDeletes(find: Invocation, text: string, emit: Emit, protectedOnly = false): void {
  const words = find.args.map((a) => literal(a.v));
  const filtered = find.program === 'find' ? words.some((w, i) => FIND_FILTERS.has(w ?? '') && !(MATCHES_ALL.has(w ?? '') && words[i + 1] === '*')) : listerNarrowed(find);
  deletesBelow(listerStarts(find).map((t) => t.path), filtered, text, emit, protectedOnly);
}

/** Deleting every file below these roots (unless narrowed) is a recursive delete of them. */
function deletesBelow(roots: readonly (Canon | null)[], narrowed: boolean, text: string, emit: Emit, protectedOnly = false): void {
  for (const c of roots) {
    const cls = c && !narrowed ? deleteClass(c) : null;
    if (c && cls) { emit(RULE[cls], `${text} → ${showCanon(c)}`); return; }
  }
  if (!protectedOnly || roots.some((c) => c && deleteClass(c))) emit('shell.find.delete', text);
}
