/**
 * The guard's typed view of mvdan/sh's syntax tree (see lower.ts): only what
 * decides what runs and on what, with quotes and escapes already resolved.
 */

export type WordPart =
  /** Unquoted text: globs, braces and a leading `~` are live. */
  | { readonly kind: 'lit'; readonly value: string }
  /** Text that quoting or a backslash made literal. */
  | { readonly kind: 'sq'; readonly value: string }
  /** `$'…'`, already decoded. */
  | { readonly kind: 'ansi'; readonly value: string }
  | { readonly kind: 'dq'; readonly parts: readonly WordPart[] }
  | {
    readonly kind: 'param'; readonly name: string; readonly op: string; readonly arg: Word | null; readonly index: Word | null;
    /** `${X/PAT/REP}` (op `/`, `//`, `/#`, `/%`): the pattern, its `#` or `%` anchor taken off, and the replacement apart. */
    readonly repl?: { readonly pattern: Word; readonly with: Word };
    /** `${X:OFF:LEN}` (op `:`): each a whole number when written as one (`-2`), else null; `length` undefined when absent. */
    readonly slice?: { readonly offset: number | null; readonly length?: number | null };
  }
  | { readonly kind: 'cmd'; readonly stmts: readonly Stmt[] }
  | { readonly kind: 'proc'; readonly op: '<' | '>'; readonly stmts: readonly Stmt[] }
  | { readonly kind: 'arith'; readonly expr: Word };

export interface Word {
  readonly parts: readonly WordPart[];
  readonly raw: string;
}

export interface Heredoc {
  readonly body: Word;
  readonly quoted: boolean;
}

export interface Redirect {
  readonly fd: string;
  readonly op: string;
  readonly target: Word;
  readonly heredoc: Heredoc | null;
}

export interface Assign {
  readonly name: string;
  /** `a[i]=…`: the subscript (its substitutions run). */
  readonly index: Word | null;
  readonly value: Word | null;
  readonly array: readonly Word[] | null;
}

export interface CaseItem {
  readonly patterns: readonly Word[];
  readonly body: readonly Stmt[];
}

export type Command =
  | { readonly kind: 'simple'; readonly assigns: readonly Assign[]; readonly words: readonly Word[] }
  | { readonly kind: 'andor'; readonly op: '&&' | '||'; readonly left: Stmt; readonly right: Stmt }
  | { readonly kind: 'pipe'; readonly stages: readonly Stmt[] }
  | { readonly kind: 'subshell'; readonly body: readonly Stmt[] }
  | { readonly kind: 'block'; readonly body: readonly Stmt[] }
  | { readonly kind: 'if'; readonly clauses: readonly { cond: readonly Stmt[]; body: readonly Stmt[] }[]; readonly otherwise: readonly Stmt[] }
  | { readonly kind: 'loop'; readonly cond: readonly Stmt[]; readonly body: readonly Stmt[] }
  | { readonly kind: 'for'; readonly name: string; readonly items: readonly Word[] | null; readonly body: readonly Stmt[] }
  | { readonly kind: 'cfor'; readonly exprs: readonly Word[]; readonly body: readonly Stmt[] }
  | { readonly kind: 'case'; readonly word: Word; readonly items: readonly CaseItem[] }
  | { readonly kind: 'func'; readonly name: string; readonly body: Stmt }
  | { readonly kind: 'arith'; readonly expr: Word }
  | { readonly kind: 'test'; readonly words: readonly Word[] }
  | { readonly kind: 'coproc'; readonly body: Stmt };

export interface Stmt {
  readonly cmd: Command;
  readonly redirs: readonly Redirect[];
  readonly background: boolean;
  readonly negated: boolean;
}

export class ShellSyntaxError extends Error {}
