import { isCodeVariable, variableCode } from './code-values.ts';
import { has, parseOptions, valuesOf } from './flags.ts';
import type { Emit, Invocation } from './model.ts';
import { NAMEREF_OPTION, NAMEREF_SETTERS, resolveName } from './shell-state.ts';
import { printfText } from './static-output.ts';
import { literal, plain } from './values.ts';

/**
 * Builtins that assign variables without `NAME=VALUE` (printf -v, read, mapfile/readarray) or alias them
 * (declare -n): a code variable (CODE_VARIABLES) set this way, also through a name reference, is judged like
 * `NAME=VALUE`, and flagged when the value cannot be seen. mapfile -C's callback is shell code of its own.
 */

const UNSEEN = 'shell.code.unseen_setting';

/** `printf -v NAME FORMAT ARGS…`: the value is what printf would print (unknown arguments stay unknown). */
function printfCode(inv: Invocation, emit: Emit, vars: Vars): string[] {
  const p = parseOptions(inv.args, { short: 'v', posix: true });
  const name = target(vars, valuesOf(p, 'v').pop()?.v ?? '');
  if (name === null || !isCodeVariable(name)) return [];
  const format = p.operands[0] ? literal(p.operands[0].v) : null;
  if (format === null) { emit(UNSEEN, inv.text); return []; }
  const code = variableCode(name, printfText(format, p.operands.slice(1).map((a) => a.v)));
  return code === null ? [] : [code];
}

/** `read [-r] NAME…`: the first line of static stdin, split into fields; the last name takes the rest of the line. */
function readCode(inv: Invocation, emit: Emit, vars: Vars): string[] {
  const p = parseOptions(inv.args, { short: 'adinNptu', posix: true });
  const names = p.operands.map((a) => target(vars, a.v));
  const arrays = valuesOf(p, 'a').map((a) => target(vars, a.v));
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
function mapfileCode(inv: Invocation, emit: Emit, vars: Vars): string[] {
  const p = parseOptions(inv.args, { short: 'dnOsuCc', posix: true });
  const out = valuesOf(p, 'C').map((c) => plain(c.v));
  const name = target(vars, p.operands[0]?.v ?? 'MAPFILE');
  if (name === null || !isCodeVariable(name)) return out;
  if (inv.stdinText === null || has(p, 'd', 'u')) emit(UNSEEN, inv.text);
  else {
    const code = variableCode(name, inv.stdinText);
    if (code !== null) out.push(code);
  }
  return out;
}

/**
 * `declare -n REF=NAME`: later assignments to REF set NAME. The walk follows plain ones (resolveName), not every way
 * to assign (a `for` over REF, `${REF:=…}`), so a reference to a code variable is flagged as well.
 */
function namerefs(inv: Invocation, emit: Emit, vars: Vars): void {
  const words = inv.args.map((a) => literal(a.v));
  if (!words.some((w) => w !== null && NAMEREF_OPTION.test(w))) return;
  for (const w of words) {
    const to = w === null ? null : /^[A-Za-z_][A-Za-z0-9_]*=(.*)$/s.exec(w)?.[1];
    if (to && isCodeVariable(resolveName(vars, to))) emit(UNSEEN, inv.text);
  }
}

type Vars = ReadonlyMap<string, string>;
/** The variable a builtin's NAME argument sets (through name references); null when computed. */
const target = (vars: Vars, v: string): string | null => { const name = literal(v); return name === null ? null : resolveName(vars, name); };

export function builtinSetterCode(inv: Invocation, emit: Emit, vars: Vars): string[] {
  switch (inv.program) {
    case 'printf': return printfCode(inv, emit, vars);
    case 'read': return readCode(inv, emit, vars);
    case 'mapfile': case 'readarray': return mapfileCode(inv, emit, vars);
    default: if (NAMEREF_SETTERS.has(inv.program)) namerefs(inv, emit, vars); return [];
  }
}
