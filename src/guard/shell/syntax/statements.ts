import type { Assign, Command, Redirect, Stmt, Word, WordPart } from './ast.ts';
import { WordReader } from './words.ts';

const RESERVED = /^(if|then|elif|else|fi|do|done|case|esac|while|until|for|select|in|function|time|coproc|\{|\}|!|\[\[)(?=$|[ \t\n;&|()<>])/;
const REDIRECT = /^(\d+|\{[A-Za-z_][A-Za-z0-9_]*\})?(&>>|&>|<<<|<<-|<<|<>|<&|>&|>>|>\||<|>)/;
const ASSIGN = /^[A-Za-z_][A-Za-z0-9_]*(\[[^\]]*\])?\+?=/;
export const NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
/** Bash accepts almost anything as a function name (`:` in the classic fork bomb). */
export const FUNC_NAME = /^[^\s;&|()<>'"`$\\]+$/;
/** Nesting of `$(…)`, backticks and compound commands beyond which input is refused. */
export const MAX_NESTING = 64;

interface PendingHeredoc {
  readonly redir: Redirect;
  readonly delimiter: string;
  readonly strip: boolean;
}

export type Terms = ReadonlySet<string>;
/** Builtins whose `name=(…)` arguments are assignments. */
const DECLARATIONS = new Set(['declare', 'typeset', 'local', 'export', 'readonly']);

/** `declare a=(x y)`: the assignment as one argument word (its expansions still walked). */
function assignmentWord(a: Assign, raw: string): Word {
  const parts: WordPart[] = [{ kind: 'lit', value: a.name + '=' }];
  for (const w of a.array ?? []) parts.push(...w.parts, { kind: 'sq', value: ' ' });
  return { parts, raw };
}

export const NO_TERMS: Terms = new Set();

/** Lists, pipelines, simple commands, redirections and heredocs; compound commands come from the subclass. */
export abstract class StatementParser extends WordReader {
  protected abstract parseCompound(): Command | null;

  protected pending: PendingHeredoc[] = [];
  private depth = 0;

  protected nested<T>(fn: () => T): T {
    if (++this.depth + this.nesting > MAX_NESTING) this.fail('nesting too deep');
    try {
      return fn();
    } finally {
      this.depth--;
    }
  }

  protected skipBlanks(): void {
    for (;;) {
      const c = this.ch();
      if (this.isBlank(c)) { this.pos++; continue; }
      if (c === '\\' && this.ch(1) === '\n') { this.pos += 2; continue; }
      if (c === '#') {
        const nl = this.src.indexOf('\n', this.pos);
        this.pos = nl < 0 ? this.src.length : nl;
      }
      return;
    }
  }

  protected consumeNewline(): void {
    this.pos++;
    this.readHeredocs();
  }

  protected skipLinebreaks(): void {
    for (;;) {
      this.skipBlanks();
      if (this.ch() !== '\n') return;
      this.consumeNewline();
    }
  }

  protected readHeredocs(): void {
    const pending = this.pending;
    this.pending = [];
    for (const h of pending) {
      let body = '';
      for (;;) {
        if (this.eof()) break;
        const nl = this.src.indexOf('\n', this.pos);
        const end = nl < 0 ? this.src.length : nl;
        let line = this.src.slice(this.pos, end);
        this.pos = nl < 0 ? end : end + 1;
        if (h.strip) line = line.replace(/^\t+/, '');
        if (line === h.delimiter) break;
        body += line + '\n';
      }
      const quoted = h.redir.heredoc!.quoted;
      h.redir.heredoc!.body = quoted ? { parts: [{ kind: 'sq', value: body }], raw: body } : this.subParser(body).word('heredoc');
    }
  }

  protected reserved(): string | null {
    const m = RESERVED.exec(this.src.slice(this.pos, this.pos + 9));
    return m ? m[1]! : null;
  }

  protected atTerm(terms: Terms): boolean {
    const c = this.ch();
    if (c === ')' && terms.has(')')) return true;
    if (terms.has(';;') && (this.startsWith(';;') || this.startsWith(';&'))) return true;
    const r = this.reserved();
    return r !== null && terms.has(r);
  }

  protected expectReserved(word: string): void {
    this.skipLinebreaks();
    if (this.reserved() !== word) this.fail(`expected ${word}`);
    this.pos += word.length;
  }

  protected expectChar(c: string): void {
    this.skipLinebreaks();
    if (this.ch() !== c) this.fail(`expected ${c}`);
    this.pos++;
  }
  protected parseList(terms: Terms): Stmt[] {
    const out: Stmt[] = [];
    for (;;) {
      this.skipLinebreaks();
      if (this.eof() || this.atTerm(terms)) return out;
      const stmt = this.parseAndOr();
      out.push(stmt);
      this.skipBlanks();
      const c = this.ch();
      if (c === '&' && this.ch(1) !== '&') { stmt.background = true; this.pos++; continue; }
      if (c === ';' && this.ch(1) !== ';' && this.ch(1) !== '&') { this.pos++; continue; }
      if (c === '\n') { this.consumeNewline(); continue; }
      if (this.eof() || this.atTerm(terms)) return out;
      this.fail(`unexpected ${JSON.stringify(c)}`);
    }
  }

  protected parseAndOr(): Stmt {
    let left = this.parsePipeline();
    for (;;) {
      this.skipBlanks();
      const op = this.startsWith('&&') ? '&&' : this.startsWith('||') ? '||' : null;
      if (!op) return left;
      this.pos += 2;
      this.skipLinebreaks();
      const right = this.parsePipeline();
      left = { cmd: { kind: 'andor', op, left, right }, redirs: [], background: false, negated: false };
    }
  }

  protected parsePipeline(): Stmt {
    this.skipBlanks();
    let negated = false;
    for (;;) {
      const r = this.reserved();
      if (r === '!') { negated = !negated; this.pos++; this.skipBlanks(); continue; }
      if (r === 'time') {
        this.pos += 4;
        this.skipBlanks();
        if (this.startsWith('-p') && this.isMeta(this.ch(2))) { this.pos += 2; this.skipBlanks(); }
        continue;
      }
      break;
    }
    const stages = [this.parseCommand()];
    for (;;) {
      this.skipBlanks();
      if (this.ch() !== '|' || this.ch(1) === '|') break;
      this.pos += this.ch(1) === '&' ? 2 : 1;
      this.skipLinebreaks();
      stages.push(this.parseCommand());
    }
    const stmt: Stmt = stages.length === 1 ? stages[0]! : { cmd: { kind: 'pipe', stages }, redirs: [], background: false, negated: false };
    if (negated) stmt.negated = true;
    return stmt;
  }

  protected parseCommand(): Stmt {
    this.skipBlanks();
    const compound = this.nested(() => this.parseCompound());
    if (!compound) return this.parseSimple();
    const redirs: Redirect[] = [];
    for (;;) {
      this.skipBlanks();
      const r = this.tryRedirect();
      if (!r) break;
      redirs.push(r);
    }
    return { cmd: compound, redirs, background: false, negated: false };
  }

  protected tryRedirect(): Redirect | null {
    const m = REDIRECT.exec(this.src.slice(this.pos, this.pos + 40));
    if (!m) return null;
    const op = m[2]!;
    if ((op === '<' || op === '>') && !m[1] && this.ch(1) === '(') return null;
    this.pos += m[0].length;
    this.skipBlanks();
    const target = this.readWord();
    if (!target) this.fail(`redirection ${op} needs a target`);
    const redir: Redirect = { fd: m[1] ?? '', op, target, heredoc: null };
    if (op === '<<' || op === '<<-') {
      const quoted = target.parts.some((p) => p.kind !== 'lit');
      const delimiter = target.parts.map((p) => (p.kind === 'lit' || p.kind === 'sq' || p.kind === 'ansi' ? p.value : p.kind === 'dq' ? p.parts.map((q) => (q.kind === 'lit' ? q.value : '')).join('') : '')).join('');
      redir.heredoc = { body: { parts: [], raw: '' }, quoted };
      this.pending.push({ redir, delimiter, strip: op === '<<-' });
    }
    return redir;
  }

  protected tryAssign(): Assign | null {
    const m = ASSIGN.exec(this.src.slice(this.pos, this.pos + 256));
    if (!m) return null;
    const name = m[0].replace(/(\[.*)?\+?=$/, '');
    this.pos += m[0].length;
    if (this.ch() === '(') {
      this.pos++;
      const array: Word[] = [];
      for (;;) {
        this.skipLinebreaks();
        if (this.ch() === ')') { this.pos++; break; }
        const w = this.readWord();
        if (!w) this.fail('bad array assignment');
        array.push(w);
      }
      return { name, value: null, array };
    }
    return { name, value: this.readWord(), array: null };
  }

  protected parseSimple(): Stmt {
    const assigns: Assign[] = [];
    const words: Word[] = [];
    const redirs: Redirect[] = [];
    for (;;) {
      this.skipBlanks();
      const c = this.ch();
      if (this.eof() || c === '\n' || c === ';' || c === '|' || c === ')') break;
      if (c === '&' && this.ch(1) !== '>') break;
      const r = this.tryRedirect();
      if (r) { redirs.push(r); continue; }
      if (c === '(') {
        if (words.length === 1 && assigns.length === 0 && FUNC_NAME.test(words[0]!.raw)) {
          this.pos++;
          this.skipBlanks();
          this.expectChar(')');
          this.skipLinebreaks();
          const body = this.nested(() => this.parseCommand());
          return { cmd: { kind: 'func', name: words[0]!.raw, body }, redirs, background: false, negated: false };
        }
        this.fail('unexpected (');
      }
      if (words.length === 0 || DECLARATIONS.has(words[0]!.raw)) {
        const start = this.pos;
        const a = this.tryAssign();
        if (a && words.length === 0) { assigns.push(a); continue; }
        if (a?.array) { words.push(assignmentWord(a, this.src.slice(start, this.pos))); continue; }
        this.pos = start;
      }
      const w = this.readWord();
      if (!w) this.fail(`unexpected ${JSON.stringify(c)}`);
      words.push(w);
    }
    if (words.length === 0 && assigns.length === 0 && redirs.length === 0) this.fail(`unexpected ${JSON.stringify(this.ch())}`);
    return { cmd: { kind: 'simple', assigns, words }, redirs, background: false, negated: false };
  }
}
