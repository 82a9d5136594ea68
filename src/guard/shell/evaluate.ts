import type { Arg, ArgInfo, Invocation } from './model.ts';
import { canonValue, type Canon } from './paths.ts';
import type { Stmt, Word, WordPart } from './syntax/ast.ts';
import { patternRegex, replaced, sliced, trimmed } from './param-ops.ts';
import { FIELD_SPLIT, HOME, UNKNOWN, expandBraces, isKnown, live } from './values.ts';

/** What expansion needs from the walk: variables, the directory, and substitutions. */
export interface EvalContext {
  readonly vars: ReadonlyMap<string, string>;
  readonly cwd: Canon | null;
  /** Walks a substitution's commands (their findings count) and returns the invocations inside. */
  /** `async`: a process substitution, which runs beside the command like a background job. */
  walkSubst(stmts: readonly Stmt[], async?: boolean): readonly Invocation[];
  /** The output of a substitution when it is static (`$(echo rm)`), else null. */
  substOutput(stmts: readonly Stmt[]): string | null;
  /**
   * A value bash expands once more as shell text (`${x@P}` runs its `$(…)`): walked
   * like code when it is known (null: unknown), so what it would run counts.
   */
  expandsAsCode(value: string | null, text: string): void;
  /** `${X:=/}` assigns its default to X when X is unset (or empty), which later words see. */
  assignDefault?(name: string, value: string): void;
}

interface Acc {
  text: string;
  computed: boolean;
  ansi: boolean;
  quoted: boolean;
  inner: Invocation[];
}

const USER = /^[A-Za-z_][A-Za-z0-9_.-]*$/;

function tilde(prefix: string, cwd: Canon | null): string | null {
  if (prefix === '') return HOME;
  if (prefix === '+') return cwd ? canonValue(cwd) : UNKNOWN;
  if (prefix === '-') return UNKNOWN;
  if (prefix === 'root') return '/root';
  return USER.test(prefix) ? `/home/${prefix}` : null;
}

/**
 * Where bash expands a `~`: at the start of a word; in an assignment's value (`X=~/a:~/b`) also after each unquoted
 * `:`; and in a word shaped like an assignment (`env X=~/k`, `dd if=~/k`, `export P=a:~`) after its first `=` and each
 * `:` (bash, not in POSIX mode; never in `--opt=~`, whose `--opt` is no name).
 */
export type TildeMode = 'word' | 'assignment' | 'argument';

/** Where the value of a word shaped like `NAME=`, `NAME[i]=` or `NAME+=` starts; -1 when it is not one. */
function assignmentValue(lit: string): number {
  const m = /^[A-Za-z_][A-Za-z0-9_]*(?:\[[^\]]*\])?\+?=/.exec(lit);
  return m ? m[0].length : -1;
}

/** An unquoted literal with its tilde-prefixes (at `starts`, ending at `/`, or `:` in assignments) expanded. */
function tildes(v: string, starts: readonly number[], assign: boolean, more: boolean, cwd: Canon | null): string {
  let out = '';
  let from = 0;
  for (const p of [...new Set(starts)].sort((a, b) => a - b)) {
    if (p < from || v[p] !== '~') continue;
    let q = p + 1;
    while (q < v.length && v[q] !== '/' && !(assign && v[q] === ':')) q++;
    // a prefix running into the next part (quoted, or an expansion) is not a tilde-prefix
    if (q === v.length && more) continue;
    const home = tilde(v.slice(p + 1, q), cwd);
    if (home === null) continue;
    out += live(v.slice(from, p)) + home;
    from = q;
  }
  return out + live(v.slice(from));
}

/** Unquoted expansion results are split on IFS (default space, tab, newline). */
function fields(value: string, ctx: EvalContext): string {
  const ifs = ctx.vars.get('IFS') ?? ' \t\n';
  if (ifs === '' || !isKnown(value)) return value;
  let out = '';
  for (const c of value) out += ifs.includes(c) ? FIELD_SPLIT : c;
  return out;
}

const DEFAULTS: ReadonlySet<string> = new Set([':-', '-', ':=', '=', ':+', '+']);

