import { createRequire } from 'node:module';
import { ShellSyntaxError } from './ast.ts';

/**
 * mvdan/sh (npm `mvdan-sh`, its GopherJS build) is the parser. The guard
 * reads the Go structs behind the JS wrappers (`__internal_object__`, the
 * GopherJS js.MakeFullWrapper handle): every wrapper property access
 * re-wraps whole slices (~10 µs each), which would cost more than the check.
 * In those structs strings are UTF-8 byte strings, positions byte offsets,
 * slices `{$array, $offset, $length}`, and a nil pointer is its type's `nil`.
 */

export interface GoSlice<T> {
  readonly $array: readonly T[];
  readonly $offset: number;
  readonly $length: number;
}

interface GoPos { Offset(): number }

/** Any syntax node (or nil: see `kind`). */
export interface GoNode {
  readonly constructor: { readonly string?: string; readonly nil?: unknown };
  Pos(): GoPos;
  End(): GoPos;
}

export interface Lit extends GoNode { readonly Value: string }
export interface Word extends GoNode { readonly Parts: GoSlice<GoNode> }
export interface Stmt extends GoNode {
  readonly Cmd: GoNode;
  readonly Redirs: GoSlice<Redirect>;
  readonly Negated: boolean;
  readonly Background: boolean;
}
export interface Redirect extends GoNode {
  readonly Op: number;
  readonly N: Lit;
  readonly Word: Word;
  readonly Hdoc: Word;
}
export interface Assign extends GoNode {
  readonly Append: boolean;
  readonly Naked: boolean;
  readonly Name: Lit;
  readonly Index: GoNode;
  readonly Value: Word;
  readonly Array: GoNode & { readonly Elems: GoSlice<GoNode & { readonly Index: GoNode; readonly Value: Word }> };
}
export interface CallExpr extends GoNode { readonly Assigns: GoSlice<Assign>; readonly Args: GoSlice<Word> }
export interface BinaryCmd extends GoNode { readonly Op: number; readonly X: Stmt; readonly Y: Stmt }
export interface StmtList extends GoNode { readonly Stmts: GoSlice<Stmt> }
export interface IfClause extends GoNode { readonly Cond: GoSlice<Stmt>; readonly Then: GoSlice<Stmt>; readonly Else: IfClause }
export interface WhileClause extends GoNode { readonly Cond: GoSlice<Stmt>; readonly Do: GoSlice<Stmt> }
export interface ForClause extends GoNode { readonly Loop: GoNode; readonly Do: GoSlice<Stmt> }
export interface WordIter extends GoNode { readonly Name: Lit; readonly Items: GoSlice<Word> }
export interface CStyleLoop extends GoNode { readonly Init: GoNode; readonly Cond: GoNode; readonly Post: GoNode }
export interface CaseClause extends GoNode {
  readonly Word: Word;
  readonly Items: GoSlice<GoNode & { readonly Patterns: GoSlice<Word>; readonly Stmts: GoSlice<Stmt> }>;
}
export interface FuncDecl extends GoNode { readonly Name: Lit; readonly Body: Stmt }
export interface DeclClause extends GoNode { readonly Variant: Lit; readonly Args: GoSlice<Assign> }
export interface LetClause extends GoNode { readonly Exprs: GoSlice<GoNode> }
export interface InnerStmt extends GoNode { readonly Stmt: Stmt }
/** ArithmCmd, ArithmExp, TestClause, UnaryArithm, UnaryTest, ParenArithm, ParenTest. */
export interface Unary extends GoNode { readonly X: GoNode }
/** BinaryArithm, BinaryTest. */
export interface Binary extends GoNode { readonly X: GoNode; readonly Y: GoNode }
export interface SglQuoted extends GoNode { readonly Dollar: boolean; readonly Value: string }
export interface DblQuoted extends GoNode { readonly Parts: GoSlice<GoNode> }
export interface ProcSubst extends StmtList { readonly Op: number }
export interface ParamExp extends GoNode {
  readonly Excl: boolean;
  readonly Length: boolean;
  readonly Param: Lit;
  readonly Index: GoNode;
  readonly Slice: GoNode & { readonly Offset: GoNode; readonly Length: GoNode };
  readonly Repl: GoNode & { readonly All: boolean; readonly Orig: Word; readonly With: Word };
  readonly Exp: GoNode & { readonly Op: number; readonly Word: Word };
}

/** The node's Go type without `*syntax.` (`Lit`, `CallExpr`, …); null for nil. */
export function kind(n: GoNode | null | undefined): string | null {
  const t = n?.constructor?.string;
  if (t === undefined || n === n!.constructor.nil) return null;
  return t.startsWith('*syntax.') ? t.slice(8) : t;
}

