import { decodeAnsiC } from './ansi-c.ts';
import { ShellSyntaxError, type Heredoc, type Stmt, type Word, type WordPart } from './ast.ts';
import * as mv from './mvdan.ts';
import { goString, kind, mapSlice, present, type GoNode, type GoSlice, type OpTables } from './mvdan.ts';

/** Where a literal stands: which backslash escapes the shell resolves there. */
type Context = 'unquoted' | 'dquoted' | 'heredoc';

const DQ_ESCAPE = /\\([$`"\\\n])/g;
const HEREDOC_ESCAPE = /\\([$`\\\n])/g;
const unescape = (_m: string, c: string): string => (c === '\n' ? '' : c);
const EMPTY_WORD: Word = { parts: [], raw: '' };

/** The source text, sliced by mvdan's byte offsets. */
export class Source {
  private bytes: Buffer | null = null;
  private readonly ascii: boolean;

  constructor(readonly text: string) {
    this.ascii = !/[^\x00-\x7f]/.test(text);
  }

  of(n: GoNode): string {
    const from = n.Pos().Offset();
    const to = n.End().Offset();
    if (this.ascii) return this.text.slice(from, to);
    this.bytes ??= Buffer.from(this.text, 'utf8');
    return this.bytes.subarray(from, to).toString('utf8');
  }
}

/** Appends text as a `lit` part, merged with a `lit` before it (mvdan may split literals). */
function pushLit(out: WordPart[], value: string): void {
  if (value === '') return;
  const last = out[out.length - 1];
  if (last?.kind === 'lit') out[out.length - 1] = { kind: 'lit', value: last.value + value };
  else out.push({ kind: 'lit', value });
}

/** Unquoted text keeps its backslashes in mvdan's Lit: `\x` is a quoted `x`, `\<newline>` nothing. */
function unquotedLit(v: string, out: WordPart[]): void {
  if (!v.includes('\\')) { pushLit(out, v); return; }
  let lit = '';
  for (let i = 0; i < v.length; i++) {
    const c = v[i]!;
    if (c !== '\\' || i + 1 >= v.length) { lit += c; continue; }
    const n = String.fromCodePoint(v.codePointAt(i + 1)!);
    i += n.length;
    if (n === '\n') continue;
    pushLit(out, lit);
    lit = '';
    out.push({ kind: 'sq', value: n });
  }
  pushLit(out, lit);
}

/** `<<-` drops leading tabs of every body line (mvdan leaves them in, up to the delimiter line's). */
function stripTabs(v: string, atLineStart: boolean): string {
  const s = v.replace(/\n\t+/g, '\n');
  return atLineStart ? s.replace(/^\t+/, '') : s;
}

/**
 * An extended glob (`@(a|b)`, live under `shopt -s extglob`) as the plain
 * pattern it can match: `@`/`?` as brace alternatives, the rest (and nested
 * ones) as `*`, so a target like `/@(usr|etc)` is judged as what it names.
 */
function extglob(raw: string): string {
  const op = raw[0];
  const alts = raw.slice(2, -1).split('|');
  if (raw.slice(2, -1).includes('(') || (op !== '@' && op !== '?')) return '*';
  if (op === '?') alts.unshift('');
  return alts.length === 1 ? alts[0]! : `{${alts.join(',')}}`;
}

/** Turns mvdan word nodes into the guard's words; statement lists come from the subclass. */
export abstract class WordLowerer {
  constructor(protected readonly src: Source, protected readonly ops: OpTables) {}

  protected abstract stmts(list: GoSlice<mv.Stmt>): Stmt[];

  protected fail(what: string): never {
    throw new ShellSyntaxError(`unsupported shell syntax: ${what}`);
  }

  word(w: mv.Word | null): Word {
    const node = present(w);
    if (!node) return EMPTY_WORD;
    return { parts: this.parts(node.Parts, 'unquoted'), raw: this.src.of(node) };
  }

  protected words(list: GoSlice<mv.Word>): Word[] {
    return mapSlice(list, (w) => this.word(w));
  }

