import { UNKNOWN, plain } from './values.ts';

/**
 * Shell code as text to re-parse, where a part the guard cannot know (a value computed at run time, the name xargs -I
 * or find -exec puts in place of `{}`) stays unknown wherever it sits: `sh -c "cat '{}'"` runs `cat 'NAME'`, a word
 * holding the name, not the text `$__unknown`. Inside single quotes (and `$'…'`) the part is written as a
 * double-quoted `$__unknown` between closing and reopening quotes; elsewhere as plain() writes it.
 */

type Quote = 'single' | 'ansi' | 'double' | 'subst' | 'backtick';

const VAR = '$__unknown';

export function codeText(v: string): string {
  if (!v.includes(UNKNOWN)) return plain(v);
  const stack: Quote[] = [];
  /** Open `(` inside each `$(…)` on the stack, innermost last. */
  const parens: number[] = [];
  let out = '';
  const top = (): Quote | undefined => stack[stack.length - 1];
  for (let i = 0; i < v.length; i++) {
    const c = v[i]!;
    const q = top();
    if (c === UNKNOWN) {
      out += q === 'single' ? `'"${VAR}"'` : q === 'ansi' ? `'"${VAR}"$'` : VAR;
      continue;
    }
    out += c;
    if (q === 'single') { if (c === "'") stack.pop(); continue; }
    if (q === 'ansi') {
      if (c === '\\' && i + 1 < v.length && v[i + 1] !== UNKNOWN) out += v[++i];
      else if (c === "'") stack.pop();
      continue;
    }
    if (c === '\\' && i + 1 < v.length && v[i + 1] !== UNKNOWN) { out += v[++i]; continue; }
    if (c === '$' && v[i + 1] === '(') { out += v[++i]; stack.push('subst'); parens.push(0); continue; }
    if (c === '`') { if (q === 'backtick') stack.pop(); else stack.push('backtick'); continue; }
    if (q === 'double') { if (c === '"') stack.pop(); continue; }
    // unquoted: at the top, in `$(…)` or in backticks
    if (c === "'") stack.push(v[i - 1] === '$' ? 'ansi' : 'single');
    else if (c === '"') stack.push('double');
    else if (q === 'subst' && c === '(') parens[parens.length - 1]!++;
    else if (q === 'subst' && c === ')') {
      if (parens[parens.length - 1] === 0) { stack.pop(); parens.pop(); } else parens[parens.length - 1]!--;
    }
  }
  return plain(out);
}
