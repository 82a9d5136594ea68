import { expand, expandArgs, type EvalContext } from './evaluate.ts';
import type { Arg, Invocation, RedirFact } from './model.ts';
import { HOME_DIR, canonValue, canonical, type Canon } from './paths.ts';
import { staticOutput } from './static-output.ts';
import type { Stmt } from './syntax/ast.ts';
import { programName } from './unwrap.ts';
import { FIELD_SPLIT, display, isKnown, literal, plain } from './values.ts';

/** The shell state a command runs in, as far as the guard follows it. */
export interface State {
  cwd: Canon | null;
  vars: Map<string, string>;
  readonly depth: number;
  readonly funcs: readonly string[];
  readonly upstream: readonly Invocation[];
  readonly piped: boolean;
  readonly background: boolean;
  readonly stdinFrom: Invocation | null;
  /** Iterations of the enclosing loops, so nested loops are not walked combinatorially. */
  readonly loopFactor: number;
}

export const copy = (st: State, over: Partial<State> = {}): State => ({ ...st, vars: new Map(st.vars), ...over });

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

export function setVar(st: State, name: string, v: string): void {
  if (name === 'HOME') return;
  if (isKnown(v)) st.vars.set(name, v);
  else st.vars.delete(name);
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
  return { program, args, cwd: st.cwd, redirs, stdinText: input, upstream: st.upstream, appendsArgs, depth: st.depth, text };
}

/** cd/pushd and export-style assignments change the state later commands run in. */
export function trackState(program: string, args: readonly Arg[], st: State): void {
  if (program === 'cd' || program === 'pushd') {
    const ops = args.filter((a) => !/^-[LPe@]+$/.test(a.v));
    const target = ops[0];
    if (!target) st.cwd = HOME_DIR;
    else if (target.v === '-') st.cwd = null;
    else st.cwd = canonical(target.v, st.cwd);
  } else if (program === 'popd') {
    st.cwd = null;
  } else if (['export', 'declare', 'typeset', 'local', 'readonly'].includes(program)) {
    for (const a of args) {
      const m = /^([A-Za-z_][A-Za-z0-9_]*)=/.exec(a.v);
      if (m) setVar(st, m[1]!, a.v.slice(m[0].length));
    }
  } else if (program === 'set' && args.length > 0) {
    const dash = args.findIndex((a) => a.v === '--');
    const positional = dash >= 0 ? args.slice(dash + 1) : /^[-+]/.test(args[0]!.v) ? null : args;
    if (positional) {
      for (const k of [...st.vars.keys()]) if (/^\d+$/.test(k) && k !== '0') st.vars.delete(k);
      positional.forEach((a, i) => setVar(st, String(i + 1), a.v));
      setVar(st, '@', positional.map((a) => a.v).join(FIELD_SPLIT));
    }
  } else if (program === 'read' || program === 'unset') {
    for (const a of args) if (/^[A-Za-z_][A-Za-z0-9_]*$/.test(a.v)) st.vars.delete(a.v);
  }
}
