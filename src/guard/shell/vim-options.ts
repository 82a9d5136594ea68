import { shellWord } from './code-values.ts';
import type { Emit } from './model.ts';
import { writableEntry } from './path-variable.ts';
import { INTERPRETERS } from './program-tables.ts';
import { HOME, display, isKnown, plain } from './values.ts';

/**
 * vim's options naming what its shell commands run with (`:!cmd`, `:r !cmd`, filters, `system()`, `:make`, file-name
 * globs): 'shell' (first from $SHELL), whose program runs each command with 'shellcmdflag'; 'shellpipe', 'shellredir'
 * and the quoting options, put around or after each command; and the programs 'makeprg', 'grepprg', 'keywordprg',
 * 'equalprg', 'formatprg' that vim runs with that shell. A shell that is not one, or one a line can write (a relative
 * path, /tmp), runs whatever it likes with the commands the guard walked: asked, like a PATH entry such a line can
 * fill (path-variable.ts); a known one is walked as the command line vim starts (`rm -rf /` as the shell denies).
 */

type Kind = 'shell' | 'flag' | 'around' | 'program';
const OPTIONS: Readonly<Record<string, Kind>> = {
  shell: 'shell', sh: 'shell', shellcmdflag: 'flag', shcf: 'flag',
  shellpipe: 'around', sp: 'around', shellredir: 'around', srr: 'around', shellquote: 'around', shq: 'around', shellxquote: 'around', sxq: 'around',
  shellxescape: 'around', sxe: 'around',
  makeprg: 'program', mp: 'program', grepprg: 'program', gp: 'program', keywordprg: 'program', kp: 'program', equalprg: 'program', ep: 'program',
  formatprg: 'program', fp: 'program',
};
const FULL_NAMES = Object.keys(OPTIONS).filter((n) => n.length > 3).join('|');
/** `:set`, `:setlocal`, `:setglobal` and their abbreviations, to the `|` that ends them; `:let &opt = 'value'`. */
const SET = /(?<=^|[|\s:'"])(?:set?|setl[a-z]*|setg[a-z]*)!?[ \t]+((?:\\.|[^|\\])*)/g;
const LET = /(?<=^|[|\s:'"])let\s+&(?:[gl]:)?([a-z]+)\s*(\.\.=|[-+.^]?=)\s*((?:\\.|[^|\\])*)/g;
/** A mention of these options `SET` and `LET` did not read (`exe 'set sh=' . x`, `setbufvar(1, '&shell', …)`): its value is not known. */
const MENTION = new RegExp(`\\b(?:${FULL_NAMES})\\s*[-+^]?=|&(?:[gl]:)?(?:${Object.keys(OPTIONS).join('|')})\\b|['"](?:${FULL_NAMES})['"]`);

interface Setting { readonly kind: Kind; readonly value: string | null; readonly shown: string }

/** A `:let` right-hand side that is one string literal: its text; else null (an expression the guard does not evaluate). */
function letString(expr: string): string | null {
  const e = expr.trim();
  if (/^'(?:[^']|'')*'$/.test(e)) return e.slice(1, -1).replace(/''/g, "'");
  if (/^"(?:[^"\\]|\\["\\])*"$/.test(e)) return e.slice(1, -1).replace(/\\(["\\])/g, '$1');
  return null;
}

/** A `:set` value as vim reads it: `\ `, `\|`, `\"` and `\\` lose the backslash; `$VAR` (but a leading `$HOME`) or quotes leave it unknown. */
function setValue(raw: string): string | null {
  const v = raw.replace(/\\([\s|"\\])/g, '$1');
  return /['"]/.test(raw) || /\$(?!HOME\b)|^.+\$HOME/.test(v) ? null : v.replace(/^(?:~|\$HOME)(?=\/|$)/, HOME);
}

/** Every setting of OPTIONS in Ex commands; one they mention but that is not read exactly is unknown. */
export function vimSettings(commands: readonly string[]): Setting[] {
  const out: Setting[] = [];
  for (const text of commands) {
    let rest = text;
    for (const m of text.matchAll(SET)) {
      for (const arg of m[1]!.split(/(?<!\\)\s+/)) {
        const a = /^([a-z]+)([-+^]?[=:])([\s\S]*)$/.exec(arg);
        if (!a || !Object.hasOwn(OPTIONS, a[1]!)) continue;
        out.push({ kind: OPTIONS[a[1]!]!, value: a[2]!.length > 1 ? null : setValue(a[3]!), shown: `set ${arg}` });
      }
      rest = rest.replace(m[0], ' ');
    }
    for (const m of text.matchAll(LET)) {
      if (!Object.hasOwn(OPTIONS, m[1]!)) continue;
      out.push({ kind: OPTIONS[m[1]!]!, value: m[2] === '=' ? letString(m[3]!) : null, shown: m[0].trim() });
      rest = rest.replace(m[0], ' ');
    }
    const other = MENTION.exec(rest);
    if (other) out.push({ kind: 'shell', value: null, shown: other[0] });
  }
  return out;
}

/** A shell vim can run commands with as it would with /bin/sh: a known shell, named or at a path the line cannot write, with flags only. */
export function plainShell(words: readonly string[]): boolean {
  const [program, ...rest] = words;
  if (!program) return false;
  if (INTERPRETERS[program.slice(program.lastIndexOf('/') + 1)]?.family !== 'shell') return false;
  if (program.includes('/') && writableEntry(program) !== null) return false;
  return rest.every((w) => /^-[A-Za-z]+$/.test(w));
}

/**
 * Flags the settings above (from Ex commands, or $SHELL given to vim) and returns the shell code they make vim run: a
 * shell that is not plain, with each of `commands` (the `:!` commands found) or alone; a program option's value.
 */
export function vimOptionCode(program: string, ex: readonly string[], commands: readonly string[], vars: ReadonlyMap<string, string>, emit: Emit): string[] {
  const settings = vimSettings(ex);
  const env = vars.get('SHELL');
  // an empty $SHELL leaves vim's default, sh
  if (env !== undefined && env !== '') settings.unshift({ kind: 'shell', value: isKnown(env) ? env : null, shown: `SHELL=${display(env)}` });
  const out: string[] = [];
  const unseen = (s: Setting, why: string): void => emit('shell.code.unseen_setting', `${program}: ${s.shown.slice(0, 100)} (${why})`);
  for (const s of settings) {
    if (s.value === null) { unseen(s, 'a value the guard cannot read, for how vim runs shell commands'); continue; }
    // a program run with the shell (`:make` runs 'makeprg'); a 'keywordprg' starting with `:` is an Ex command
    if (s.kind === 'program') { if (s.value.trim() !== '' && !s.value.startsWith(':')) out.push(plain(s.value)); continue; }
    if (s.kind === 'around') { unseen(s, 'text vim puts around or after each shell command it runs'); continue; }
    if (s.kind === 'flag') { if (!/^-[A-Za-z]*c$/.test(s.value)) unseen(s, 'the options vim gives its shell before each command'); continue; }
    const words = s.value.trim().split(/\s+/).filter((w) => w !== '');
    if (plainShell(words)) continue;
    unseen(s, `vim runs :!, system(), filters and file-name globs with ${display(s.value) || "''"}, not a shell the guard can read`);
    for (const cmd of commands.length > 0 ? commands : [null]) out.push([...words.map(plain), ...(cmd === null ? [] : ['-c', cmd])].map(shellWord).join(' '));
  }
  return out;
}
