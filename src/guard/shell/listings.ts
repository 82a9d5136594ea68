import { parseOptions, valueOf } from './flags.ts';
import { isLister } from './listers.ts';
import type { Arg, Invocation, RedirFact } from './model.ts';
import { listKey } from './shell-state.ts';
import type { Redirect, Word, WordPart } from './syntax/ast.ts';
import { isKnown, literal } from './values.ts';

/**
 * Variables that hold the names a lister prints (`find T | while read f`, `for f in $(find T)`, `f=$(find T)`, the
 * arguments xargs or `find -exec` hands a shell): a command given such a variable reads what `find T | xargs CMD`
 * would. Kept beside the variables as `-l NAME` (see listKey): the indices of the listers in Listings.
 */

/** Redirections that feed stdin. */
const STDIN_OPS = new Set(['<', '<<', '<<-', '<<<', '<>']);
/** Redirections that read a file named by their word. */
const STDIN_FILE = new Set(['<', '<>']);

/** Listers feeding a command's stdin: earlier pipeline stages, `< <(find …)`, `<<< "$(find …)"`. */
export function stdinListers(upstream: readonly Invocation[], redirs: readonly RedirFact[]): Invocation[] {
  const fed = redirs.filter((r) => STDIN_OPS.has(r.op) && (r.fd === '' || r.fd === '0')).flatMap((r) => r.inner);
  return [...upstream, ...fed].filter(isLister);
}

/** The process substitutions and substitutions feeding a compound command's stdin (`done < <(find …)`), for its body. */
export function stdinInner(redirs: readonly RedirFact[]): Invocation[] {
  return redirs.filter((r) => STDIN_OPS.has(r.op) && (r.fd === '' || r.fd === '0')).flatMap((r) => r.inner);
}

/** Variables a word expands (`$f`, `"${f%.txt}"`, `${x:-$f}`), not those inside its substitutions. */
function wordVars(w: Word, out: Set<string>): Set<string> {
  const parts = (list: readonly WordPart[]): void => {
    for (const p of list) {
      if (p.kind === 'dq') parts(p.parts);
      else if (p.kind === 'param') {
        out.add(p.name);
        if (p.arg) wordVars(p.arg, out);
      }
    }
  };
  parts(w.parts);
  return out;
}

/** The names `read` and `mapfile` set: `read [-a NAME] [NAME…]` (REPLY when none), `mapfile [ARRAY]` (MAPFILE). */
export function readTargets(program: string, args: readonly Arg[]): string[] {
  if (program === 'read') {
    const p = parseOptions(args, { short: 'adinNptu' });
    const names = [...p.operands, ...[valueOf(p, 'a')].filter((a): a is Arg => a !== null)].map((a) => literal(a.v)).filter((n): n is string => n !== null);
    return names.length > 0 ? names : ['REPLY'];
  }
  if (program === 'mapfile' || program === 'readarray') return [literal(parseOptions(args, { short: 'dnOsuCc' }).operands[0]?.v ?? 'MAPFILE') ?? 'MAPFILE'];
  return [];
}

export class Listings {
  /** The listers marks refer to, by index. */
  private readonly all: Invocation[] = [];

  /** `carried`: the listers whose names a command prints (itself, or a listing file it reads, see listing-files.ts). */
  constructor(private readonly carried: (inv: Invocation) => readonly Invocation[] = (inv) => (isLister(inv) ? [inv] : [])) {}

  /** Records that `name` holds names these listers print (nothing when none); returns `vars`. */
  mark(vars: Map<string, string>, name: string, listers: readonly Invocation[]): Map<string, string> {
    const ids = [...new Set(listers.map((l) => {
      const i = this.all.indexOf(l);
      return i >= 0 ? i : this.all.push(l) - 1;
    }))];
    if (ids.length > 0) vars.set(listKey(name), ids.join(','));
    return vars;
  }

  /** Positional parameters holding names a find or fd lists: those given unknown, and those xargs or find -exec appends. */
  positional(vars: Map<string, string>, given: readonly string[], inv: Invocation): void {
    const listers = [...(inv.appendsArgs ? inv.upstream.filter(isLister) : []), ...(inv.listedBy ?? [])];
    if (listers.length === 0) return;
    // an xargs replace string in the code reads `$__unknown` (see xargsPlaceholders)
    const names = ['@', '*', ...(inv.appendsArgs ? ['__unknown'] : [])];
    for (let i = 0; i < 10; i++) if (i >= given.length ? inv.appendsArgs : !isKnown(given[i]!)) names.push(String(i));
    for (const n of names) this.mark(vars, n, listers);
  }

  /** The listers whose names `name` holds. */
  of(vars: ReadonlyMap<string, string>, name: string): Invocation[] {
    const ids = vars.get(listKey(name));
    return ids ? ids.split(',').map((i) => this.all[Number(i)]).filter((l): l is Invocation => l !== undefined) : [];
  }

  /** Listers whose names a command's words carry, or the file its stdin is redirected from (`cat < "$f"`). */
  inCommand(words: readonly Word[], args: readonly Arg[], redirs: readonly Redirect[], facts: readonly RedirFact[], vars: ReadonlyMap<string, string>): Invocation[] {
    const input = redirs.flatMap((r, i) => (STDIN_FILE.has(r.op) && (r.fd === '' || r.fd === '0') && !r.heredoc && facts[i]?.target ? [[r.target, facts[i]!.target!] as const] : []));
    return input.length === 0 ? this.inWords(words, args, vars) : this.inWords([...words, ...input.map((x) => x[0])], [...args, ...input.map((x) => x[1])], vars);
  }

  /** Listers whose names these words carry: a variable holding them, or a substitution printing them (`cat $(find …)`, `$(cat list)`). */
  inWords(words: readonly Word[], args: readonly Arg[], vars: ReadonlyMap<string, string>): Invocation[] {
    const names = new Set<string>();
    for (const w of words) wordVars(w, names);
    const fromVars = [...names].flatMap((n) => this.of(vars, n));
    const fromSubst = args.filter((a) => !isKnown(a.v)).flatMap((a) => a.info.inner.flatMap(this.carried));
    return [...new Set([...fromVars, ...fromSubst])];
  }
}
