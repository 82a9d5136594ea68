import { awkProgram } from './awk-program.ts';
import { has, parseOptions, valueOf } from './flags.ts';
import type { Arg, Invocation } from './model.ts';
import { AWK_EXEC, AWKS, DECODERS, DOWNLOADERS, INTERPRETERS, POWERSHELL, POWERSHELL_INLINE, SOURCERS } from './program-tables.ts';
import { literal, plain } from './values.ts';

/** How an interpreter invocation gets its code. */
export interface InterpreterView {
  readonly family: 'shell' | 'code' | 'eval' | 'source';
  /** Code is given in the arguments. */
  readonly inline: boolean;
  readonly code: Arg | null;
  /** Shell `-c`: operands after the code become `$0`, `$1`, … */
  readonly positional: readonly Arg[];
  /** Code comes from stdin. */
  readonly readsStdin: boolean;
  readonly script: Arg | null;
}

const STDIN = new Set(['-', '/dev/stdin', '/dev/fd/0', '/proc/self/fd/0']);
export const isStdin = (a: Arg | undefined): boolean => a !== undefined && STDIN.has(literal(a.v) ?? '');

export function interpreterView(inv: Invocation): InterpreterView | null {
  const args = inv.args;
  const none = { inline: false, code: null, positional: [], readsStdin: false, script: null };
  if (inv.program === 'eval') {
    const code: Arg | null = args.length > 0 ? { v: args.map((a) => a.v).join(' '), info: args[0]!.info } : null;
    return { ...none, family: 'eval', inline: true, code };
  }
  if (SOURCERS.has(inv.program)) {
    return { ...none, family: 'source', script: args[0] ?? null, readsStdin: isStdin(args[0]) };
  }
  if (POWERSHELL.has(inv.program) || inv.program === 'powershell_ise') {
    const i = args.findIndex((a) => POWERSHELL_INLINE.test(literal(a.v) ?? ''));
    if (i >= 0) return { ...none, family: 'code', inline: true, code: args[i + 1] ?? null };
    return { ...none, family: 'code', readsStdin: args.length === 0 };
  }
  if (AWKS.has(inv.program)) {
    // program text that runs commands is inline code; `-f -` reads the program from stdin (files: see awkFileCode)
    const prog = awkProgram(args);
    const runs = prog.texts.find((t) => AWK_EXEC.test(plain(t.v))) ?? null;
    return { ...none, family: 'code', inline: runs !== null, code: runs, readsStdin: prog.files.some(isStdin) };
  }
  if (inv.program === 'deno' && literal(args[0]?.v ?? '') === 'eval') {
    return { ...none, family: 'code', inline: true, code: args[1] ?? null };
  }
  const name = /^python[0-9.]*$/.test(inv.program) ? 'python' : /^pypy[0-9.]*$/.test(inv.program) ? 'pypy' : inv.program;
  const spec = INTERPRETERS[name];
  if (!spec) return null;
  const p = parseOptions(args, spec);
  if (spec.family === 'shell') {
    const flagged = has(p, ...spec.inline);
    const valued = valueOf(p, ...spec.inline);
    if (flagged) {
      const code = valued ?? p.operands[0] ?? null;
      return { ...none, family: 'shell', inline: true, code, positional: valued ? p.operands : p.operands.slice(1) };
    }
    const readsStdin = has(p, 's') || p.operands.length === 0 || isStdin(p.operands[0]);
    return { ...none, family: 'shell', readsStdin, script: readsStdin ? null : p.operands[0]! };
  }
  const code = valueOf(p, ...spec.inline);
  if (code || has(p, ...spec.inline)) return { ...none, family: 'code', inline: true, code };
  if (spec.module && has(p, ...spec.module)) return { ...none, family: 'code' };
  const readsStdin = p.operands.length === 0 || isStdin(p.operands[0]);
  return { ...none, family: 'code', readsStdin, script: readsStdin ? null : p.operands[0]! };
}

/** A command that fetches remote content or decodes opaque text. */
export function isDownloadOrDecode(inv: Invocation): boolean {
  if (DOWNLOADERS.has(inv.program)) return true;
  const d = DECODERS[inv.program];
  if (!d) return false;
  return d === 'always' || has(parseOptions(inv.args), ...d);
}

/** The command, or what feeds its stdin, downloads or decodes. */
export const carriesDownload = (inv: Invocation): boolean => isDownloadOrDecode(inv) || inv.upstream.some(isDownloadOrDecode);
