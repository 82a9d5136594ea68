import { ShellSyntaxError, type Stmt, type Word, type WordPart } from './ast.ts';

/** Where a word is read: its terminators and which characters stay special. */
export type WordMode = 'normal' | 'brace' | 'heredoc' | 'regex' | 'arith';

const BLANK = new Set([' ', '\t']);
const META = new Set([' ', '\t', '\n', ';', '&', '|', '<', '>', '(', ')']);
const SPECIAL_PARAMS = new Set(['@', '*', '#', '?', '$', '!', '-']);
const NAME_START = /[A-Za-z_]/;
const NAME_CHAR = /[A-Za-z0-9_]/;
const PARAM_OP = /^(:[-=?+]|[-=?+]|##?|%%?|\/[/#%]?|\^\^?|,,?|@|:)/;

export function decodeAnsiC(body: string): string {
  let out = '';
  for (let i = 0; i < body.length; i++) {
    const c = body[i]!;
    if (c !== '\\' || i + 1 >= body.length) { out += c; continue; }
    const n = body[++i]!;
    const simple: Record<string, string> = { a: '\x07', b: '\b', e: '\x1b', E: '\x1b', f: '\f', n: '\n', r: '\r', t: '\t', v: '\v', '\\': '\\', "'": "'", '"': '"', '?': '?' };
    if (simple[n] !== undefined) { out += simple[n]; continue; }
    const hexLen = n === 'x' ? 2 : n === 'u' ? 4 : n === 'U' ? 8 : 0;
    if (hexLen > 0) {
      const m = /^[0-9A-Fa-f]+/.exec(body.slice(i + 1, i + 1 + hexLen));
      if (!m) { out += '\\' + n; continue; }
      out += String.fromCodePoint(Math.min(parseInt(m[0], 16), 0x10ffff));
      i += m[0].length;
      continue;
    }
    if (/[0-7]/.test(n)) {
      const m = /^[0-7]{1,3}/.exec(body.slice(i))!;
      out += String.fromCharCode(parseInt(m[0], 8) & 0xff);
      i += m[0].length - 1;
      continue;
    }
    if (n === 'c' && i + 1 < body.length) { out += String.fromCharCode(body.charCodeAt(++i) & 0x1f); continue; }
    out += '\\' + n;
  }
  return out;
}

/** Character-level reading of words, quotes and expansions; command lists come from the subclass. */
export abstract class WordReader {
  protected pos = 0;

  constructor(protected readonly src: string, protected readonly nesting: number) {}

  /** Parses statements up to `)` (for `$(…)` and `<(…)`), leaving the cursor on it. */
  protected abstract parseUntilParen(): Stmt[];
  /** A fresh parser over other text (backtick bodies, heredoc bodies). */
  protected abstract subParser(text: string): { script(): Stmt[]; word(mode: WordMode): Word };

  protected ch(offset = 0): string {
    return this.src[this.pos + offset] ?? '';
  }

  protected eof(): boolean {
    return this.pos >= this.src.length;
  }

  protected startsWith(s: string): boolean {
    return this.src.startsWith(s, this.pos);
  }

  protected fail(message: string): never {
    throw new ShellSyntaxError(`${message} at offset ${this.pos}`);
  }

  protected isBlank(c: string): boolean {
    return BLANK.has(c);
  }

  protected isMeta(c: string): boolean {
    return c === '' || META.has(c);
  }

  /** Reads one word; null when the cursor is not on a word. */
  protected readWord(mode: WordMode = 'normal'): Word | null {
    const start = this.pos;
    const parts: WordPart[] = [];
    let lit = '';
    let depth = 0;
    const flush = (): void => {
      if (lit !== '') parts.push({ kind: 'lit', value: lit });
      lit = '';
    };
    for (;;) {
      const c = this.ch();
      if (c === '') break;
      if (mode === 'normal' || mode === 'regex') {
        if ((c === '<' || c === '>') && this.ch(1) === '(') {
          flush();
          parts.push(this.readProcSubst());
          continue;
        }
        if (c === '(' && (mode === 'regex' || /[@!*+?]$/.test(lit))) {
          depth++;
          lit += c;
          this.pos++;
          continue;
        }
        if (c === ')' && depth > 0) {
          depth--;
          lit += c;
          this.pos++;
          continue;
        }
        if (depth > 0 && (c === '|' || (mode === 'regex' && c === ' '))) {
          lit += c;
          this.pos++;
          continue;
        }
        if (this.isMeta(c)) break;
      } else if (mode === 'brace') {
        if (c === '{') depth++;
        if (c === '}') {
          if (depth === 0) break;
          depth--;
        }
      } else if (mode === 'arith') {
        if (c === '(') depth++;
        if (c === ')') {
          if (depth === 0) break;
          depth--;
        }
      }
      if (c === '\\') {
        const n = this.ch(1);
        if (n === '\n') { this.pos += 2; continue; }
        if (n === '') { lit += c; this.pos++; continue; }
        if (mode === 'heredoc' || mode === 'arith') {
          if (n === '$' || n === '`' || n === '\\') { lit += n; } else { lit += c + n; }
          this.pos += 2;
          continue;
        }
        flush();
        parts.push({ kind: 'sq', value: n });
        this.pos += 2;
        continue;
      }
      if (c === "'" && mode !== 'heredoc') {
        flush();
        parts.push(this.readSingle());
        continue;
      }
      if (c === '"' && mode !== 'heredoc') {
        flush();
        parts.push(this.readDouble());
        continue;
      }
      if (c === '$') {
        const p = this.readDollar(mode !== 'heredoc');
        if (p) { flush(); parts.push(p); continue; }
      }
      if (c === '`') {
        flush();
        parts.push(this.readBacktick(false));
        continue;
      }
      lit += c;
      this.pos++;
    }
    flush();
    if (this.pos === start) return null;
    return { parts, raw: this.src.slice(start, this.pos) };
  }

  private readSingle(): WordPart {
    const end = this.src.indexOf("'", this.pos + 1);
    if (end < 0) this.fail('unterminated single quote');
    const value = this.src.slice(this.pos + 1, end);
    this.pos = end + 1;
    return { kind: 'sq', value };
  }

  private readDouble(): WordPart {
    this.pos++;
    const parts: WordPart[] = [];
    let lit = '';
    const flush = (): void => {
      if (lit !== '') parts.push({ kind: 'lit', value: lit });
      lit = '';
    };
    for (;;) {
      const c = this.ch();
      if (c === '') this.fail('unterminated double quote');
      if (c === '"') { this.pos++; break; }
      if (c === '\\') {
        const n = this.ch(1);
        if (n === '\n') { this.pos += 2; continue; }
        if (n === '$' || n === '`' || n === '"' || n === '\\') { lit += n; this.pos += 2; continue; }
        lit += c;
        this.pos++;
        continue;
      }
      if (c === '$') {
        const p = this.readDollar(false);
        if (p) { flush(); parts.push(p); continue; }
      }
      if (c === '`') { flush(); parts.push(this.readBacktick(true)); continue; }
      lit += c;
      this.pos++;
    }
    flush();
    return { kind: 'dq', parts };
  }

  /** `$…` at the cursor; null when the `$` is literal. */
  private readDollar(allowQuoteForms: boolean): WordPart | null {
    const n = this.ch(1);
    if (n === "'" && allowQuoteForms) {
      let i = this.pos + 2;
      while (i < this.src.length && this.src[i] !== "'") i += this.src[i] === '\\' ? 2 : 1;
      if (i >= this.src.length) this.fail('unterminated $\' quote');
      const value = decodeAnsiC(this.src.slice(this.pos + 2, i));
      this.pos = i + 1;
      return { kind: 'ansi', value };
    }
    if (n === '"' && allowQuoteForms) {
      this.pos++;
      return this.readDouble();
    }
    if (n === '(' && this.ch(2) === '(') {
      this.pos += 3;
      const expr = this.readArithUntil('))');
      return { kind: 'arith', expr };
    }
    if (n === '(') {
      this.pos += 2;
      const stmts = this.parseUntilParen();
      if (this.ch() !== ')') this.fail('unterminated $(');
      this.pos++;
      return { kind: 'cmd', stmts };
    }
    if (n === '[') {
      this.pos += 2;
      const end = this.findClose('[', ']');
      const expr = this.subParser(this.src.slice(this.pos, end)).word('heredoc');
      this.pos = end + 1;
      return { kind: 'arith', expr };
    }
    if (n === '{') return this.readBraceParam();
    if (NAME_START.test(n)) {
      let i = this.pos + 1;
      while (i < this.src.length && NAME_CHAR.test(this.src[i]!)) i++;
      const name = this.src.slice(this.pos + 1, i);
      this.pos = i;
      return { kind: 'param', name, op: '', arg: null, index: null };
    }
    if (/[0-9]/.test(n) || (n !== '' && SPECIAL_PARAMS.has(n))) {
      this.pos += 2;
      return { kind: 'param', name: n, op: '', arg: null, index: null };
    }
    return null;
  }

  private readBraceParam(): WordPart {
    this.pos += 2;
    let prefix = '';
    if ((this.ch() === '#' || this.ch() === '!') && this.ch(1) !== '}') { prefix = this.ch(); this.pos++; }
    let name = '';
    if (NAME_START.test(this.ch())) {
      while (NAME_CHAR.test(this.ch())) name += this.src[this.pos++];
    } else if (/[0-9]/.test(this.ch())) {
      while (/[0-9]/.test(this.ch())) name += this.src[this.pos++];
    } else if (SPECIAL_PARAMS.has(this.ch())) {
      name = this.src[this.pos++]!;
    } else {
      this.fail('bad substitution');
    }
    let index: Word | null = null;
    if (this.ch() === '[') {
      this.pos++;
      const end = this.findClose('[', ']');
      index = this.subParser(this.src.slice(this.pos, end)).word('heredoc');
      this.pos = end + 1;
    }
    let op = prefix;
    let arg: Word | null = null;
    if (this.ch() !== '}') {
      const m = PARAM_OP.exec(this.src.slice(this.pos, this.pos + 2));
      if (!m && prefix !== '!') this.fail('bad substitution');
      const o = m ? m[0] : '';
      op += o;
      this.pos += o.length;
      arg = this.readWord('brace');
    }
    if (this.ch() !== '}') this.fail('unterminated ${');
    this.pos++;
    return { kind: 'param', name, op, arg, index };
  }

  /** Arithmetic text up to `close` (`))` or `)`), with its expansions. */
  protected readArithUntil(close: string): Word {
    const expr = this.readWord('arith') ?? { parts: [], raw: '' };
    if (!this.startsWith(close)) this.fail('unterminated arithmetic');
    this.pos += close.length;
    return expr;
  }

  private readBacktick(inDouble: boolean): WordPart {
    let i = this.pos + 1;
    let body = '';
    while (i < this.src.length && this.src[i] !== '`') {
      const c = this.src[i]!;
      const n = this.src[i + 1] ?? '';
      if (c === '\\' && (n === '`' || n === '\\' || n === '$' || (inDouble && n === '"'))) { body += n; i += 2; continue; }
      body += c;
      i++;
    }
    if (i >= this.src.length) this.fail('unterminated backquote');
    this.pos = i + 1;
    return { kind: 'cmd', stmts: this.subParser(body).script() };
  }

  private readProcSubst(): WordPart {
    const op = this.ch() as '<' | '>';
    this.pos += 2;
    const stmts = this.parseUntilParen();
    if (this.ch() !== ')') this.fail('unterminated process substitution');
    this.pos++;
    return { kind: 'proc', op, stmts };
  }

  /** Index of the bracket closing the one just passed, honouring nesting and quotes. */
  private findClose(open: string, close: string): number {
    let depth = 0;
    for (let i = this.pos; i < this.src.length; i++) {
      const c = this.src[i]!;
      if (c === '\\') { i++; continue; }
      if (c === "'") { const e = this.src.indexOf("'", i + 1); if (e < 0) break; i = e; continue; }
      if (c === open) depth++;
      else if (c === close) {
        if (depth === 0) return i;
        depth--;
      }
    }
    return this.fail(`unterminated ${open}`);
  }
}
