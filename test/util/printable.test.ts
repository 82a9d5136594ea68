import { describe, expect, it } from 'vitest';
import { printable } from '../../src/util/printable.ts';

describe('printable text for an admin\'s terminal', () => {
  it.each([
    ['a real line break', 'a\nb', 'a\\u000ab'],
    ['a bidi override', 'x\u202ey', 'x\\u202ey'],
    ['an escape sequence', '\u001b[2K', '\\u001b[2K'],
    ['Unicode tag characters (ASCII a model reads and a terminal does not draw), one escape each', 'ok\u{e0072}\u{e006d}', 'ok\\u{e0072}\\u{e006d}'],
    ['a variation selector', 'a\ufe0fb', 'a\\ufe0fb'],
    ['Hangul fillers and the combining grapheme joiner', '\u3164\u115f\u034f', '\\u3164\\u115f\\u034f'],
    ['musical formatting symbols', 'x\u{1d173}', 'x\\u{1d173}'],
    ['a lone surrogate', 'x\ud800y', 'x\\ud800y'],
  ])('escapes %s', (_, text, shown) => {
    expect(printable(text)).toBe(shown);
  });

  it('keeps a model\'s literal "\\u000a" apart from a real line break, so neither passes for the other', () => {
    const literal = printable('a\\u000ab');
    const real = printable('a\nb');
    expect(literal).not.toBe(real);
    expect(literal).toBe('a\\u005cu000ab');
  });

  it('a literal "\\u{e0041}" is kept apart from an escaped tag character too', () => {
    expect(printable('\\u{e0041}')).toBe('\\u005cu{e0041}');
  });

  it('visible text beyond the first plane stays as written', () => {
    expect(printable('deploy 🚀 done, 漢字')).toBe('deploy 🚀 done, 漢字');
  });

  it.each(['C:\\dir\\file', "printf 'a\\nb'", 'a\\u12', 'grep -P "\\x41"'])('leaves other backslashes as written: %s', (text) => {
    expect(printable(text)).toBe(text);
  });

  it('cuts after escaping, marking the cut', () => {
    expect(printable('ab\ncd', 6)).toBe('ab\\u00…');
  });
});
