import { has, parseOptions, valueOf } from './flags.ts';
import type { Arg } from './model.ts';
import { WRAPPERS } from './program-tables.ts';
import { literal, plain } from './values.ts';

/** A wrapper taken off a command line. */
export interface Unwrapped {
  /** The wrapped command line; empty when the wrapper runs nothing (or only code). */
  readonly rest: readonly Arg[];
  /** Shell code the wrapper runs (`su -c`, `env -S`, `watch`, `ssh host …`). */
  readonly code: string | null;
  readonly chdir: Arg | null;
  readonly appendsArgs: boolean;
  readonly remote: boolean;
}

const SAFE_WORD = /^[^\s;&|<>()$`"'\\{}]*$/;

/** An argument as shell text that re-parses to the same word (globs stay live). */
export function quoteArg(a: Arg): string {
  const p = plain(a.v);
  if (SAFE_WORD.test(p.replace(/\$HOME|\$__unknown/g, ''))) return p;
  return '"' + a.v.replace(/["\\$`]/g, '\\$&').replace(/[\u0000\uE000-\uE005\uE010]/g, (c) => plain(c)) + '"';
}

/** Program name as the rules see it: basename, lower case, no `.exe`; null when not known. */
export function programName(v: string): string | null {
  const lit = literal(v);
  if (lit === null) return null;
  const base = lit.slice(lit.lastIndexOf('/') + 1).toLowerCase();
  return base.endsWith('.exe') ? base.slice(0, -4) : base;
}

/** Takes one wrapper (`sudo -u x`, `env -i A=b`, `timeout 5`, …) off `args`; null when `name` is not one. */
export function unwrapOnce(name: string, args: readonly Arg[]): Unwrapped | null {
  const spec = WRAPPERS[name];
  if (!spec) return null;
  const base = { code: null, chdir: null, appendsArgs: spec.appendsArgs ?? false, remote: spec.remote ?? false };
  if (name === 'busybox' || name === 'toybox') {
    return { ...base, rest: args[0] && !args[0].v.startsWith('-') ? args : [] };
  }
  const p = parseOptions(args, spec);
  let ops = [...p.operands];
  if (spec.assignments) while (ops[0] && /^[A-Za-z_][A-Za-z0-9_]*=/.test(ops[0].v)) ops.shift();
  const chdir = spec.chdir ? valueOf(p, ...spec.chdir) : null;
  const codes: string[] = [];
  const codeOpt = spec.code ? valueOf(p, ...spec.code) : null;
  if (codeOpt) codes.push(plain(codeOpt.v));
  const split = spec.split ? valueOf(p, ...spec.split) : null;
  if (split) {
    codes.push([plain(split.v), ...ops.map(quoteArg)].join(' '));
    ops = [];
  }
  if (spec.noCommand && has(p, ...spec.noCommand)) ops = [];
  if (spec.code && codes.length === 0 && ops.length > (spec.positional ?? 0)) {
    // `flock FILE -c CODE`, `sg GROUP -c CODE`: the option may follow the positional operand
    const after = ops.slice(spec.positional ?? 0);
    const flag = after[0] ? literal(after[0].v) : null;
    if (flag && spec.code.some((c) => flag === (c.length === 1 ? `-${c}` : `--${c}`)) && after[1]) {
      codes.push(plain(after[1].v));
      ops = [];
    }
  }
  if (spec.codeOnly) ops = [];
  ops = ops.slice(spec.positional ?? 0);
  if (spec.restIsCode && ops.length > 0) {
    codes.push(ops.map((a) => plain(a.v)).join(' '));
    ops = [];
  }
  return { ...base, rest: ops, code: codes.length > 0 ? codes.join('; ') : null, chdir };
}
