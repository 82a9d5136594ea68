import { ShellSyntaxError, type Assign, type Command, type Redirect, type Stmt, type Word, type WordPart } from './ast.ts';
import { Source, WordLowerer } from './lower-words.ts';
import * as mv from './mvdan.ts';
import { goString, kind, mapSlice, opTables, parseBash, present, type GoNode, type GoSlice } from './mvdan.ts';

/** Statement nesting (compound commands, substitutions) beyond which input is refused. */
export const MAX_NESTING = 64;

const stmtOf = (cmd: Command): Stmt => ({ cmd, redirs: [], background: false, negated: false });
/** A statement that only groups (no redirections, `!` or `&` of its own). */
const bare = (s: mv.Stmt): boolean => s.Redirs.$length === 0 && !s.Negated && !s.Background;

/** Lowers mvdan's statements into the guard's tree (ast.ts). */
class Lowerer extends WordLowerer {
  private depth = 0;

  protected stmts(list: GoSlice<mv.Stmt>): Stmt[] {
    return mapSlice(list, (s) => this.stmt(s));
  }

  stmt(s: mv.Stmt): Stmt {
    if (++this.depth > MAX_NESTING) throw new ShellSyntaxError('nesting too deep');
    try {
      const redirs = mapSlice(s.Redirs, (r) => this.redirect(r));
      return { cmd: this.command(s), redirs, background: s.Background, negated: s.Negated };
    } finally {
      this.depth--;
    }
  }

  private command(s: mv.Stmt): Command {
    const c = s.Cmd;
    switch (kind(c)) {
      case null: return { kind: 'simple', assigns: [], words: [] };
      case 'CallExpr': {
        const call = c as mv.CallExpr;
        return { kind: 'simple', assigns: mapSlice(call.Assigns, (a) => this.assign(a)), words: this.words(call.Args) };
      }
      case 'BinaryCmd': return this.binary(s);
      case 'Subshell': return { kind: 'subshell', body: this.stmts((c as mv.StmtList).Stmts) };
      case 'Block': return { kind: 'block', body: this.stmts((c as mv.StmtList).Stmts) };
      case 'IfClause': return this.ifClause(c as mv.IfClause);
      case 'WhileClause': {
        const w = c as mv.WhileClause;
        return { kind: 'loop', cond: this.stmts(w.Cond), body: this.stmts(w.Do) };
      }
      case 'ForClause': return this.forClause(c as mv.ForClause);
      case 'CaseClause': {
        const cc = c as mv.CaseClause;
        const items = mapSlice(cc.Items, (it) => ({ patterns: this.words(it.Patterns), body: this.stmts(it.Stmts) }));
        return { kind: 'case', word: this.word(cc.Word), items };
      }
      case 'FuncDecl': {
        const f = c as mv.FuncDecl;
        return { kind: 'func', name: goString(f.Name.Value), body: this.stmt(f.Body) };
      }
      case 'ArithmCmd': return { kind: 'arith', expr: this.arith((c as mv.Unary).X) };
      case 'TestClause': return { kind: 'test', words: this.testWords((c as mv.Unary).X) };
      case 'DeclClause': return this.declClause(c as mv.DeclClause);
      case 'LetClause': {
        const exprs = mapSlice((c as mv.LetClause).Exprs, (e) => this.arith(e));
        return { kind: 'simple', assigns: [], words: [{ parts: [{ kind: 'lit', value: 'let' }], raw: 'let' }, ...exprs] };
      }
      case 'TimeClause': {
        const inner = present((c as mv.InnerStmt).Stmt);
        const body = inner ? this.stmt(inner) : null;
        // `time -v CMD`: bash has no such option, but where `time` is no keyword (dash) /usr/bin/time runs CMD
        const first = body?.cmd.kind === 'simple' ? body.cmd.words[0]?.parts[0] : undefined;
        if (body?.cmd.kind === 'simple' && first?.kind === 'lit' && first.value.startsWith('-')) {
          const timed: Command = { kind: 'simple', assigns: body.cmd.assigns, words: [{ parts: [{ kind: 'lit', value: 'time' }], raw: 'time' }, ...body.cmd.words] };
          return { kind: 'block', body: [{ ...body, cmd: timed }] };
        }
        return { kind: 'block', body: body ? [body] : [] };
      }
      case 'CoprocClause': return { kind: 'coproc', body: this.stmt((c as mv.InnerStmt).Stmt) };
      default: return this.fail(`command ${kind(c)}`);
    }
  }

