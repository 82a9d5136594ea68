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
const CONTAINER_EXEC = { posix: true, short: 'euw', long: ['env', 'env-file', 'user', 'workdir', 'detach-keys'] } as const;

/** `docker exec CTR CMD…`, `kubectl exec POD -- CMD…`: the command runs in a container, still a command. */
function containerExec(name: string, args: readonly Arg[]): readonly Arg[] | null {
  if (literal(args[0]?.v ?? '') !== 'exec') return null;
  if (name === 'docker' || name === 'podman' || name === 'nerdctl') return parseOptions(args.slice(1), CONTAINER_EXEC).operands.slice(1);
  if (name === 'kubectl' || name === 'oc') {
    const dash = args.findIndex((a) => a.v === '--');
    return dash < 0 ? [] : args.slice(dash + 1);
  }
  return null;
}

export function unwrapOnce(name: string, args: readonly Arg[]): Unwrapped | null {
  const inContainer = containerExec(name, args);
  if (inContainer) return { rest: inContainer, code: null, chdir: null, appendsArgs: false, remote: false };
  const spec = WRAPPERS[name];
  if (!spec) return null;
  const base = { code: null, chdir: null, appendsArgs: spec.appendsArgs ?? false, remote: spec.remote ?? false };
  if (name === 'busybox' || name === 'toybox') {
    return { ...base, rest: args[0] && !args[0].v.startsWith('-') ? args : [] };
  }
  const p = parseOptions(args, spec);
  let ops = [...p.operands];
  if (name === 'env' && ops[0]?.v === '-') ops.shift();
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

/** The program a command line finally runs, through wrappers (`sudo env nice rm …` → rm); null when not known. */
export function innermostProgram(args: readonly Arg[]): string | null {
  let cur = args;
  for (let hop = 0; hop < 16 && cur.length > 0; hop++) {
    const name = programName(cur[0]!.v);
    if (name === null) return null;
    const u = unwrapOnce(name, cur.slice(1));
    if (!u || u.rest.length === 0) return name;
    cur = u.rest;
  }
  return null;
}

const MAX_XARGS_ITEMS = 64;

/** The command lines xargs runs when its input is static text (`echo / | xargs rm -rf`); null when unknown. */
export function xargsCommandLines(xargsArgs: readonly Arg[], command: readonly Arg[], input: string): Arg[][] | null {
  const spec = WRAPPERS.xargs!;
  const p = parseOptions(xargsArgs, spec);
  if (has(p, 'a', 'arg-file')) return null;
  const repl = valueOf(p, 'I', 'replace')?.v ?? (has(p, 'i') ? valueOf(p, 'i')?.v ?? '{}' : null);
  const delim = has(p, '0', 'null') ? '\u0000' : valueOf(p, 'd', 'delimiter')?.v ?? null;
  const items = (delim !== null ? input.split(delim) : repl !== null ? input.split('\n') : input.split(/\s+/)).map((s) => (repl !== null ? s.trim() : s)).filter((s) => s !== '');
  if (items.length > MAX_XARGS_ITEMS) return null;
  const asArg = (v: string): Arg => ({ v, info: { computed: true, ansi: false, quoted: true, inner: [], raw: v } });
  if (repl !== null) return items.map((item) => command.map((a) => (a.v.includes(repl) ? { v: a.v.split(repl).join(item), info: a.info } : a)));
  const n = Number(literal(valueOf(p, 'n', 'max-args')?.v ?? '') ?? '');
  const size = Number.isInteger(n) && n > 0 ? n : Math.max(1, items.length);
  const lines: Arg[][] = [];
  for (let i = 0; i < Math.max(1, items.length); i += size) lines.push([...command, ...items.slice(i, i + size).map(asArg)]);
  return lines;
}