function param(p: Extract<WordPart, { kind: 'param' }>, ctx: EvalContext, quoted: boolean, acc: Acc): string {
  acc.computed = true;
  const op = p.op;
  // an unquoted default's word has its `~` expanded (`: ${D:=~}` sets D to the home directory), a quoted one's not
  const argValue = (): string => (!p.arg ? '' : DEFAULTS.has(op) && !quoted ? parts(p.arg.parts, ctx, acc, false, true) : expandWord(p.arg, ctx, acc, true));
  const index = p.index ? expandWord(p.index, ctx, acc, true) : null;
  let known: string | undefined;
  if (index !== null) known = elementOf(ctx.vars, p.name, index, quoted);
  else if (p.name === 'HOME') known = HOME;
  else if (p.name === 'PWD' && ctx.cwd) known = canonValue(ctx.cwd);
  else if (p.name === '*') known = ctx.vars.get('@')?.replaceAll(FIELD_SPLIT, quoted ? ' ' : FIELD_SPLIT);
  else known = ctx.vars.get(p.name); // "$@" keeps its words apart (FIELD_SPLIT survives quoting)
  // with a colon an empty value counts as unset (`X=; rm -rf ${X:-/}` removes /)
  const unset = known === undefined || (op.startsWith(':') && known === '');
  let out: string;
  if (op === '') out = known ?? UNKNOWN;
  else if (op === ':-' || op === '-' || op === ':=' || op === '=') {
    const a = argValue();
    out = unset ? a : known!;
    if (unset && op.endsWith('=')) ctx.assignDefault?.(p.name, a);
  }
  else if (op === ':?' || op === '?') { argValue(); out = known ?? UNKNOWN; }
  else if (op === ':+' || op === '+') { const a = argValue(); out = known === undefined ? UNKNOWN : unset ? '' : a; }
  else if ((op === '%' || op === '%%') && known === HOME) { argValue(); out = HOME; }
  else if (op === 'length' && known !== undefined && isKnown(known)) out = String([...known].length);
  else if (known !== undefined && ['#', '##', '%', '%%', '^^', ',,'].includes(op)) {
    argValue();
    out = trimmed(known, op, p.arg ? patternRegex(p.arg.parts) : '') ?? UNKNOWN;
  }
  else if (p.repl) out = replacement(p.repl, op, single(p) ? known : undefined, ctx, acc);
  else if (op === ':' && p.slice) { argValue(); out = (single(p) && known !== undefined ? sliced(known, p.slice.offset, p.slice.length) : null) ?? UNKNOWN; }
  else if (op === '@' && p.arg && /^P$/.test(argValue())) { ctx.expandsAsCode(known ?? null, `\${${p.name}@P}`); out = UNKNOWN; }
  else { argValue(); out = UNKNOWN; }
  if (p.name === 'IFS' && op === '' && known === undefined) out = ' ';
  return quoted ? out : live(fields(out, ctx));
}

/**
 * `${x[i]}`, `${x[@]}`: an element an array literal, mapfile or `read -a` gave (builtin-values.ts), or, for an array the
 * guard does not hold, the variable's own value (`x=/etc/shadow; cat ${x[0]}`), as before; an index it cannot read, unknown.
 */
function elementOf(vars: ReadonlyMap<string, string>, name: string, index: string, quoted: boolean): string | undefined {
  const all = vars.get(`${name}[@]`);
  if (index === '@' || index === '*') return all === undefined ? vars.get(name) : index === '*' && quoted ? all.replaceAll(FIELD_SPLIT, ' ') : all;
  const i = /^\s*\d+\s*$/.test(index) ? Number(index) : null;
  if (i === null) return all === undefined ? vars.get(name) : UNKNOWN;
  return vars.get(`${name}[${i}]`) ?? (all === undefined ? vars.get(name) : '');
}

/** A plain variable's value: not `$@`/`$*` (a list of words), an array element or `${!X…}` (another variable's name). */
const single = (p: Extract<WordPart, { kind: 'param' }>): boolean => !p.index && p.name !== '@' && p.name !== '*' && !p.op.startsWith('!');

/** `${X/pat/rep}` and its anchored and global forms (their substitutions walked), worked out when X is known. */
function replacement(r: NonNullable<Extract<WordPart, { kind: 'param' }>['repl']>, op: string, known: string | undefined, ctx: EvalContext, acc: Acc): string {
  expandWord(r.pattern, ctx, acc, true);
  const by = expandWord(r.with, ctx, acc, true);
  // an unquoted `~` in the replacement is the home directory (tilde expansion), even inside double quotes
  const tilde = r.with.parts.some((q) => q.kind === 'lit' && q.value.includes('~'));
  return (known === undefined || tilde ? null : replaced(known, op, patternRegex(r.pattern.parts), by)) ?? UNKNOWN;
}

