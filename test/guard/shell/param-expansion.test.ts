import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { expand, type EvalContext } from '../../../src/guard/shell/evaluate.ts';
import { parseScript } from '../../../src/guard/shell/syntax/lower.ts';
import { UNKNOWN } from '../../../src/guard/shell/values.ts';

/** The guard's value of `"[EXPANSION]"` with X set to `value`; null when it says unknown. */
function guardValue(value: string, expansion: string): string | null {
  const [stmt] = parseScript(`: "[${expansion}]"`);
  const cmd = stmt!.cmd;
  if (cmd.kind !== 'simple') throw new Error('expected a simple command');
  const ctx: EvalContext = { vars: new Map([['X', value]]), cwd: null, walkSubst: () => [], substOutput: () => null, expandsAsCode: () => {} };
  const [v] = expand(cmd.words[1]!, ctx).values;
  return v!.includes(UNKNOWN) ? null : v!;
}

/** What bash prints for it (after `options`, e.g. `shopt -s nocasematch`); null when the expansion fails. */
function bashValue(value: string, expansion: string, options = ''): string | null {
  const r = spawnSync('bash', ['-c', `${options}\nX=$1; printf '%s' "[${expansion}]"`, 'bash', value], { encoding: 'utf8' });
  return r.status === 0 ? r.stdout : null;
}

/** Replacements, anchors, globs, brackets and substrings the guard works out, each checked against bash itself. */
const WORKED_OUT: readonly (readonly [string, string])[] = [
  ['/tmpetc', '${X/tmp/}'], ['abcabc', '${X/b*/Z}'], ['abcabc', '${X//b?/Z}'], ['abcabc', '${X/%b*/Z}'], ['abcabc', '${X/#*b/Z}'], ['abcabc', '${X//*/Z}'],
  ['abc', '${X/#/p}'], ['abc', '${X/%/s}'], ['abc', '${X/}'], ['abc', '${X//}'], ['abc', '${X/#}'], ['', '${X/*/Z}'], ['', '${X/a/Z}'], ['', '${X/#*/Z}'],
  ['a*c', '${X/\\*/Z}'], ['a*c', '${X/"*"/Z}'], ['a*c', "${X/'*'/Z}"], ['#a', '${X/\\#a/Z}'], ['#a', '${X/"#"a/Z}'], ['a]b]', '${X//[]a]/Z}'], ['a]b', '${X/[!a]/Z}'],
  ['x/y/z', '${X//\\//-}'], ['x/y/z', '${X/\\//}'], ['aaa', '${X//a/aa}'], ['abc', '${X/b/"~"}'], ['a.b.c', '${X//./}'], ['/etc]', '${X%[]]}'], ['a[b', '${X/[/Z}'],
  ['abcdef', '${X:2}'], ['abcdef', '${X: -2}'], ['abcdef', '${X:1:3}'], ['abcdef', '${X:1:-1}'], ['abcdef', '${X:9}'], ['abcdef', '${X: -9}'], ['abcdef', '${X:0:0}'],
  ['abcdef', '${X::2}'], ['abcdef', '${X:9:-1}'], ['abc', '${X:3}'],
  // a quoted character in a bracket is a member: `[\]]` is the class of `]`, `[\^]` of `^` (not a negation)
  ['/etc/shadow]', '${X%[\\]]}'], ['/etc/shadow]', '${X/%[\\]]/}'], ['/etc/shadow^', '${X%[\\^]}'], ['a-b-c', '${X//[x\\-z]/Z}'],
  ['a-b-c', '${X//[a-c]/Z}'], ['a]b', '${X//["]"]/Z}'], ['a[b', '${X//[\\[]/Z}'],
];

/** What depends on a shell option, or on how bash (not mvdan) splits the word: the guard must not claim a value. */
const LEFT_UNKNOWN: readonly (readonly [string, string, string])[] = [
  // nocasematch makes `${X/B/…}` match `b`
  ['abc', '${X/B/Z}', 'shopt -s nocasematch'],
  // patsub_replacement (on in bash 5.2) makes `&` the matched text
  ['abc', '${X/b/&&}', 'shopt -u patsub_replacement'],
  // extglob makes `*(b)` a pattern of its own
  ['abbc', '${X/*(b)/Z}', 'shopt -s extglob'],
];

describe('parameter replacements and substrings the guard works out', () => {
  it.each(WORKED_OUT.map(([v, e]) => [JSON.stringify(v), e, v] as const))('X=%s: %s is what bash prints', (_label, expansion, value) => {
    const bash = bashValue(value, expansion);
    expect(bash).not.toBeNull();
    expect(guardValue(value, expansion)).toBe(bash);
  });

  it.each(LEFT_UNKNOWN.map(([v, e, o]) => [e, o, v] as const))('%s stays unknown: `%s` changes it', (expansion, options, value) => {
    expect(bashValue(value, expansion, options)).not.toBe(bashValue(value, expansion));
    expect(guardValue(value, expansion)).toBeNull();
  });

  it('stays unknown where mvdan reads a pattern starting with / as empty and bash does not', () => {
    expect(bashValue('a/b/c', '${X///}')).toBe('[abc]');
    expect(guardValue('a/b/c', '${X///}')).toBeNull();
    expect(guardValue('a/b/c', '${X////Z}')).toBeNull();
  });

  it('stays unknown where bash stops with an error, or a number is not written as one', () => {
    expect(bashValue('abc', '${X:2:-2}')).toBeNull();
    expect(guardValue('abc', '${X:2:-2}')).toBeNull();
    for (const e of ['${X:010}', '${X:1+1}', '${X:(-2)}', '${X:$N}']) expect(guardValue('abcdefghij', e)).toBeNull();
  });

  it('stays unknown for a negated bracket starting with ], which bash matches differently in a replacement', () => {
    expect(bashValue('a]b', '${X/[!]]/Z}')).toBe('[a]b]');
    expect(guardValue('a]b', '${X/[!]]/Z}')).toBeNull();
  });
});
