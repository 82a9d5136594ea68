import { describe, expect, it } from 'vitest';
import { printable } from '../../src/util/printable.ts';

describe('printable text for an admin\'s terminal', () => {
  it.each([
    ['a real line break', 'a\nb', 'a\\u000ab'],
    ['a bidi override', 'x\u202ey', 'x\\u202ey'],
    ['an escape sequence', '\u001b[2K', '\\u001b[2K'],
  ])('escapes %s', (_, text, shown) => {
    expect(printable(text)).toBe(shown);
  });

  it('keeps a model\'s literal "\\u000a" apart from a real line break, so neither passes for the other', () => {
    const literal = printable('a\\u000ab');
    const real = printable('a\nb');
    expect(literal).not.toBe(real);
    expect(literal).toBe('a\\u005cu000ab');
  });

  it.each(['C:\\dir\\file', "printf 'a\\nb'", 'a\\u12', 'grep -P "\\x41"'])('leaves other backslashes as written: %s', (text) => {
    expect(printable(text)).toBe(text);
  });

  it('cuts after escaping, marking the cut', () => {
    expect(printable('ab\ncd', 6)).toBe('ab\\u00…');
  });
});
