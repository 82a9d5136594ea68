import { isCodeVariable, variableCode } from './code-values.ts';
import { has, parseOptions, valuesOf } from './flags.ts';
import type { Emit, Invocation } from './model.ts';
import { printfText } from './static-output.ts';
import { literal, plain } from './values.ts';

/**
 * Builtins that assign variables without `NAME=VALUE` (printf -v, read, mapfile/readarray) or alias them
 * (declare -n): a code variable (CODE_VARIABLES) set this way is judged like `NAME=VALUE`, and flagged when
 * the value cannot be seen. mapfile -C's callback is shell code of its own.
 */

const UNSEEN = 'shell.code.unseen_setting';

/** `printf -v NAME FORMAT ARGS…`: the value is what printf would print (unknown arguments stay unknown). */
function printfCode(inv: Invocation, emit: Emit): string[] {
  const p = parseOptions(inv.args, { short: 'v', posix: true });
  const name = literal(valuesOf(p, 'v').pop()?.v ?? '');
  if (name === null || !isCodeVariable(name)) return [];
  const format = p.operands[0] ? literal(p.operands[0].v) : null;
  if (format === null) { emit(UNSEEN, inv.text); return []; }
  const code = variableCode(name, printfText(format, p.operands.slice(1).map((a) => a.v)));
  return code === null ? [] : [code];
}

/** `read [-r] NAME…`: the first line of static stdin, split into fields; the last name takes the rest of the line. */
function readCode(inv: Invocation, emit: Emit): string[] {
  const p = parseOptions(inv.args, { short: 'adinNptu', posix: true });
  const names = p.operands.map((a) => literal(a.v));
  const arrays = valuesOf(p, 'a').map((a) => literal(a.v));
  if (![...names, ...arrays].some((n) => n !== null && isCodeVariable(n))) return [];
  // other delimiters, counts, descriptors and arrays split the input otherwise: not followed
  if (inv.stdinText === null || arrays.length > 0 || has(p, 'd', 'n', 'N', 'u')) { emit(UNSEEN, inv.text); return []; }
  let text = inv.stdinText;
  if (!has(p, 'r')) text = text.replace(/\\\n/g, '');
  let rest = text.split('\n')[0]!;
  if (!has(p, 'r')) rest = rest.replace(/\\(.)/g, '$1');
  rest = rest.replace(/^[ \t]+/, '');
  const out: string[] = [];
  names.forEach((name, i) => {
    let value: string;
    if (i === names.length - 1) value = rest.replace(/[ \t]+$/, '');
    else {
      const m = /^(\S*)[ \t]*/.exec(rest)!;
      value = m[1]!;
      rest = rest.slice(m[0].length);
    }
    const code = name === null ? null : variableCode(name, value);
    if (code !== null) out.push(code);
  });
  return out;
}

/** `mapfile [-C CALLBACK] [NAME]`: each line of static stdin is an element; PROMPT_COMMAND runs every one. */
function mapfileCode(inv: Invocation, emit: Emit): string[] {
  const p = parseOptions(inv.args, { short: 'dnOsuCc', posix: true });
  const out = valuesOf(p, 'C').map((c) => plain(c.v));
  const name = p.operands[0] ? literal(p.operands[0].v) : 'MAPFILE';
  if (name === null || !isCodeVariable(name)) return out;
  if (inv.stdinText === null || has(p, 'd', 'u')) emit(UNSEEN, inv.text);
  else {
    const code = variableCode(name, inv.stdinText);
    if (code !== null) out.push(code);
  }
  return out;
}

/** `declare -n REF=NAME`: later assignments to REF set NAME, which the guard does not follow; flagged for a code variable. */
function namerefs(inv: Invocation, emit: Emit): void {
  const words = inv.args.map((a) => literal(a.v));
  if (!words.some((w) => w !== null && /^-[A-Za-z]*n/.test(w))) return;
  for (const w of words) {
    const target = w === null ? null : /^[A-Za-z_][A-Za-z0-9_]*=(.*)$/s.exec(w)?.[1];
    if (target && isCodeVariable(target)) emit(UNSEEN, inv.text);
  }
}

export function builtinSetterCode(inv: Invocation, emit: Emit): string[] {
  switch (inv.program) {
    case 'printf': return printfCode(inv, emit);
    case 'read': return readCode(inv, emit);
    case 'mapfile': case 'readarray': return mapfileCode(inv, emit);
    case 'declare': case 'typeset': case 'local': namerefs(inv, emit); return [];
    default: return [];
  }
}
