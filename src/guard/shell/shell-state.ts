import { expand, expandArgs, type EvalContext } from './evaluate.ts';
import type { Arg, Invocation, RedirFact } from './model.ts';
import { HOME_DIR, canonValue, canonical, type Canon } from './paths.ts';
import { staticOutput } from './static-output.ts';
import type { Stmt } from './syntax/ast.ts';
import { programName } from './unwrap.ts';
import { GIT_HOME_UNSEEN } from './code-tables.ts';
import { arrayName } from './code-values.ts';
import { FIELD_SPLIT, HOME, UNKNOWN, display, isKnown, literal, plain } from './values.ts';
import { builtinValues } from './builtin-values.ts';

/** The shell state a command runs in, as far as the guard follows it. */
export interface State {
  cwd: Canon | null;
  /** The cwd is where the line goes if a `cd` that may not have run did (a branch, `&&`): good for judging files, not for an "always" scope. */
  cwdGuessed?: boolean;
  vars: Map<string, string>;
  readonly depth: number;
  readonly funcs: readonly string[];
  readonly upstream: readonly Invocation[];
  readonly piped: boolean;
  readonly background: boolean;
  readonly stdinFrom: Invocation | null;
  /** Iterations of the enclosing loops, so nested loops are not walked combinatorially. */
  readonly loopFactor: number;
  /** Listers whose names the command's arguments are (see listings.ts). */
  readonly listed?: readonly Invocation[];
  /** What it prints goes on: to a later pipeline stage, a substitution or a compound's file (see dry-run.ts). */
  readonly feeds?: boolean;
}

export const copy = (st: State, over: Partial<State> = {}): State => ({ ...st, ...over, vars: over.vars ?? new Map(st.vars) });