  protected parts(list: GoSlice<GoNode>, ctx: Context, out: WordPart[] = []): WordPart[] {
    for (let i = list.$offset, end = list.$offset + list.$length; i < end; i++) this.part(list.$array[i]!, ctx, out);
    return out;
  }

  private part(p: GoNode, ctx: Context, out: WordPart[]): void {
    switch (kind(p)) {
      case 'Lit': {
        const v = goString((p as mv.Lit).Value);
        if (ctx === 'unquoted') unquotedLit(v, out);
        else pushLit(out, v.replace(ctx === 'dquoted' ? DQ_ESCAPE : HEREDOC_ESCAPE, unescape));
        return;
      }
      case 'SglQuoted': {
        const q = p as mv.SglQuoted;
        const v = goString(q.Value);
        out.push(q.Dollar ? { kind: 'ansi', value: decodeAnsiC(v) } : { kind: 'sq', value: v });
        return;
      }
      case 'DblQuoted':
        out.push({ kind: 'dq', parts: this.parts((p as mv.DblQuoted).Parts, 'dquoted') });
        return;
      case 'ParamExp':
        out.push(this.param(p as mv.ParamExp));
        return;
      case 'CmdSubst':
        out.push({ kind: 'cmd', stmts: this.stmts((p as mv.StmtList).Stmts) });
        return;
      case 'ProcSubst': {
        const op = this.ops.proc.get((p as mv.ProcSubst).Op);
        if (!op) this.fail('process substitution operator');
        out.push({ kind: 'proc', op, stmts: this.stmts((p as mv.ProcSubst).Stmts) });
        return;
      }
      case 'ArithmExp':
        out.push({ kind: 'arith', expr: this.arith((p as mv.Unary).X) });
        return;
      case 'ExtGlob':
        pushLit(out, extglob(this.src.of(p)));
        return;
      case 'BraceExp':
        pushLit(out, this.src.of(p));
        return;
      default:
        this.fail(`word part ${kind(p)}`);
    }
  }

  private param(p: mv.ParamExp): WordPart {
    const name = present(p.Param) ? goString(p.Param.Value) : '';
    let op = p.Length ? 'length' : p.Excl ? '!' : '';
    let arg: Word | null = null;
    const exp = present(p.Exp);
    const repl = present(p.Repl);
    const slice = present(p.Slice);
    if (exp) {
      const o = this.ops.expansion.get(exp.Op);
      if (o === undefined) this.fail('parameter expansion operator');
      op += o;
      arg = present(exp.Word) ? this.word(exp.Word) : null;
    } else if (repl) {
      op += repl.All ? '//' : '/';
      const orig = this.word(repl.Orig);
      const parts = orig.parts.slice();
      pushLit(parts, '/');
      const by = this.word(repl.With);
      parts.push(...by.parts);
      arg = { parts, raw: this.src.of(p) };
      // bash reads a pattern starting with `/` (`${X////Z}` replaces each `/`), mvdan an empty one: not worked out then
      const whole = this.src.of(p);
      if (!present(repl.Orig) && !(whole.endsWith(`${op}}`) && whole[whole.length - op.length - 2] !== '/')) return { kind: 'param', name, op, arg, index: this.index(p) };
      // an unquoted `#` or `%` first anchors the pattern at the start or end (`${X/#a/b}`), not after `//`
      const head = orig.parts[0];
      const anchor = !repl.All && head?.kind === 'lit' && (head.value[0] === '#' || head.value[0] === '%') ? head.value[0] : '';
      op += anchor;
      const first = head?.kind === 'lit' && head.value.length > 1 ? [{ kind: 'lit' as const, value: head.value.slice(1) }] : [];
      const rest = anchor === '' ? orig.parts : [...first, ...orig.parts.slice(1)];
      return { kind: 'param', name, op, arg, index: this.index(p), repl: { pattern: { parts: rest, raw: orig.raw }, with: by } };
    } else if (slice) {
      op += ':';
      arg = { parts: [...this.arith(slice.Offset).parts, ...this.arith(slice.Length).parts], raw: this.src.of(p) };
      const length = kind(slice.Length) ? this.wholeNumber(slice.Length) : undefined;
      return { kind: 'param', name, op, arg, index: this.index(p), slice: { offset: this.wholeNumber(slice.Offset), ...(length === undefined ? {} : { length }) } };
    }
    return { kind: 'param', name, op, arg, index: this.index(p) };
  }

