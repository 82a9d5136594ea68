import type { CaseItem, Command, Stmt, Word } from './ast.ts';
import { FUNC_NAME, MAX_NESTING, NAME, NO_TERMS, StatementParser } from './statements.ts';
import type { WordMode } from './words.ts';

/** A recursive-descent parser for the Bash grammar, producing the guard's syntax tree. */
export class Parser extends StatementParser {
  script(): Stmt[] {
    const body = this.parseList(NO_TERMS);
    if (!this.eof()) this.fail(`unexpected ${JSON.stringify(this.ch())}`);
    this.readHeredocs();
    return body;
  }

  word(mode: WordMode): Word {
    return this.readWord(mode) ?? { parts: [], raw: '' };
  }

  protected subParser(text: string): Parser {
    if (this.nesting + 1 > MAX_NESTING) this.fail('nesting too deep');
    return new Parser(text, this.nesting + 1);
  }

  protected parseUntilParen(): Stmt[] {
    return this.nested(() => {
      const body = this.parseList(new Set([')']));
      this.skipLinebreaks();
      return body;
    });
  }

  protected parseCompound(): Command | null {
    if (this.startsWith('((')) {
      this.pos += 2;
      return { kind: 'arith', expr: this.readArithUntil('))') };
    }
    if (this.ch() === '(') {
      this.pos++;
      const body = this.parseList(new Set([')']));
      this.expectChar(')');
      return { kind: 'subshell', body };
    }
    switch (this.reserved()) {
      case '{': {
        this.pos++;
        const body = this.parseList(new Set(['}']));
        this.expectReserved('}');
        return { kind: 'block', body };
      }
      case 'if': return this.parseIf();
      case 'while':
      case 'until': {
        this.pos += 5;
        const cond = this.parseList(new Set(['do']));
        this.expectReserved('do');
        const body = this.parseList(new Set(['done']));
        this.expectReserved('done');
        return { kind: 'loop', cond, body };
      }
      case 'for':
      case 'select': return this.parseFor();
      case 'case': return this.parseCase();
      case 'function': {
        this.pos += 8;
        this.skipBlanks();
        const w = this.readWord();
        if (!w || !FUNC_NAME.test(w.raw)) this.fail('bad function name');
        this.skipBlanks();
        if (this.ch() === '(') { this.pos++; this.skipBlanks(); this.expectChar(')'); }
        this.skipLinebreaks();
        return { kind: 'func', name: w.raw, body: this.parseCommand() };
      }
      case 'coproc': {
        this.pos += 6;
        this.skipBlanks();
        const save = this.pos;
        const w = this.readWord();
        this.skipBlanks();
        if (!(w && NAME.test(w.raw) && (this.ch() === '{' || this.ch() === '('))) this.pos = save;
        return { kind: 'coproc', body: this.parseCommand() };
      }
      case '[[': {
        this.pos += 2;
        return { kind: 'test', words: this.parseTestWords() };
      }
      default: return null;
    }
  }



  private parseIf(): Command {
    this.pos += 2;
    const clauses: { cond: Stmt[]; body: Stmt[] }[] = [];
    let otherwise: Stmt[] = [];
    for (;;) {
      const cond = this.parseList(new Set(['then']));
      this.expectReserved('then');
      const body = this.parseList(new Set(['elif', 'else', 'fi']));
      clauses.push({ cond, body });
      this.skipLinebreaks();
      const r = this.reserved();
      if (r === 'elif') { this.pos += 4; continue; }
      if (r === 'else') {
        this.pos += 4;
        otherwise = this.parseList(new Set(['fi']));
      }
      this.expectReserved('fi');
      return { kind: 'if', clauses, otherwise };
    }
  }

  private parseFor(): Command {
    this.pos += this.reserved()!.length;
    this.skipBlanks();
    if (this.startsWith('((')) {
      this.pos += 2;
      const expr = this.readArithUntil('))');
      this.skipBlanks();
      if (this.ch() === ';') this.pos++;
      return { kind: 'cfor', exprs: [expr], body: this.parseDoBody() };
    }
    const nameWord = this.readWord();
    if (!nameWord || !NAME.test(nameWord.raw)) this.fail('bad for variable');
    this.skipLinebreaks();
    let items: Word[] | null = null;
    if (this.reserved() === 'in') {
      this.pos += 2;
      items = [];
      for (;;) {
        this.skipBlanks();
        const w = this.readWord();
        if (!w) break;
        items.push(w);
      }
    }
    this.skipBlanks();
    if (this.ch() === ';') this.pos++;
    return { kind: 'for', name: nameWord.raw, items, body: this.parseDoBody() };
  }

  private parseDoBody(): Stmt[] {
    this.skipLinebreaks();
    if (this.reserved() === '{') {
      this.pos++;
      const body = this.parseList(new Set(['}']));
      this.expectReserved('}');
      return body;
    }
    this.expectReserved('do');
    const body = this.parseList(new Set(['done']));
    this.expectReserved('done');
    return body;
  }

  private parseCase(): Command {
    this.pos += 4;
    this.skipBlanks();
    const word = this.readWord();
    if (!word) this.fail('case needs a word');
    this.expectReserved('in');
    const items: CaseItem[] = [];
    for (;;) {
      this.skipLinebreaks();
      if (this.reserved() === 'esac') { this.pos += 4; return { kind: 'case', word, items }; }
      if (this.ch() === '(') this.pos++;
      const patterns: Word[] = [];
      for (;;) {
        this.skipBlanks();
        const p = this.readWord();
        if (!p) this.fail('bad case pattern');
        patterns.push(p);
        this.skipBlanks();
        if (this.ch() === '|') { this.pos++; continue; }
        break;
      }
      this.expectChar(')');
      const body = this.parseList(new Set([';;', 'esac']));
      items.push({ patterns, body });
      this.skipBlanks();
      if (this.startsWith(';;&')) this.pos += 3;
      else if (this.startsWith(';;') || this.startsWith(';&')) this.pos += 2;
    }
  }

  private parseTestWords(): Word[] {
    const words: Word[] = [];
    let regexNext = false;
    for (;;) {
      this.skipLinebreaks();
      if (this.eof()) this.fail('unterminated [[');
      if (this.startsWith(']]') && this.isMeta(this.ch(2))) { this.pos += 2; return words; }
      if (this.startsWith('&&') || this.startsWith('||')) { this.pos += 2; continue; }
      const c = this.ch();
      if (c === '(' || c === ')' || c === '<' || c === '>' || c === '!') { this.pos++; continue; }
      const w = this.readWord(regexNext ? 'regex' : 'normal');
      if (!w) this.fail(`unexpected ${JSON.stringify(c)} in [[`);
      regexNext = w.raw === '=~';
      words.push(w);
    }
  }
}

/** Parses a whole script; throws ShellSyntaxError. */
export function parseScript(text: string, nesting = 0): Stmt[] {
  return new Parser(text, nesting).script();
}
