import { has, parseOptions, valuesOf } from '../flags.ts';
import type { Invocation } from '../model.ts';
import { canonical } from '../paths.ts';
import { NAME_LISTS } from '../program-tables.ts';
import { staticOutput } from '../static-output.ts';
import { literal } from '../values.ts';
import { isFdPath } from '../walk-support.ts';
import type { Target } from './targets.ts';

/**
 * The names a list reader (NAME_LISTS: `cpio -o`, `zip -@`, `tar -T FILE`) is given as static text: on stdin (`cpio -o
 * <<< /etc/shadow`, `echo NAME | cpio -o`), or in a list file that is a process substitution printing them (`tar -T
 * <(echo NAME)`). One name a line (a NUL with `-0`/`--null`).
 */
export function staticNames(inv: Invocation): Target[] {
  const t = NAME_LISTS[inv.program];
  if (!t) return [];
  const p = parseOptions(inv.args, t.spec);
  const texts: string[] = [];
  if (t.stdin && has(p, ...t.stdin) && inv.stdinText !== null) texts.push(inv.stdinText);
  for (const f of valuesOf(p, ...(t.files ?? []))) {
    if (literal(f.v) === '-' && inv.stdinText !== null) texts.push(inv.stdinText);
    const last = isFdPath(f.v) ? f.info.inner[f.info.inner.length - 1] : undefined;
    const printed = last ? staticOutput(last) : null;
    if (printed !== null) texts.push(printed);
  }
  const sep = has(p, '0', 'null') ? '\u0000' : '\n';
  return texts.flatMap((text) => text.split(sep)).map((n) => n.trim()).filter((n) => n !== '').map((n) => ({ arg: { v: n, info: { computed: false, ansi: false, quoted: true, inner: [], raw: n } }, path: canonical(n, inv.cwd) }));
}