  /** `a && b || c` and `a | b | c` lean left in mvdan's tree: flattened without recursing down the chain. */
  private binary(s: mv.Stmt): Command {
    const top = s.Cmd as mv.BinaryCmd;
    const topOp = this.ops.binary.get(top.Op);
    if (topOp === '|' || topOp === '|&') {
      const right: mv.Stmt[] = [];
      let cur = s;
      for (;;) {
        const c = cur.Cmd;
        if (kind(c) !== 'BinaryCmd' || (cur !== s && !bare(cur))) break;
        const op = this.ops.binary.get((c as mv.BinaryCmd).Op);
        if (op !== '|' && op !== '|&') break;
        right.push((c as mv.BinaryCmd).Y);
        cur = (c as mv.BinaryCmd).X;
      }
      return { kind: 'pipe', stages: [this.stmt(cur), ...right.reverse().map((y) => this.stmt(y))] };
    }
    if (topOp !== '&&' && topOp !== '||') return this.fail('binary operator');
    const chain: ['&&' | '||', mv.Stmt][] = [];
    let cur = s;
    for (;;) {
      const c = cur.Cmd;
      if (kind(c) !== 'BinaryCmd' || (cur !== s && !bare(cur))) break;
      const op = this.ops.binary.get((c as mv.BinaryCmd).Op);
      if (op !== '&&' && op !== '||') break;
      chain.push([op, (c as mv.BinaryCmd).Y]);
      cur = (c as mv.BinaryCmd).X;
    }
    let left = this.stmt(cur);
    for (let i = chain.length - 1; i > 0; i--) {
      const [op, y] = chain[i]!;
      left = stmtOf({ kind: 'andor', op, left, right: this.stmt(y) });
    }
    const [op, y] = chain[0]!;
    return { kind: 'andor', op, left, right: this.stmt(y) };
  }

  private ifClause(first: mv.IfClause): Command {
    const clauses: { cond: Stmt[]; body: Stmt[] }[] = [];
    let otherwise: Stmt[] = [];
    let cur = first;
    for (;;) {
      clauses.push({ cond: this.stmts(cur.Cond), body: this.stmts(cur.Then) });
      const next = present(cur.Else);
      if (!next) break;
      if (next.Cond.$length === 0) { otherwise = this.stmts(next.Then); break; }
      cur = next;
    }
    return { kind: 'if', clauses, otherwise };
  }

  private forClause(f: mv.ForClause): Command {
    const loop = f.Loop;
    if (kind(loop) === 'WordIter') {
      const it = loop as mv.WordIter;
      return { kind: 'for', name: goString(it.Name.Value), items: this.words(it.Items), body: this.stmts(f.Do) };
    }
    if (kind(loop) !== 'CStyleLoop') return this.fail(`loop ${kind(loop)}`);
    const c = loop as mv.CStyleLoop;
    return { kind: 'cfor', exprs: [c.Init, c.Cond, c.Post].filter((e) => kind(e)).map((e) => this.arith(e)), body: this.stmts(f.Do) };
  }

  private assign(a: mv.Assign): Assign {
    const array = present(a.Array);
    return {
      name: goString(a.Name.Value),
      index: kind(a.Index) ? this.arith(a.Index) : null,
      value: array ? null : present(a.Value) ? this.word(a.Value) : null,
      array: array ? mapSlice(array.Elems, (e) => this.element(e)) : null,
    };
  }

  /** `[k]=v` of an array literal as one word (its expansions still walked). */
  private element(e: GoNode & { readonly Index: GoNode; readonly Value: mv.Word }): Word {
    const parts: WordPart[] = kind(e.Index) ? [...this.arith(e.Index).parts] : [];
    if (present(e.Value)) parts.push(...this.word(e.Value).parts);
    return { parts, raw: this.src.of(e) };
  }

  /** `export`/`declare`/`local`…: a simple command whose arguments are the assignments as words. */
  private declClause(d: mv.DeclClause): Command {
    const variant = goString(d.Variant.Value);
    const words: Word[] = [{ parts: [{ kind: 'lit', value: variant }], raw: variant }];
    mapSlice(d.Args, (a) => {
      if (a.Naked) { words.push(present(a.Value) ? this.word(a.Value) : { parts: [{ kind: 'lit', value: goString(a.Name.Value) }], raw: this.src.of(a) }); return; }
      const parts: WordPart[] = [{ kind: 'lit', value: goString(a.Name.Value) }];
      if (kind(a.Index)) parts.push({ kind: 'lit', value: '[' }, ...this.arith(a.Index).parts, { kind: 'lit', value: ']' });
      parts.push({ kind: 'lit', value: a.Append ? '+=' : '=' });
      const array = present(a.Array);
      if (array) mapSlice(array.Elems, (e) => parts.push(...this.element(e).parts, { kind: 'sq', value: ' ' }));
      else if (present(a.Value)) parts.push(...this.word(a.Value).parts);
      words.push({ parts: mergeLits(parts), raw: this.src.of(a) });
    });
    return { kind: 'simple', assigns: [], words };
  }

  private redirect(r: mv.Redirect): Redirect {
    const op = this.ops.redirect.get(r.Op);
    if (op === undefined) return this.fail('redirection operator');
    const n = present(r.N);
    const heredoc = op === '<<' || op === '<<-' ? this.heredoc(r.Word, r.Hdoc, op === '<<-') : null;
    return { fd: n ? goString(n.Value) : '', op, target: this.word(r.Word), heredoc };
  }
}

function mergeLits(parts: readonly WordPart[]): WordPart[] {
  const out: WordPart[] = [];
  for (const p of parts) {
    const last = out[out.length - 1];
    if (p.kind === 'lit' && last?.kind === 'lit') out[out.length - 1] = { kind: 'lit', value: last.value + p.value };
    else out.push(p);
  }
  return out;
}

/** Parses a whole script with mvdan/sh and lowers it; throws ShellSyntaxError. */
export function parseScript(text: string): Stmt[] {
  const stmts = parseBash(text);
  const lowerer = new Lowerer(new Source(text), opTables());
  return mapSlice(stmts, (s) => lowerer.stmt(s));
}