  private index(p: mv.ParamExp): Word | null {
    return kind(p.Index) ? this.arith(p.Index) : null;
  }

  /** An arithmetic operand written as a whole number (`2`, `-2`, none at all: 0), else null (octal, names, sums). */
  private wholeNumber(e: GoNode | null): number | null {
    const text = kind(e) ? this.src.of(e!) : '';
    const m = /^\s*([+-]?)\s*(0|[1-9][0-9]{0,14})\s*$/.exec(text);
    if (text.trim() === '') return 0;
    return m ? Number(m[1]! + m[2]!) : null;
  }

  /** Arithmetic as one word of every expansion in it (its value is never known). */
  protected arith(e: GoNode | null): Word {
    if (!kind(e)) return EMPTY_WORD;
    const parts: WordPart[] = [];
    this.collect(e!, parts);
    return { parts, raw: this.src.of(e!) };
  }

  private collect(e: GoNode, out: WordPart[]): void {
    switch (kind(e)) {
      case null: return;
      case 'Word': this.parts((e as mv.Word).Parts, 'unquoted', out); return;
      case 'UnaryArithm':
      case 'ParenArithm':
      case 'UnaryTest':
      case 'ParenTest': this.collect((e as mv.Unary).X, out); return;
      case 'BinaryArithm':
      case 'BinaryTest': this.collect((e as mv.Binary).X, out); this.collect((e as mv.Binary).Y, out); return;
      default: this.fail(`expression ${kind(e)}`);
    }
  }

  /** Every word of a `[[ … ]]` expression. */
  protected testWords(e: GoNode, out: Word[] = []): Word[] {
    switch (kind(e)) {
      case null: break;
      case 'Word': out.push(this.word(e as mv.Word)); break;
      case 'UnaryTest':
      case 'ParenTest': this.testWords((e as mv.Unary).X, out); break;
      case 'BinaryTest': this.testWords((e as mv.Binary).X, out); this.testWords((e as mv.Binary).Y, out); break;
      default: this.fail(`test expression ${kind(e)}`);
    }
    return out;
  }

  /** A heredoc body: literal when its delimiter has any quoting, else expanded like double quotes without `"`. */
  protected heredoc(delimiter: mv.Word, body: mv.Word | null, dash: boolean): Heredoc {
    const quoted = mapSlice(delimiter.Parts, (p) => kind(p) !== 'Lit' || (p as mv.Lit).Value.includes('\\')).some(Boolean);
    const node = present(body);
    if (!node) return { body: EMPTY_WORD, quoted };
    const raw = this.src.of(node);
    if (quoted) {
      let text = '';
      let atLineStart = true;
      mapSlice(node.Parts, (p) => {
        const v = kind(p) === 'Lit' ? goString((p as mv.Lit).Value) : this.src.of(p);
        text += dash ? stripTabs(v, atLineStart) : v;
        atLineStart = v.endsWith('\n');
      });
      return { body: { parts: [{ kind: 'sq', value: text }], raw }, quoted };
    }
    const parts: WordPart[] = [];
    let atLineStart = true;
    mapSlice(node.Parts, (p) => {
      if (kind(p) === 'Lit') {
        const v = goString((p as mv.Lit).Value);
        pushLit(parts, (dash ? stripTabs(v, atLineStart) : v).replace(HEREDOC_ESCAPE, unescape));
        atLineStart = v.endsWith('\n');
      } else {
        this.part(p, 'heredoc', parts);
        atLineStart = false;
      }
    });
    return { body: { parts, raw }, quoted };
  }
}
