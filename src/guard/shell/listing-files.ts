import { has, parseOptions, valuesOf } from './flags.ts';
import { isLister } from './listers.ts';
import type { Arg, Invocation, RedirFact } from './model.ts';
import { canonical, showCanon, type Canon } from './paths.ts';
import { NAME_LISTS } from './program-tables.ts';
import { isKnown, literal } from './values.ts';
import { WRAPPERS } from './wrapper-tables.ts';
import { writeTargets } from './checks/targets.ts';
import { argFiles, argSources } from './arg-files.ts';

/**
 * Files a command line writes the names a lister prints to (`find ~ > list`, `find ~ | sort | tee list`,
 * `find ~ -fprint list`), read back later on the line as that listing: `xargs rm -rf < list`, `while read f; do cat "$f";
 * done < list`, `cat list | xargs cat`, `$(cat list)`, `$(< list)`, `xargs -a list cat`, `cp list copy`, and by the
 * programs that read a list of names (`tar -T list`, `zip -@ < list`, `parallel CMD :::: list`).
 */

const WRITES = new Set(['>', '>>', '>|', '&>', '&>>']);
const STDIN = new Set(['<', '<>']);
/** Programs that print (some of) the lines of the files they are given, or copy them: a listing passes through. */
const LINE_FILTERS = new Set(['cat', 'tac', 'sort', 'uniq', 'head', 'tail', 'grep', 'egrep', 'fgrep', 'sed', 'awk', 'gawk', 'mawk', 'cut', 'shuf', 'cp', 'mv']);
const ECHOES = new Set(['echo', 'printf']);
/** find's actions that print what it lists into a file. */
const FIND_FILE_ACTIONS = new Set(['-fprint', '-fprint0', '-fls', '-fprintf']);

/** Where stdout goes: `>`, `1>`, `&>`, not `2>`. */
const writesStdout = (r: RedirFact): boolean => WRITES.has(r.op) && (r.fd === '' || r.fd === '1' || r.op.startsWith('&'));

export class ListingFiles {
  /** Listers each file holds the names of, by path (as showCanon writes it). */
  private readonly files = new Map<string, readonly Invocation[]>();
  /** Listers whose names an invocation prints because it reads a listing file. */
  private readonly relays = new WeakMap<Invocation, readonly Invocation[]>();

  private at(path: Canon | null): readonly Invocation[] {
    return path ? this.files.get(showCanon(path)) ?? [] : [];
  }

  /** Listers whose names stdin redirections from a listing file feed (`< list`). */
  onStdin(redirs: readonly RedirFact[]): Invocation[] {
    return redirs.filter((r) => STDIN.has(r.op) && (r.fd === '' || r.fd === '0') && r.target).flatMap((r) => this.at(canonical(r.target!.v, r.cwd)));
  }

  /** `xargs -a FILE`, `--arg-file=FILE`: the listers whose names it reads from a listing file. */
  argFile(xargsArgs: readonly Arg[], cwd: Canon | null): Invocation[] {
    return argFiles('xargs', xargsArgs).flatMap((a) => this.at(canonical(a.v, cwd)));
  }

  /**
   * The invocation with the listers whose names it reads as the files to read (NAME_LISTS) in its listedBy: from a
   * listing file, `-` or stdin (`find ~ | cpio -o`, `zip -@ < list`; `inv.upstream` holds both), or `<(find …)`.
   */
  withNameLists(inv: Invocation): Invocation {
    const named = this.nameLists(inv);
    return named.length > 0 ? { ...inv, listedBy: [...new Set([...(inv.listedBy ?? []), ...named])] } : inv;
  }

  private nameLists(inv: Invocation): Invocation[] {
    const t = NAME_LISTS[inv.program];
    if (!t) return [];
    const p = parseOptions(inv.args, t.spec);
    const stdin = inv.upstream.filter(isLister);
    const files = [...valuesOf(p, ...(t.files ?? [])), ...(t.atFile ? p.operands.filter((a) => a.v.startsWith('@')).map((a) => ({ ...a, v: a.v.slice(1) })) : [])];
    return [...files.flatMap((f) => this.listFile(f, stdin, inv.cwd)), ...(t.stdin && has(p, ...t.stdin) ? stdin : [])];
  }

