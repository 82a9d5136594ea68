import { describe, expect, it } from 'vitest';
import { ShellSyntaxError, type Command, type Stmt, type Word } from '../../../src/guard/shell/syntax/ast.ts';
import { loadValidator } from '../../../src/guard/shell/syntax/mvdan.ts';
import { parseScript } from '../../../src/guard/shell/syntax/parser.ts';

const simple = (s: Stmt | undefined): Extract<Command, { kind: 'simple' }> => {
  if (s?.cmd.kind !== 'simple') throw new Error(`not simple: ${s?.cmd.kind}`);
  return s.cmd;
};
const raws = (words: readonly Word[]): string[] => words.map((w) => w.raw);

describe('shell parser', () => {
  it('builds lists, and-or chains, pipelines and background statements', () => {
    const [first, second] = parseScript('a | b && c; d &');
    expect(first?.cmd.kind).toBe('andor');
    const andor = first!.cmd as Extract<Command, { kind: 'andor' }>;
    expect(andor.left.cmd.kind).toBe('pipe');
    expect(raws(simple(andor.right).words)).toEqual(['c']);
    expect(second?.background).toBe(true);
  });

  it('keeps quoting in word parts (quoted text stays data)', () => {
    const words = simple(parseScript(`echo "rm -rf /" 'x' $'\\x72' \\m`)[0]).words;
    expect(words.map((w) => w.parts[0]?.kind)).toEqual(['lit', 'dq', 'sq', 'ansi', 'sq']);
    expect(words[3]!.parts[0]).toEqual({ kind: 'ansi', value: 'r' });
  });

  it('parses command, process and backtick substitutions into statements', () => {
    const words = simple(parseScript('x $(a; b) <(c) `d \\`e\\``')[0]).words;
    expect(words[1]!.parts[0]).toMatchObject({ kind: 'cmd', stmts: [{}, {}] });
    expect(words[2]!.parts[0]).toMatchObject({ kind: 'proc', op: '<' });
    const tick = words[3]!.parts[0] as { kind: 'cmd'; stmts: Stmt[] };
    expect(raws(simple(tick.stmts[0]).words)).toEqual(['d', '`e`']);
  });

  it('attaches each heredoc body to its own redirection, quoted ones literal', () => {
    const [a, b] = parseScript("a <<X; b <<'Y'\n$(one)\nX\n$(two)\nY\n");
    expect(a!.redirs[0]!.heredoc?.body.parts.some((p) => p.kind === 'cmd')).toBe(true);
    expect(b!.redirs[0]!.heredoc).toMatchObject({ quoted: true, body: { parts: [{ kind: 'sq', value: '$(two)\n' }] } });
  });

  it('parses compound commands and function definitions', () => {
    const kinds = parseScript('if a; then b; fi; while c; do d; done; for i in 1 2; do e; done; case x in y) f;; esac; g() { h; }; (i); { j; }; [[ -n k ]]; (( l++ ))')
      .map((s) => s.cmd.kind);
    expect(kinds).toEqual(['if', 'loop', 'for', 'case', 'func', 'subshell', 'block', 'test', 'arith']);
  });

  it('separates leading assignments and redirections from words', () => {
    const s = parseScript('A=1 B=$(x) cmd arg 2>/dev/null >>log')[0]!;
    expect(simple(s).assigns.map((a) => a.name)).toEqual(['A', 'B']);
    expect(raws(simple(s).words)).toEqual(['cmd', 'arg']);
    expect(s.redirs.map((r) => `${r.fd}${r.op}${r.target.raw}`)).toEqual(['2>/dev/null', '>>log']);
  });

  it.each(['echo "open', "echo 'open", 'echo $(', 'ls |', 'if x; then', 'echo `x'])('rejects %j', (text) => {
    expect(() => parseScript(text)).toThrow(ShellSyntaxError);
  });
});

describe('mvdan/sh validator', () => {
  it('accepts Bash and reports why other text does not parse', async () => {
    const v = await loadValidator();
    expect(v.check('for f in *; do [[ -f $f ]] && echo "$f"; done')).toBeNull();
    expect(v.check('if then fi')).toMatch(/.+/);
    expect(v.check('echo "x')).toMatch(/quote/);
  });

  it('is loaded once and stays usable over many calls', async () => {
    const [a, b] = await Promise.all([loadValidator(), loadValidator()]);
    expect(a).toBe(b);
    for (let i = 0; i < 3000; i++) expect(a.check(`echo ${'x'.repeat(i % 200)} | grep "${i}"`)).toBeNull();
  });
});