function parts(list: readonly WordPart[], ctx: EvalContext, acc: Acc, quoted: boolean, first: boolean, mode: TildeMode = 'word'): string {
  let text = '';
  const head = list[0];
  const assignAt = quoted || !first ? -1 : mode === 'assignment' ? 0 : mode === 'argument' && head?.kind === 'lit' ? assignmentValue(head.value) : -1;
  list.forEach((p, i) => {
    switch (p.kind) {
      case 'lit': {
        if (quoted) { text += p.value; break; }
        const starts = first && i === 0 ? [0] : [];
        if (assignAt >= 0) {
          // after the first `=` (the start of an assignment's value) and each unquoted `:`
          if (i === 0) starts.push(assignAt);
          for (let k = p.value.indexOf(':', i === 0 ? assignAt : 0); k >= 0; k = p.value.indexOf(':', k + 1)) starts.push(k + 1);
        }
        text += tildes(p.value, starts, assignAt >= 0, i < list.length - 1, ctx.cwd);
        break;
      }
      case 'sq':
        acc.quoted = true;
        text += p.value;
        break;
      case 'ansi':
        acc.quoted = true;
        acc.ansi = true;
        acc.computed = true;
        text += p.value;
        break;
      case 'dq':
        acc.quoted = true;
        text += parts(p.parts, ctx, acc, true, false);
        break;
      case 'param':
        text += param(p, ctx, quoted, acc);
        break;
      case 'cmd': {
        acc.computed = true;
        acc.inner.push(...ctx.walkSubst(p.stmts));
        const out = ctx.substOutput(p.stmts);
        text += out === null ? UNKNOWN : quoted ? out : live(fields(out, ctx));
        break;
      }
      case 'proc':
        acc.computed = true;
        acc.inner.push(...ctx.walkSubst(p.stmts, true));
        text += '/dev/fd/63';
        break;
      case 'arith':
        acc.computed = true;
        expandWord(p.expr, ctx, acc, true);
        arithmeticValues(p.expr.raw, ctx);
        text += UNKNOWN;
        break;
    }
  });
  return text;
}

function expandWord(w: Word, ctx: EvalContext, acc: Acc, quoted: boolean): string {
  return parts(w.parts, ctx, acc, quoted, !quoted);
}

export interface Expanded {
  readonly values: readonly string[];
  readonly info: ArgInfo;
}

/** Expands one word the way the shell would, as far as it can be known; `mode`: where a `~` expands. */
export function expand(w: Word, ctx: EvalContext, mode: TildeMode = 'word'): Expanded {
  const acc: Acc = { text: '', computed: false, ansi: false, quoted: false, inner: [] };
  const text = parts(w.parts, ctx, acc, false, true, mode);
  const info: ArgInfo = { computed: acc.computed, ansi: acc.ansi, quoted: acc.quoted, inner: acc.inner, raw: w.raw };
  // an unquoted word that expands to nothing is no word at all: `bash ${x-} -c …` runs bash -c
  if (text === '' && !acc.quoted) return { values: [], info };
  if (text.includes(FIELD_SPLIT)) {
    const words = text.split(FIELD_SPLIT).filter((f) => f !== '');
    return { values: words.flatMap(expandBraces), info };
  }
  return { values: expandBraces(text), info };
}

/** Expands words into arguments (a word shaped like an assignment expands `~` after its `=`, except in an array). */
export function expandArgs(words: readonly Word[], ctx: EvalContext, mode: TildeMode = 'argument'): Arg[] {
  const out: Arg[] = [];
  for (const w of words) {
    const e = expand(w, ctx, mode);
    for (const v of e.values) out.push({ v, info: e.info });
  }
  return out;
}

/**
 * Arithmetic evaluates a variable's value as an expression, and a subscript in it
 * (`a[$(cmd)]`) is expanded: a known value holding a substitution is walked as code.
 */
export function arithmeticValues(expr: string, ctx: EvalContext): void {
  for (const name of new Set(expr.match(/[A-Za-z_][A-Za-z0-9_]*/g) ?? [])) {
    const value = ctx.vars.get(name);
    if (value !== undefined && /\$\(|`|\$\{/.test(value)) ctx.expandsAsCode(value, `$((${name}))`);
  }
}
