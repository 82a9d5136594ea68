import { has, parseOptions, valueOf } from './flags.ts';
import type { Arg, Invocation } from './model.ts';
import { canonical, showCanon, type Canon } from './paths.ts';
import { TRANSFER_OPTIONS } from './program-tables.ts';
import { quoteArg } from './unwrap.ts';
import { isKnown, literal, plain } from './values.ts';

/**
 * Names this command line gave to programs before running them: `alias ls=rm` (dash and zsh expand aliases in scripts,
 * bash with expand_aliases or on a later line), `hash -p /bin/rm ls`, and copies or links of a program under another
 * path (`ln -s /bin/rm ./ls`, `cp /bin/rm /tmp/x`). A later command by that name is judged as well as what it names,
 * since the guard cannot know which the shell will do.
 */
export class ProgramNames {
  /** Alias (and hashed) names: the text each stands for. */
  private readonly aliases = new Map<string, string>();
  /** Paths (as showCanon writes them) a program was copied or linked to: the program word. */
  private readonly copies = new Map<string, string>();

  remember(inv: Invocation): void {
    const words = inv.args;
    if (inv.program === 'alias') {
      for (const a of words) {
        const m = /^([^=\s/$`'"]+)=(.*)$/s.exec(a.v);
        if (m && isKnown(m[1]!)) this.aliases.set(m[1]!, plain(m[2]!));
      }
    } else if (inv.program === 'unalias') {
      if (words.some((a) => a.v === '-a')) this.aliases.clear();
      for (const a of words) this.aliases.delete(a.v);
    } else if (inv.program === 'hash') {
      const p = parseOptions(words, { short: 'pd' });
      const path = valueOf(p, 'p');
      if (path) for (const n of p.operands) if (isKnown(n.v)) this.aliases.set(n.v, quoteArg(path));
    } else if (inv.program === 'ln' || inv.program === 'cp' || inv.program === 'install' || inv.program === 'mv') {
      const p = parseOptions(words, TRANSFER_OPTIONS[inv.program]);
      if (has(p, 't', 'target-directory') || p.operands.length !== 2) return;
      const [from, to] = p.operands as [Arg, Arg];
      const at = canonical(to.v, inv.cwd);
      if (at) this.copies.set(showCanon(at), quoteArg(from));
    }
  }

  /**
   * The command line `args` would be under a name given earlier, as shell text, with the marker that stops it expanding
   * again (bash does not expand an alias inside its own text); null when no name applies or it is expanding already.
   */
  renamed(args: readonly Arg[], cwd: Canon | null, expanding: readonly string[]): { code: string; marker: string } | null {
    const head = args[0];
    const word = head ? literal(head.v) : null;
    if (!head || word === null) return null;
    let to: string | undefined;
    let marker = '';
    if (!head.info.quoted && this.aliases.has(word)) { to = this.aliases.get(word); marker = `alias ${word}`; }
    else if (word.includes('/')) {
      const at = canonical(word, cwd);
      marker = at ? `path ${showCanon(at)}` : '';
      to = at ? this.copies.get(showCanon(at)) : undefined;
    }
    if (to === undefined || expanding.includes(marker)) return null;
    return { code: [to, ...args.slice(1).map(quoteArg)].join(' '), marker };
  }
}
