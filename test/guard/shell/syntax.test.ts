import { describe, expect, it } from 'vitest';
import { ShellSyntaxError, type Command, type Stmt, type Word, type WordPart } from '../../../src/guard/shell/syntax/ast.ts';
import { MAX_NESTING, parseScript } from '../../../src/guard/shell/syntax/lower.ts';

const simple = (s: Stmt | undefined): Extract<Command, { kind: 'simple' }> => {
  if (s?.cmd.kind !== 'simple') throw new Error(`not simple: ${s?.cmd.kind}`);
  return s.cmd;
};
const raws = (words: readonly Word[]): string[] => words.map((w) => w.raw);
/** Literal text of parts (what quoting leaves), for checking quote and escape removal. */
const text = (parts: readonly WordPart[]): string =>
  parts.map((p) => (p.kind === 'lit' || p.kind === 'sq' || p.kind === 'ansi' ? p.value : p.kind === 'dq' ? text(p.parts) : `<${p.kind}>`)).join('');

describe('shell syntax from mvdan/sh', () => {
  it('builds lists, and-or chains, pipelines and background statements', () => {
    const [first, second] = parseScript('a | b | c && d || e; f &');
    expect(first?.cmd.kind).toBe('andor');
    const or = first!.cmd as Extract<Command, { kind: 'andor' }>;
    expect(or.op).toBe('||');
    const and = or.left.cmd as Extract<Command, { kind: 'andor' }>;
    expect(and.op).toBe('&&');
    expect(and.left.cmd).toMatchObject({ kind: 'pipe', stages: [{}, {}, {}] });
    expect(raws(simple(or.right).words)).toEqual(['e']);
    expect(second?.background).toBe(true);
  });

  it('keeps quoting in word parts and resolves escapes the way the shell does', () => {
    const words = simple(parseScript(`echo "rm -rf /" 'x' $'\\x72' \\m "a\\$b\\"c\\q"`)[0]).words;
    expect(words.map((w) => w.parts[0]?.kind)).toEqual(['lit', 'dq', 'sq', 'ansi', 'sq', 'dq']);
    expect(words[3]!.parts[0]).toEqual({ kind: 'ansi', value: 'r' });
    expect(text(words[5]!.parts)).toBe('a$b"c\\q');
    expect(text(simple(parseScript('r\\m -r\\\nf')[0]).words[1]!.parts)).toBe('-rf');
  });

  it('parses command, process and backtick substitutions into statements', () => {
    const words = simple(parseScript('x $(a; b) <(c) >(d) `e \\`f\\``')[0]).words;
    expect(words[1]!.parts[0]).toMatchObject({ kind: 'cmd', stmts: [{}, {}] });
    expect(words[2]!.parts[0]).toMatchObject({ kind: 'proc', op: '<' });
    expect(words[3]!.parts[0]).toMatchObject({ kind: 'proc', op: '>' });
    const tick = words[4]!.parts[0] as { kind: 'cmd'; stmts: Stmt[] };
    const inner = simple(tick.stmts[0]).words;
    expect(inner[1]!.parts[0]).toMatchObject({ kind: 'cmd', stmts: [{ cmd: { kind: 'simple' } }] });
  });

  it('attaches each heredoc body to its own redirection, quoted ones literal, <<- without leading tabs', () => {
    const [a, b] = parseScript("a <<X; b <<'Y'\n$(one)\nX\n$(two)\nY\n");
    expect(a!.redirs[0]!.heredoc?.body.parts.some((p) => p.kind === 'cmd')).toBe(true);
    expect(b!.redirs[0]!.heredoc).toMatchObject({ quoted: true, body: { parts: [{ kind: 'sq', value: '$(two)\n' }] } });
    const [c] = parseScript('c <<-Z\n\t\tone \\$x\n\ttwo\n\tZ\n');
    expect(c!.redirs[0]!.heredoc).toMatchObject({ quoted: false, body: { parts: [{ kind: 'lit', value: 'one $x\ntwo\n' }] } });
  });

  it('parses compound commands and function definitions', () => {
    const kinds = parseScript('if a; then b; elif c; then d; else e; fi; while c; do d; done; until x; do y; done; for i in 1 2; do e; done; for ((i=0;i<2;i++)); do :; done; case x in y) f;; esac; g() { h; }; function k { l; }; (i); { j; }; [[ -n k ]]; (( l++ )); coproc m; time n')
      .map((s) => s.cmd.kind);
    expect(kinds).toEqual(['if', 'loop', 'loop', 'for', 'cfor', 'case', 'func', 'func', 'subshell', 'block', 'test', 'arith', 'coproc', 'block']);
    const ifc = parseScript('if a; then b; elif c; then d; else e; fi')[0]!.cmd as Extract<Command, { kind: 'if' }>;
    expect(ifc.clauses).toHaveLength(2);
    expect(ifc.otherwise).toHaveLength(1);
  });

  it('separates leading assignments (with subscripts) and redirections from words', () => {
    const s = parseScript('A=1 B=$(x) cmd arg 2>/dev/null >>log {fd}>&-')[0]!;
    expect(simple(s).assigns.map((a) => [a.name, a.value?.parts[0]?.kind])).toEqual([['A', 'lit'], ['B', 'cmd']]);
    expect(simple(parseScript('C[$(y)]=2')[0]).assigns[0]).toMatchObject({ name: 'C', index: { parts: [{ kind: 'cmd' }] } });
    expect(raws(simple(s).words)).toEqual(['cmd', 'arg']);
    expect(s.redirs.map((r) => `${r.fd}${r.op}${r.target.raw}`)).toEqual(['2>/dev/null', '>>log', '{fd}>&-']);
  });

  it('turns declaration builtins and let into simple commands whose words keep their substitutions', () => {
    const d = simple(parseScript('export -n X=$(a) Y; let z=1+$(b)').at(0));
    expect(raws(d.words)).toEqual(['export', '-n', 'X=$(a)', 'Y']);
    expect(d.words[2]!.parts.map((p) => p.kind)).toEqual(['lit', 'cmd']);
    const l = simple(parseScript('let z=1+$(b)')[0]);
    expect(l.words[1]!.parts.some((p) => p.kind === 'cmd')).toBe(true);
  });

  it('slices raw text by character even though mvdan counts bytes', () => {
    expect(raws(simple(parseScript('echo héllo 日本 "wörld"')[0]).words)).toEqual(['echo', 'héllo', '日本', '"wörld"']);
    expect(text(simple(parseScript("echo 'ünï'")[0]).words[1]!.parts)).toBe('ünï');
  });

  it.each(['echo "open', "echo 'open", 'echo $(', 'ls |', 'if x; then', 'echo `x', 'cat <<EOF\nno end', 'a &; b'])('rejects %j', (src) => {
    expect(() => parseScript(src)).toThrow(ShellSyntaxError);
  });

  it('refuses nesting beyond its limit, and recovers after the parser itself overflows', () => {
    expect(() => parseScript('( '.repeat(MAX_NESTING + 1) + 'ls' + ' )'.repeat(MAX_NESTING + 1))).toThrow(/nesting too deep/);
    expect(() => parseScript('echo ' + '$('.repeat(20_000) + 'ls' + ')'.repeat(20_000))).toThrow(ShellSyntaxError);
    expect(raws(simple(parseScript('echo ok')[0]).words)).toEqual(['echo', 'ok']);
  });

  it('reuses one parser over many calls', () => {
    for (let i = 0; i < 3000; i++) expect(parseScript(`echo ${'x'.repeat(i % 200)} | grep "${i}"`)[0]?.cmd.kind).toBe('pipe');
  });
});
