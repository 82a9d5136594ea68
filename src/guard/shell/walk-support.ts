import { has, parseOptions } from './flags.ts';
import type { Arg } from './model.ts';
import type { Stmt } from './syntax/ast.ts';
import { SHELL_WHEN_NO_COMMAND, WRAPPERS } from './wrapper-tables.ts';

/** `a && b || c` as its statements in order (the tree leans left; walking it recursively could overflow). */
export function andOrChain(s: Stmt): Stmt[] {
  const out: Stmt[] = [];
  let cur: Stmt = s;
  while (cur.cmd.kind === 'andor' && cur.redirs.length === 0 && !cur.background) {
    out.push(cur.cmd.right);
    cur = cur.cmd.left;
  }
  out.push(cur);
  return out.reverse();
}

/** `sudo -s`, `su`, `chroot DIR`: a wrapper given no command that starts a shell instead. */
export function startsShell(name: string, args: readonly Arg[]): boolean {
  const when = SHELL_WHEN_NO_COMMAND[name];
  if (!when) return false;
  return when === 'always' || has(parseOptions(args, WRAPPERS[name]!), ...when);
}

/** What a process substitution expands to: a pipe under /dev/fd (or /proc/self/fd). */
export const isFdPath = (v: string): boolean => /^\/(dev|proc\/self)\/fd\//.test(v);
