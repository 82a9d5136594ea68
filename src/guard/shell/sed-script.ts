import { has, parseOptions, valuesOf } from './flags.ts';
import { shellWord } from './code-values.ts';
import type { Emit, Invocation } from './model.ts';
import type { FileReader } from './embedded-code.ts';
import { display, literal, plain } from './values.ts';
import { isFdPath } from './walk-support.ts';
import { DOWNLOADED } from './written-files.ts';

/**
 * GNU sed commands that reach outside the text they edit: `e CMD` runs CMD with the shell, and `e` alone or the `s///e`
 * flag run the pattern space (a line of the input, which the guard cannot see); `r`/`R FILE` read a file into the output;
 * `w`/`W FILE` and the `s///w FILE` flag write one (opened, so emptied, when sed starts). File names are taken as
 * written: sed expands no `~`. `--sandbox` refuses them all.
 */
export interface SedReach {
  readonly code: string[];
  readonly reads: string[];
  readonly writes: string[];
  /** The script runs text the guard cannot see (`e`, `s///e`). */
  unseen: boolean;
}

const SED_OPTIONS = { short: 'efl', long: ['expression', 'file', 'line-length'] };

/** What one sed script reaches (see SedReach); it is scanned as GNU sed's compile.c reads commands. */
export function sedScript(script: string): SedReach {
  const out: SedReach = { code: [], reads: [], writes: [], unseen: false };
  let i = 0;
  const n = script.length;
  const toEol = (): string => { let j = script.indexOf('\n', i); if (j < 0) j = n; const t = script.slice(i, j); i = j; return t.trim(); };
  const label = (): void => { while (i < n && script[i] !== '\n' && script[i] !== ';') i++; };
  // text up to an unescaped delimiter; `\d` is the delimiter itself, `\n` a newline
  const delimited = (d: string): string => {
    let t = '';
    for (; i < n && script[i] !== d; i++) {
      if (script[i] === '\\' && i + 1 < n) { const e = script[++i]!; t += e === d ? d : e === 'n' ? '\n' : `\\${e}`; } else t += script[i];
    }
    i++;
    return t;
  };
  const address = (): void => {
    const c = script[i];
    if (c !== undefined && /[0-9]/.test(c)) while (i < n && /[0-9~]/.test(script[i]!)) i++;
    else if (c === '$') i++;
    else if (c === '/' || c === '\\') {
      const d = c === '\\' ? script[++i]! : '/';
      i++;
      delimited(d);
      while (script[i] === 'I' || script[i] === 'M') i++;
    }
  };
  const blanks = (): void => { while (i < n && /[ \t]/.test(script[i]!)) i++; };
  while (i < n) {
    while (i < n && /[\s;}]/.test(script[i]!)) i++;
    if (i >= n) break;
    address();
    blanks();
    if (script[i] === ',') { i++; blanks(); if (script[i] === '+' || script[i] === '~') i++; address(); }
    blanks();
    while (script[i] === '!') { i++; blanks(); }
    const c = script[i++];
    if (c === '#') toEol();
    else if (c === ':' || c === 'b' || c === 't' || c === 'T' || c === 'v') label();
    else if (c === 'a' || c === 'i' || c === 'c') {
      // one-liner text, or `a\` and lines each ending in a backslash
      for (;;) { const j = script.indexOf('\n', i); const end = j < 0 ? n : j; const cont = script[end - 1] === '\\'; i = end; if (!cont || j < 0) break; i++; }
    } else if (c === 'e') { const cmd = toEol(); if (cmd === '') out.unseen = true; else out.code.push(cmd); }
    else if (c === 'r' || c === 'R') out.reads.push(toEol());
    else if (c === 'w' || c === 'W') out.writes.push(toEol());
    else if (c === 's' || c === 'y') {
      const d = script[i++] ?? '/';
      delimited(d);
      const replacement = delimited(d);
      if (c === 'y') continue;
      while (i < n && /[gpiImMe0-9w]/.test(script[i]!)) {
        const f = script[i++]!;
        if (f === 'e') { out.unseen = true; out.code.push(replacement.replace(/&|\\[0-9]/g, '"$__unknown"').replace(/\\(.)/gs, '$1')); }
        if (f === 'w') { out.writes.push(toEol()); break; }
      }
    }
  }
  return out;
}

/**
 * The shell code a sed command line stands for beyond editing (`e CMD`; `cat -- FILE` for `r FILE`, `: > FILE` for `w FILE`).
 * A script file (`-f FILE`, `-f -` for stdin) is read when this line wrote it or a substitution prints it; one downloaded,
 * or from a substitution not known, is flagged; any other is like `bash script.sh`.
 */
export function sedCode(inv: Invocation, emit: Emit, read: FileReader = () => undefined): string[] {
  if (inv.program !== 'sed' && inv.program !== 'gsed') return [];
  const p = parseOptions(inv.args, SED_OPTIONS);
  if (has(p, 'sandbox')) return [];
  const given = valuesOf(p, 'e', 'expression');
  const scripts = (given.length > 0 || has(p, 'f', 'file') ? given : p.operands.slice(0, 1)).map((s) => plain(s.v));
  for (const f of valuesOf(p, 'f', 'file')) {
    const text = literal(f.v) === '-' ? inv.stdinText ?? undefined : read(f);
    if (text === DOWNLOADED) emit('shell.download.exec', `${inv.text.slice(0, 120)} (runs the downloaded sed script ${display(f.v)})`);
    else if (typeof text === 'string') scripts.push(text);
    else if (isFdPath(f.v)) emit('shell.interpreter.unseen_script', `${inv.text.slice(0, 120)} (sed script from a process substitution)`);
  }
  const out: string[] = [];
  for (const s of scripts) {
    const r = sedScript(s);
    out.push(...r.code, ...r.reads.filter((f) => f !== '').map((f) => `cat -- ${shellWord(f)}`), ...r.writes.filter((f) => f !== '').map((f) => `: > ${shellWord(f)}`));
    if (r.unseen) emit('shell.interpreter.unseen_script', `${inv.text.slice(0, 120)} (sed runs the text it edits as a command)`);
  }
  return out;
}
