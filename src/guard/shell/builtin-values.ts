import { has, parseOptions, valuesOf } from './flags.ts';
import type { Arg } from './model.ts';
import { printfText } from './static-output.ts';
import { FIELD_SPLIT, HOME, UNKNOWN, literal } from './values.ts';

/**
 * Values the builtins that assign without `NAME=VALUE` give (`read x <<< /etc/shadow`, `printf -v x /`, `mapfile -t a`),
 * so that `cat $x` is judged as what it reads: [name, value] pairs, array elements as `NAME[i]` and `NAME[@]` (see
 * arrayValues). A value the guard cannot see is UNKNOWN (the variable is forgotten, as any unknown one). Empty when the
 * program assigns nothing.
 */
export function builtinValues(program: string, args: readonly Arg[], stdin: string | null): [string, string][] {
  switch (program) {
    case 'read': return readValues(args, stdin);
    case 'printf': return printfValue(args);
    case 'mapfile': case 'readarray': return mapfileValues(args, stdin);
    default: return [];
  }
}

/** Static stdin as the shell's value: `$HOME` in it is the home (a here-string's `~` was expanded), an unknown part unknown. */
function stdinValue(text: string | null): string | null {
  if (text === null || text.includes('$__unknown')) return null;
  return text.replaceAll('$HOME', HOME);
}

const NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** `read [-r] [-a ARRAY] NAME…`: the first line of stdin split on blanks, the last name taking the rest. */
function readValues(args: readonly Arg[], stdin: string | null): [string, string][] {
  const p = parseOptions(args, { short: 'adinNptu', posix: true });
  const names = p.operands.map((a) => literal(a.v)).filter((n): n is string => n !== null && NAME.test(n));
  const arrays = valuesOf(p, 'a').map((a) => literal(a.v)).filter((n): n is string => n !== null && NAME.test(n));
  const all = names.length + arrays.length > 0 ? names : ['REPLY'];
  let text = stdinValue(stdin);
  // other delimiters, counts and descriptors read otherwise: unknown
  if (text === null || has(p, 'd', 'n', 'N', 'u')) return [...all, ...arrays].map((n) => [n, UNKNOWN]);
  if (!has(p, 'r')) text = text.replace(/\\\n/g, '');
  let rest = text.split('\n')[0]!;
  if (!has(p, 'r')) rest = rest.replace(/\\(.)/g, '$1');
  rest = rest.replace(/^[ \t]+/, '');
  const out: [string, string][] = [];
  for (const a of arrays) out.push(...arrayValues(a, rest.split(/[ \t]+/).filter((w) => w !== '')));
  all.forEach((name, i) => {
    if (i === all.length - 1) { out.push([name, rest.replace(/[ \t]+$/, '')]); return; }
    const m = /^(\S*)[ \t]*/.exec(rest)!;
    out.push([name, m[1]!]);
    rest = rest.slice(m[0].length);
  });
  return out;
}

/** `printf -v NAME FORMAT ARGS…`: what printf would print (an unknown format or argument leaves it unknown). */
function printfValue(args: readonly Arg[]): [string, string][] {
  const p = parseOptions(args, { short: 'v', posix: true });
  const name = literal(valuesOf(p, 'v').pop()?.v ?? '');
  if (name === null || !NAME.test(name)) return [];
  const format = p.operands[0] ? literal(p.operands[0].v) : null;
  if (format === null) return [[name, UNKNOWN]];
  return [[name, printfText(format, p.operands.slice(1).map((a) => a.v))]];
}

/** `mapfile [-t] [NAME]`: each line of stdin an element (its newline kept without -t; dropped here either way, as word splitting drops it). */
function mapfileValues(args: readonly Arg[], stdin: string | null): [string, string][] {
  const p = parseOptions(args, { short: 'dnOsuCc', posix: true });
  const name = literal(p.operands[0]?.v ?? 'MAPFILE');
  if (name === null || !NAME.test(name)) return [];
  const text = stdinValue(stdin);
  if (text === null || has(p, 'd', 'u', 'O', 's', 'n')) return [[name, UNKNOWN]];
  const lines = text.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  return arrayValues(name, lines);
}

/**
 * An array's elements: `NAME` (its first, as `$NAME` reads), `NAME[i]` each and `NAME[@]` all, its words apart; an
 * unknown element stays in them as an unknown part (see assignValues), so `${a[@]}` still shows the known ones.
 */
export function arrayValues(name: string, elements: readonly string[]): [string, string][] {
  return [[name, elements[0] ?? ''], ...elements.map((e, i): [string, string] => [`${name}[${i}]`, e]), [`${name}[@]`, elements.join(FIELD_SPLIT)]];
}