/** The node, or null when it is a nil pointer. */
export function present<T extends GoNode>(n: T | null | undefined): T | null {
  return n === null || n === undefined || n === n.constructor.nil ? null : n;
}

export function mapSlice<T, U>(s: GoSlice<T>, fn: (x: T) => U): U[] {
  const out: U[] = [];
  for (let i = s.$offset, end = s.$offset + s.$length; i < end; i++) out.push(fn(s.$array[i]!));
  return out;
}

const NON_ASCII_BYTE = /[\x80-\xff]/;

/** A Go (UTF-8 byte) string as text. */
export function goString(v: string): string {
  return NON_ASCII_BYTE.test(v) ? Buffer.from(v, 'latin1').toString('utf8') : v;
}

interface Wrapped { readonly __internal_object__: { readonly Stmts: GoSlice<Stmt> } }
interface JsParser { Parse(src: string, name: string): Wrapped }
interface MvdanSh { readonly syntax: { NewParser(): JsParser } }

/** Operator tokens, read off probe parses so they always match the installed build. */
export interface OpTables {
  readonly redirect: ReadonlyMap<number, string>;
  readonly binary: ReadonlyMap<number, string>;
  readonly expansion: ReadonlyMap<number, string>;
  readonly proc: ReadonlyMap<number, '<' | '>'>;
}

const REDIRECT_PROBE = ': <a >b >>c <>d <&e >&f >|g <<<h &>i &>>j <<K <<-L\nK\n\tL\n';
const REDIRECT_OPS = ['<', '>', '>>', '<>', '<&', '>&', '>|', '<<<', '&>', '&>>', '<<', '<<-'];
const BINARY_OPS = ['&&', '||', '|', '|&'];
const EXPANSION_OPS = [':-', '-', ':=', '=', ':?', '?', ':+', '+', '%', '%%', '#', '##', '^', '^^', ',', ',,', '@'];

interface Loaded { readonly sh: MvdanSh; parser: JsParser; readonly ops: OpTables }
let loaded: Loaded | null = null;

function first<T>(s: GoSlice<T>): T {
  if (s.$length < 1) throw new Error('mvdan-sh probe parse came back empty');
  return s.$array[s.$offset]!;
}

function table<T extends string>(codes: readonly number[], names: readonly T[]): Map<number, T> {
  if (codes.length !== names.length || new Set(codes).size !== codes.length) throw new Error('mvdan-sh operator probe mismatch');
  return new Map(codes.map((c, i) => [c, names[i]!]));
}

function probe(p: JsParser): OpTables {
  const stmts = (src: string): GoSlice<Stmt> => p.Parse(src, '').__internal_object__.Stmts;
  const redirs = mapSlice(first(stmts(REDIRECT_PROBE)).Redirs, (r) => r.Op);
  const binary = BINARY_OPS.map((op) => (first(stmts(`a ${op} b`)).Cmd as BinaryCmd).Op);
  const exp = EXPANSION_OPS.map((op) => `\${a${op}${op === '@' ? 'Q' : 'x'}}`).join('');
  const arg = (first(stmts(`: ${exp}`)).Cmd as CallExpr).Args;
  const expCodes = mapSlice((arg.$array[arg.$offset + 1]!).Parts, (pe) => (pe as ParamExp).Exp.Op);
  const procArgs = (first(stmts(': <(a) >(b)')).Cmd as CallExpr).Args;
  const procCodes = mapSlice(procArgs, (w) => (first(w.Parts) as ProcSubst).Op).slice(1);
  return {
    redirect: table(redirs, REDIRECT_OPS),
    binary: table(binary, BINARY_OPS),
    expansion: table(expCodes, EXPANSION_OPS),
    proc: table(procCodes, ['<', '>'] as const),
  };
}

function load(): Loaded {
  if (loaded) return loaded;
  const sh = createRequire(import.meta.url)('mvdan-sh') as MvdanSh;
  const parser = sh.syntax.NewParser();
  loaded = { sh, parser, ops: probe(parser) };
  return loaded;
}

export function opTables(): OpTables {
  return load().ops;
}

/** Parses Bash text into mvdan's statements; throws ShellSyntaxError when it does not parse. */
export function parseBash(text: string): GoSlice<Stmt> {
  const m = load();
  try {
    return m.parser.Parse(text, '').__internal_object__.Stmts;
  } catch (e) {
    if (e instanceof Error) {
      // a runtime failure (e.g. stack overflow on deep nesting) may leave the parser half-way: start a fresh one
      m.parser = m.sh.syntax.NewParser();
      throw new ShellSyntaxError(`shell parser failed: ${e.message}`);
    }
    const err = e as { Error?: () => string } | null;
    throw new ShellSyntaxError(typeof err?.Error === 'function' ? err.Error() : String(e));
  }
}
