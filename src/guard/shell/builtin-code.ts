import { parseOptions, valuesOf } from './flags.ts';
import type { Emit, Invocation } from './model.ts';
import { plain } from './values.ts';

/**
 * Builtins that take code as an argument: `compgen -C CMD` runs CMD now and `complete -C CMD` at each completion, with the
 * shell; `bind -x 'KEYS: CMD'` runs CMD at a key; `enable -f FILE NAME` loads a builtin from a shared object the guard
 * cannot see. Names with a subscript (`declare -i x='a[$(CMD)]'`, `test -v`, `unset 'a[$(CMD)]'`, `printf -v`, `read`)
 * have it evaluated as arithmetic, which runs its command substitutions.
 */
const SUBSCRIPT_READERS = new Set(['declare', 'typeset', 'local', 'export', 'readonly', 'unset', 'test', '[', 'printf', 'read', 'mapfile', 'readarray', 'let', 'wait']);
/** A subscript holding a command substitution. */
const RUNNING_SUBSCRIPT = /\[[^\]]*(?:\$\(|`)/;
/** `"KEYS": CMD` (or 'KEYS' / KEYS without quotes) of bind -x. */
const BIND_X = /^\s*(?:"(?:[^"\\]|\\.)*"|'[^']*'|[^:\s]+)\s*:\s*(.*)$/s;

const unquoted = (s: string): string => { const t = s.trim(); return /^(["']).*\1$/s.test(t) ? t.slice(1, -1) : t; };

export function builtinCode(inv: Invocation, emit: Emit): string[] {
  const out: string[] = [];
  const prog = inv.program;
  if (prog === 'complete' || prog === 'compgen') out.push(...valuesOf(parseOptions(inv.args, { short: 'oAGWFCXPS' }), 'C').map((a) => plain(a.v)));
  if (prog === 'bind') {
    for (const a of valuesOf(parseOptions(inv.args, { short: 'mqurfxX' }), 'x')) { const m = BIND_X.exec(plain(a.v)); if (m) out.push(unquoted(m[1]!)); }
  }
  if (prog === 'enable' && valuesOf(parseOptions(inv.args, { short: 'f' }), 'f').length > 0) emit('shell.code.unseen_setting', `${inv.text.slice(0, 120)} (a builtin loaded from a shared object)`);
  if (SUBSCRIPT_READERS.has(prog)) {
    for (const a of inv.args) if (RUNNING_SUBSCRIPT.test(a.v)) out.push(`: "${plain(a.v).replace(/["\\]/g, '\\$&')}"`);
  }
  return out.filter((c) => c.trim() !== '');
}
