import { codeText } from './code-text.ts';
import type { Arg } from './model.ts';
import { UNKNOWN, literal, plain } from './values.ts';

/**
 * fzf's commands, which it runs with `$SHELL -c` (or its --with-shell): --preview's, and those of --bind actions
 * (`start:execute(CMD)`, `ctrl-r:reload:CMD`, `load:become[CMD]`, transform…). Placeholders (`{}`, `{+}`, `{q}`, `{1..3}`)
 * are the selection, unknown here. FZF_DEFAULT_COMMAND and FZF_DEFAULT_OPTS are read as code variables (code-tables.ts).
 */

/** Actions whose argument is a command; `preview` only alone (`toggle-preview`, `preview-up`, `change-preview-window` take none). */
const ACTION = /(?<![\w-])(execute(?:-silent|-multi)?|become|reload(?:-sync)?|change-preview|preview|(?:bg-)?transform(?:-[a-z]+)*)(?=[(\[{<~!@#$%^&*;/|:])/g;
const CLOSE: Readonly<Record<string, string>> = { '(': ')', '[': ']', '{': '}', '<': '>' };
/** fzf's placeholders: `{}`, `{+}`, `{q}`, `{n}`, `{1}`, `{-1}`, `{2..}`, `{+f}`, `{fzf:query}`, … */
const PLACEHOLDER = /\{(?:[+*sfqrn]*(?:-?\d+(?:\.\.-?\d*)?|\.\.-?\d+)?(?:,(?:-?\d+(?:\.\.-?\d*)?))*|fzf:[a-z-]+)\}/g;

/** The commands of one --bind value: each action's argument in its delimiters, or after `:` to the end. */
export function bindCommands(value: string): string[] {
  const out: string[] = [];
  ACTION.lastIndex = 0;
  for (let m = ACTION.exec(value); m; m = ACTION.exec(value)) {
    const at = m.index + m[1]!.length;
    const open = value[at]!;
    if (open === ':') { out.push(value.slice(at + 1)); break; }
    const end = value.indexOf(CLOSE[open] ?? open, at + 1);
    out.push(value.slice(at + 1, end < 0 ? undefined : end));
    if (end < 0) break;
    ACTION.lastIndex = end + 1;
  }
  return out;
}

const filled = (cmd: string): string => codeText(cmd.replace(PLACEHOLDER, UNKNOWN));

/** fzf's options that take a value (so the word after is no option), and those carrying commands. */
const CODE_OPTIONS = new Set(['--preview', '--bind']);

/** The shell commands fzf's arguments give it, and its --with-shell value when given. */
export function fzfCommands(args: readonly Arg[]): { readonly commands: string[]; readonly withShell: Arg | null } {
  const commands: string[] = [];
  let withShell: Arg | null = null;
  for (let i = 0; i < args.length; i++) {
    const w = literal(args[i]!.v) ?? '';
    if (w === '--') break;
    const eq = w.startsWith('--') ? w.indexOf('=') : -1;
    const name = eq > 0 ? w.slice(0, eq) : w;
    if (!CODE_OPTIONS.has(name) && name !== '--with-shell') continue;
    const value = eq > 0 ? { ...args[i]!, v: args[i]!.v.slice(args[i]!.v.indexOf('=') + 1) } : args[++i];
    if (!value) break;
    if (name === '--with-shell') withShell = value;
    else if (name === '--preview') commands.push(filled(plain(value.v)));
    else commands.push(...bindCommands(plain(value.v)).map(filled));
  }
  return { commands: commands.filter((c) => c.trim() !== ''), withShell };
}