  /**
   * `parallel CMD :::: FILE`, `-a FILE`, `::: $(find …)`, or (with no input source) the names on stdin: the listers
   * whose names fill CMD's `{}` (see parallelRuns).
   */
  parallelInputs(name: string, args: readonly Arg[], upstream: readonly Invocation[], cwd: Canon | null): Invocation[] {
    const src = WRAPPERS[name]?.inputs ? argSources(name, args) : null;
    if (!src) return [];
    // --pipe hands stdin over as data, not names
    const stdin = has(src.parsed, 'pipe', 'pipepart') ? [] : upstream.filter(isLister);
    const substituted = src.items.filter((a) => !isKnown(a.v)).flatMap((a) => a.info.inner.flatMap(this.carried));
    return [...(src.named ? [] : stdin), ...src.files.flatMap((f) => this.listFile(f, stdin, cwd)), ...substituted];
  }

  /** The listers a file of names holds: stdin's for `-`, a substitution's for `<(…)`, a listing file's. */
  private listFile(f: Arg, stdin: readonly Invocation[], cwd: Canon | null): readonly Invocation[] {
    const name = literal(f.v);
    if (name === '-' || name === '/dev/stdin') return stdin;
    if (f.info.inner.length > 0) return f.info.inner.flatMap(this.carried);
    return this.at(canonical(f.v, cwd));
  }

  /** The listers whose names an invocation prints from the listing files it reads (a lister itself is not here). */
  relayed(inv: Invocation): readonly Invocation[] {
    return this.relays.get(inv) ?? [];
  }

  /** The listers whose names an invocation prints: itself, or those of the listing files it reads. */
  readonly carried = (inv: Invocation): readonly Invocation[] => (isLister(inv) ? [inv] : this.relayed(inv));

  /** What a recorded command reads from listing files and the listing it writes (or the listings its writes replace). */
  remember(inv: Invocation): void {
    const operands = LINE_FILTERS.has(inv.program) ? inv.args.filter((a) => !a.v.startsWith('-')) : [];
    // echo and printf print the names they are given (`for f in $(find ~); do echo "$f"; done > list`)
    const echoed = ECHOES.has(inv.program) ? inv.listedBy ?? [] : [];
    const read = [...this.onStdin(inv.redirs), ...operands.flatMap((a) => this.at(canonical(a.v, inv.cwd))), ...echoed];
    if (read.length > 0) this.relays.set(inv, [...new Set(read)]);
    const listers = [...new Set([...this.carried(inv), ...inv.upstream.filter(isLister)])];
    for (const r of inv.redirs) if (r.target && writesStdout(r)) this.put(canonical(r.target.v, r.cwd), listers, r.op.endsWith('>>'));
    for (const t of writeTargets(inv)) this.put(t.path, listers, false);
    if (inv.program === 'find') {
      inv.args.forEach((a, i) => {
        const target = inv.args[i + 1];
        if (FIND_FILE_ACTIONS.has(literal(a.v) ?? '') && target) this.put(canonical(target.v, inv.cwd), [inv], false);
      });
    }
  }

  /** `{ find ~; } > list`, `( find ~ ) > list`, `done > list`: what the body's commands print, unless into files of their own. */
  compound(redirs: readonly RedirFact[], produced: readonly Invocation[]): void {
    const out = redirs.filter((r) => r.target && writesStdout(r));
    if (out.length === 0) return;
    const printers = produced.filter((i) => !i.redirs.some(writesStdout));
    const listers = [...new Set(printers.flatMap((i) => [...this.carried(i), ...i.upstream.filter(isLister)]))];
    for (const r of out) this.put(canonical(r.target!.v, r.cwd), listers, r.op.endsWith('>>'));
  }

  private put(path: Canon | null, listers: readonly Invocation[], append: boolean): void {
    if (!path) return;
    const key = showCanon(path);
    const all = [...new Set([...(append ? this.files.get(key) ?? [] : []), ...listers])];
    if (all.length > 0) this.files.set(key, all);
    else this.files.delete(key);
  }
}
