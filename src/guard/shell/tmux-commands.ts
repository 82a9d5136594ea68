import { has, type ParsedOptions } from './flags.ts';
import type { Arg } from './model.ts';
import { UNKNOWN, isKnown, plain } from './values.ts';
import type { SubcommandSpec } from './wrapper-tables.ts';
import { menuCommands, optionCommand } from './tmux-options.ts';

/**
 * tmux commands given to other tmux commands (`if-shell COND 'run-shell …'`, `bind-key x run-shell …`,
 * `confirm-before 'kill-server'`, `run-shell -C …`, `set-hook NAME …`, `command-prompt TEMPLATE`): each as the words of
 * a command line, which the caller reads as tmux reads its own.
 */

const word = (v: string): Arg => ({ v, info: { computed: !isKnown(v), ansi: false, quoted: true, inner: [], raw: v } });

/**
 * A tmux command string split as tmux's parser (cmd-parse.y) splits it: blanks between words, `;` and newlines between
 * commands (a `;` word), quotes, backslash escapes, `#` comments, and `{ … }` one word holding the commands inside.
 */
export function tmuxWords(text: string): string[] {
  const out: string[] = [];
  let cur: string | null = null;
  const end = (): void => { if (cur !== null) out.push(cur); cur = null; };
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (c === ' ' || c === '\t') { end(); continue; }
    if (c === '\n' || c === ';') { end(); out.push(';'); continue; }
    if (c === '#' && cur === null && text[i + 1] !== '{') { while (i + 1 < text.length && text[i + 1] !== '\n') i++; continue; }
    if (c === '{' && cur === null) {
      const close = closingBrace(text, i);
      out.push(text.slice(i + 1, close));
      i = close;
      continue;
    }
    cur ??= '';
    if (c === '\\' && i + 1 < text.length) cur += text[++i]!;
    else if (c === "'") { const j = text.indexOf("'", i + 1); const stop = j < 0 ? text.length : j; cur += text.slice(i + 1, stop); i = stop; }
    else if (c === '"') {
      let j = i + 1;
      for (; j < text.length && text[j] !== '"'; j++) cur += text[j] === '\\' && j + 1 < text.length ? text[++j]! : text[j]!;
      i = j;
    } else cur += c;
  }
  end();
  return out;
}

/** A screen command line as screen splits it: blanks between words, quotes kept off, backslashes left for stuff to read. */
export function screenWords(text: string): string[] {
  return [...text.matchAll(/"((?:[^"\\]|\\.)*)"|'([^']*)'|((?:[^\s"'\\]|\\.)+)/g)].map((m) => m[1] ?? m[2] ?? m[3] ?? '');
}

/** A tmux command string (or a file of them) as the words of its commands, `;` words between them. */
export const tmuxLine = (text: string): Arg[] => tmuxWords(text).map(word);

/** Index of the `}` closing the `{` at `open` (nested braces and quotes skipped), or the text's end. */
function closingBrace(text: string, open: number): number {
  let depth = 0;
  for (let i = open; i < text.length; i++) {
    const c = text[i]!;
    if (c === '\\') i++;
    else if (c === "'" || c === '"') { const j = text.indexOf(c, i + 1); i = j < 0 ? text.length : j; }
    else if (c === '{') depth++;
    else if (c === '}' && --depth === 0) return i;
  }
  return text.length;
}

/** command-prompt's template: `%%`, `%1`… stand for what is typed at the prompt, unknown here. */
const PROMPTED = /%%%|%%|%\d/g;

/**
 * The tmux command lines a sub-command holds (`run-shell -C` holds its operands): a string is split with tmuxWords, several
 * words are a command already (`bind-key x run-shell 'rm -rf /'`); `unknown` has strings computed at run time.
 */
export function tmuxCommandLines(p: ParsedOptions, sub: SubcommandSpec): { lines: Arg[][]; unknown: string[] } {
  const lines: Arg[][] = [];
  const unknown: string[] = [];
  const fromString = (a: Arg): void => {
    if (!isKnown(a.v)) unknown.push(a.info.raw);
    else lines.push(tmuxWords(sub.template ? a.v.replace(PROMPTED, UNKNOWN) : a.v).map(word));
  };
  if (sub.commandsWith !== undefined && has(p, sub.commandsWith)) p.operands.forEach(fromString);
  if (sub.menu) menuCommands(p.operands).forEach(fromString);
  if (sub.eachCommand) for (const a of p.operands) (isKnown(a.v) ? lines.push(screenWords(a.v).map(word)) : unknown.push(a.info.raw));
  const held = sub.option ? optionCommand(p) : null;
  if (held) fromString(held);
  for (const i of sub.commands ?? []) if (p.operands[i]) fromString(p.operands[i]);
  if (sub.commandFrom !== undefined) {
    const ops = p.operands.slice(sub.commandFrom);
    if (ops.length === 1) fromString(ops[0]!);
    else if (ops.length > 1) lines.push([...ops]);
  }
  return { lines, unknown };
}

/**
 * Whether a sub-command's operands are shell code (`run-shell CMD`, `if-shell COND`), not tmux commands, menus, files or a
 * format (`run-shell -C`, `display-menu`, `source-file`, `if-shell -F`); an option's value is read by optionShell.
 */
export const runsShell = (p: ParsedOptions, sub: SubcommandSpec): boolean =>
  !(sub.commandsWith !== undefined && has(p, sub.commandsWith)) && !(sub.formatWith !== undefined && has(p, sub.formatWith)) && !sub.files && !sub.menu && !sub.eachCommand && !sub.buffer &&
  sub.commandFrom === undefined && !(sub.commands?.includes(0) ?? false);

/** `#(CMD)` in a word tmux expands as a format runs CMD with the shell (display-message, status-right, …); each CMD. */
export function formatJobs(words: readonly Arg[]): string[] {
  const out: string[] = [];
  for (const a of words) {
    const t = plain(a.v);
    for (let at = t.indexOf('#('); at >= 0; at = t.indexOf('#(', at + 2)) {
      let depth = 0;
      let i = at + 1;
      for (; i < t.length; i++) if (t[i] === '(') depth++; else if (t[i] === ')' && --depth === 0) break;
      if (t.slice(at + 2, i).trim() !== '') out.push(t.slice(at + 2, i));
    }
  }
  return out;
}