/** An argument as the guard shows it in a finding. */
export const showArg = (v: string): string => {
  const d = display(v);
  return d === '' || /[\s"'`$;&|<>()\\]/.test(d) ? JSON.stringify(d) : d;
};

/** The output of `$(echo rm)`, `$(printf …)`, `$(which rm)`, when static. */
export function substOutput(stmts: readonly Stmt[], st: State, depth: number): string | null {
  if (stmts.length === 0) return '';
  const only = stmts.length === 1 ? stmts[0]! : null;
  if (!only || depth > 4) return null;
  const stages = only.cmd.kind === 'pipe' ? only.cmd.stages : [only];
  // only computes output: the walk itself judges what the words would run
  const quiet: EvalContext = { vars: st.vars, cwd: st.cwd, walkSubst: () => [], substOutput: (s) => substOutput(s, st, depth + 1), expandsAsCode: () => {} };
  let prev: Invocation | null = null;
  let out: string | null = null;
  for (const stage of stages) {
    if (stage.cmd.kind !== 'simple') return null;
    const args = expandArgs(stage.cmd.words, quiet);
    const program = args[0] ? programName(args[0].v) : null;
    if (!program) return null;
    const redirs = stage.redirs.flatMap((r): RedirFact[] => {
      if (r.heredoc) return [{ op: r.op, fd: r.fd, target: null, text: plain(expand(r.heredoc.body, quiet).values[0] ?? ''), inner: [], cwd: st.cwd }];
      if (r.op === '<<<') return [{ op: r.op, fd: r.fd, target: null, text: plain(expand(r.target, quiet).values[0] ?? '') + '\n', inner: [], cwd: st.cwd }];
      return [];
    });
    const inv = makeInvocation(program, args.slice(1), { ...st, stdinFrom: prev }, redirs, false);
    const rest = args.slice(1).map((a) => literal(a.v));
    out = staticOutput(inv)
      ?? (program === 'pwd' && st.cwd ? canonValue(st.cwd) : null)
      ?? (program === 'which' ? rest[0] : program === 'command' && rest[0] === '-v' ? rest[1] : program === 'type' && (rest[0] === '-P' || rest[0] === '-p') ? rest[1] : null) ?? null;
    if (out === null) return null;
    prev = { ...inv, program: 'cat', args: [], stdinText: out }; // what the next stage reads
  }
  return out === null ? null : out.replace(/\n+$/, '');
}

/** `declare -n REF=NAME` is kept beside the variables, under a key no variable name can have. */
const refKey = (name: string): string => `-n ${name}`;
const MAX_REFS = 8;

/** The variable an assignment to `name` sets: through name references (`declare -n ref=PROMPT_COMMAND`), index kept. */
export function resolveName(vars: ReadonlyMap<string, string>, name: string): string {
  let cur = name;
  for (let i = 0; i < MAX_REFS; i++) {
    const bare = arrayName(cur);
    const next = vars.get(refKey(bare));
    if (next === undefined) return cur;
    cur = next + cur.slice(bare.length);
  }
  return cur;
}

/** Records `declare -n REF=NAME`; a target the guard cannot read is forgotten (see namerefs in variable-setters.ts). */
function setNameref(st: State, ref: string, target: string): void {
  const name = literal(target);
  if (name !== null && /^[A-Za-z_][A-Za-z0-9_]*$/.test(arrayName(name))) st.vars.set(refKey(ref), name);
  else st.vars.delete(refKey(ref));
}

/** A variable holding the names a lister prints is marked `-l NAME` (see listings.ts). */
export const listKey = (name: string): string => `-l ${name}`;

/** `export NAME` is kept beside the variables as `-x NAME`, `set -a` as `-o allexport`: keys no variable name can have. */
const exportKey = (name: string): string => `-x ${name}`;
const ALLEXPORT = '-o allexport';

export function setVar(st: State, name: string, v: string): void {
  assignVar(st.vars, name, v);
}

/** Sets a variable in `vars` (an unknown value forgets it); under `set -a` it is exported too. */
export function assignVar(vars: Map<string, string>, name: string, v: string): void {
  vars.delete(listKey(name));
  // a scalar (or an unset) replaces the array's elements: `${x[0]}` reads it again (see elementOf in evaluate.ts)
  for (const k of [...vars.keys()]) if (k.startsWith(`${name}[`)) vars.delete(k);
  // HOME itself stays the home sentinel when expanded (evaluate.ts); what it was set to matters to git (GIT_HOME_UNSEEN),
  // and so does a GIT_CONFIG_COUNT set to something unseen (not the same as none, see envConfigCount)
  if (isKnown(v)) vars.set(name, v);
  else if (Object.hasOwn(GIT_HOME_UNSEEN, name) || name === 'GIT_CONFIG_COUNT' || SHELL_NAMES.includes(name)) vars.set(name, UNKNOWN);
  else vars.delete(name);
  if (vars.has(ALLEXPORT)) setExported(vars, name, true);
}

/**
 * Pairs from builtinValues or an array literal: names through assignVar, array elements (`NAME[i]`, `NAME[@]`) as given,
 * unknown parts included, which no expansion can mistake for a name.
 */
export function assignValues(vars: Map<string, string>, pairs: readonly (readonly [string, string])[]): void {
  for (const [k, v] of pairs) {
    if (k.includes('[')) vars.set(k, v);
    else assignVar(vars, k, v);
  }
}

export function setExported(vars: Map<string, string>, name: string, on: boolean): void {
  if (on) vars.set(exportKey(name), '');
  else vars.delete(exportKey(name));
}

/** $SHELL, which a shell inherits exported and programs start (see shell-variable.ts): set to something unseen, it is not the user's own. */
const INHERITED_SHELL = 'SHELL';
/** Variables naming a shell some program starts (parallel's PARALLEL_SHELL too): kept unknown when set to something unseen. */
const SHELL_NAMES: readonly string[] = [INHERITED_SHELL, 'PARALLEL_SHELL'];

/**
 * Whether a child process gets the variable: exported, or one the shell usually inherits from its environment already
 * (HOME always, XDG_CONFIG_HOME often, SHELL), where a plain assignment changes what children see. Only those git and other CONFIG_HOME_READERS judge (GIT_HOME_UNSEEN).
 */
export const isExported = (vars: ReadonlyMap<string, string>, name: string): boolean =>
  vars.has(exportKey(name)) || Object.hasOwn(GIT_HOME_UNSEEN, name) || name === INHERITED_SHELL;

/** `export` marks names (`-n` unmarks), `declare -x` / `+x` too; null when the builtin leaves the mark alone. */
function exporting(program: string, args: readonly Arg[]): boolean | null {
  if (program === 'export') return !args.some((a) => /^-[A-Za-z]*n/.test(a.v));
  if (program === 'readonly') return null;
  if (args.some((a) => /^-[A-Za-z]*x/.test(a.v))) return true;
  return args.some((a) => /^\+[A-Za-z]*x/.test(a.v)) ? false : null;
}

/** `set -a`, `set -o allexport` (and `+`): every later assignment is exported. */
function allexport(vars: Map<string, string>, args: readonly Arg[]): void {
  args.forEach((a, i) => {
    const sign = /^([-+])[A-Za-z]*a[A-Za-z]*$/.exec(a.v)?.[1] ?? (/^[-+]o$/.test(a.v) && args[i + 1]?.v === 'allexport' ? a.v[0] : null);
    if (sign === '-') vars.set(ALLEXPORT, '');
    else if (sign === '+') vars.delete(ALLEXPORT);
  });
}

/** Static text on a command's stdin: its heredoc or here-string, else what the previous pipeline stage prints. */
export function stdinText(redirs: readonly RedirFact[], st: State): string | null {
  let text: string | null = null;
  for (const r of redirs) if (r.text !== null && (r.op === '<<' || r.op === '<<-' || r.op === '<<<')) text = r.text;
  return text ?? (st.stdinFrom ? staticOutput(st.stdinFrom) : null);
}

/** An invocation of `program` in this state, with its stdin and display text. */
export function makeInvocation(program: string, args: readonly Arg[], st: State, redirs: readonly RedirFact[], appendsArgs: boolean): Invocation {
  const input = stdinText(redirs, st);
  const text = [program || '…', ...args.map((a) => showArg(a.v))].join(' ');
  const listed = st.listed && st.listed.length > 0 ? { listedBy: st.listed } : {};
  return { program, args, cwd: st.cwd, redirs, stdinText: input, upstream: st.upstream, appendsArgs, depth: st.depth, text, ...listed };
}

/** Builtins that set variables from `NAME=VALUE` arguments; those that make name references, and their option (`-n`, in a cluster like `-gn`). */
export const DECLARERS: ReadonlySet<string> = new Set(['export', 'declare', 'typeset', 'local', 'readonly']);
export const NAMEREF_SETTERS: ReadonlySet<string> = new Set(['declare', 'typeset', 'local']);
export const NAMEREF_OPTION = /^-[A-Za-z]*n/;

/** cd/pushd and export-style assignments change the state later commands run in. */
export function trackState(program: string, args: readonly Arg[], st: State, input: { readonly stdin: string | null; readonly vars: ReadonlyMap<string, string> } = { stdin: null, vars: st.vars }): void {
  if (program === 'cd' || program === 'pushd') {
    const ops = args.filter((a) => !/^-[LPe@]+$/.test(a.v));
    const target = ops[0];
    // `cd -P link/..` lands in the link's real parent, not where `..` reads; CDPATH may send a bare name elsewhere
    const physical = /P[^L]*$/.test(args.filter((a) => /^-[LPe@]+$/.test(a.v)).map((a) => a.v).join(''));
    const cdpath = input.vars.get('CDPATH') ?? st.vars.get('CDPATH');
    const searched = cdpath !== undefined && target !== undefined && !/^(\.{1,2}(\/|$)|\/)/.test(target.v) && !target.v.startsWith(HOME);
    // `CDPATH=/ cd etc` lands in /etc when it is there (bash tries CDPATH's directories first): judged there, as a guess
    const first = searched ? cdpathFirst(cdpath!) : null;
    // `~` and a bare `cd` are the daemon's home only while the line leaves HOME alone
    const homeMoved = st.vars.has('HOME');
    if (!target) st.cwd = homeMoved ? null : HOME_DIR;
    else if (first !== null && !physical && !homeMoved) { st.cwd = canonical(`${first}/${target.v}`, st.cwd); st.cwdGuessed = true; }
    else if (target.v === '-' || searched || (physical && target.v.split('/').includes('..')) || (homeMoved && target.v.startsWith(HOME))) st.cwd = null;
    else {
      st.cwd = canonical(target.v, st.cwd);
      // an absolute directory is known again, whatever came before
      if (target.v.startsWith('/')) st.cwdGuessed = false;
    }
  } else if (program === 'popd') {
    st.cwd = null;
  } else if (DECLARERS.has(program)) {
    const refs = NAMEREF_SETTERS.has(program) && args.some((a) => NAMEREF_OPTION.test(a.v));
    const exports = exporting(program, args);
    for (const a of args) {
      const m = /^([A-Za-z_][A-Za-z0-9_]*)(=|$)/.exec(a.v);
      if (!m) continue;
      if (refs && m[2]) { setNameref(st, m[1]!, a.v.slice(m[0].length)); continue; }
      const name = resolveName(st.vars, m[1]!);
      if (m[2]) setVar(st, name, a.v.slice(m[0].length));
      if (exports !== null) setExported(st.vars, name, exports);
    }
  } else if (program === 'set' && args.length > 0) {
    allexport(st.vars, args);
    const dash = args.findIndex((a) => a.v === '--');
    const positional = dash >= 0 ? args.slice(dash + 1) : /^[-+]/.test(args[0]!.v) ? null : args;
    if (positional) {
      // the old parameters and what marked them (see listings.ts) go
      for (const k of [...st.vars.keys()]) if (/^(-l )?(\d+|\*)$/.test(k) && !/^(-l )?0$/.test(k)) st.vars.delete(k);
      positional.forEach((a, i) => setVar(st, String(i + 1), a.v));
      setVar(st, '@', positional.map((a) => a.v).join(FIELD_SPLIT));
    }
  } else if (program === 'read' || program === 'printf' || program === 'mapfile' || program === 'readarray') {
    // what they assign, when it can be seen (`read x <<< /etc/shadow`); unseen, the variables are forgotten
    assignValues(st.vars, builtinValues(program, args, input.stdin));
  } else if (program === 'unset') {
    for (const a of args) {
      if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(a.v)) continue;
      const name = resolveName(st.vars, a.v);
      st.vars.delete(name);
      st.vars.delete(listKey(name));
      for (const k of [...st.vars.keys()]) if (k.startsWith(`${name}[`)) st.vars.delete(k);
      setExported(st.vars, name, false);
    }
  }
}

/** CDPATH's first directory, when it is known and absolute (or the home); null when the search cannot be followed. */
function cdpathFirst(cdpath: string): string | null {
  const dir = cdpath.split(':')[0] ?? '';
  return isKnown(dir) && dir !== '' && (dir.startsWith('/') || dir.startsWith(HOME)) ? dir.replace(/\/+$/, '') : null;
}
