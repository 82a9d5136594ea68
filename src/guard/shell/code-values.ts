import { CODE_VARIABLES, VARIABLE_PROGRAMS, type CodeIn } from './code-tables.ts';
import { decodeAnsiC } from './syntax/ansi-c.ts';
import { plain } from './values.ts';

/** What a value carries: shell code to walk, another interpreter's code to flag, or both (a C `system("…")`); or a command file it reads. */
export interface ValueCode {
  readonly shell?: string;
  readonly inline?: string;
  readonly file?: string;
  /** A settings file the program reads, which may run code the guard cannot see. */
  readonly setting?: string;
}

/** A word as shell text that re-parses to it; unknown parts and home stay expansions (`plain` spells them `$__unknown`, `$HOME`). */
export function shellWord(w: string): string {
  if (w === '') return "''";
  return w.split(/(\$__unknown|\$HOME)/).map((p, i) => (i % 2 === 1 ? `"${p}"` : p === '' ? '' : `'${p.replace(/'/g, "'\\''")}'`)).join('');
}

/** A prompt string bash expands like a double-quoted word (its `$(…)` and backquotes run): as a heredoc body, which expands alike and needs no escaping. */
function promptCode(value: string): string {
  let end = 'PROMPT';
  while (value.split('\n').includes(end)) end += '_';
  return `: <<${end}\n${value}\n${end}`;
}

/**
 * The command of a git `ext::` URL as shell text: git splits it at spaces and runs it without a shell; `% ` is a
 * space, `%%` a percent sign, `%s`/`%S` the service (`upload-pack`); `%G…`/`%V…` words are not passed on.
 */
export function extCommand(spec: string): string {
  const words: string[] = [];
  let cur = '';
  for (let i = 0; i < spec.length; i++) {
    const c = spec[i]!;
    if (c === ' ') { words.push(cur); cur = ''; continue; }
    if (c !== '%' || i + 1 >= spec.length) { cur += c; continue; }
    const n = spec[++i]!;
    cur += n === 's' ? 'upload-pack' : n === 'S' ? 'git-upload-pack' : n === ' ' || n === '%' ? n : `%${n}`;
  }
  words.push(cur);
  return words.filter((w) => w !== '' && !/^%[GV]/.test(w)).map(shellWord).join(' ');
}

/**
 * The code a value carries per its table entry: all of it, or the first matching pattern's groups — `code` (shell
 * code as written), `cstring` (a C string literal's body, unescaped), `ext` (a git `ext::` command), `net` (a command whose stdin is a network peer), `prompt` (a prompt
 * string, expanded like a double-quoted word), `inline` (flagged
 * like `python -c`), `file` (a command file it reads), `args` (a debugger's `run ARGS`, which /bin/sh reads as
 * `exec PROG ARGS`; PROG is `program`, the word it was given, else `:`).
 */
export function codeOf(value: string, how: CodeIn, program: string | null = null): ValueCode | null {
  if (how === true) return { shell: value };
  for (const re of how) {
    const g = re.exec(value)?.groups;
    if (!g) continue;
    const run = g.args !== undefined ? `${program === null ? ':' : `exec ${shellWord(program)}`} ${g.args}` : undefined;
    // a command fed by the network (`nc -e PROG`): its stdin is what the other end sends
    const net = g.net !== undefined ? `${g.net} < /dev/tcp/peer/0` : undefined;
    const shell = g.code ?? run ?? net ?? (g.cstring !== undefined ? decodeAnsiC(g.cstring) : g.ext !== undefined ? extCommand(g.ext) : g.prompt !== undefined ? promptCode(g.prompt) : undefined);
    const out: { shell?: string; inline?: string; file?: string; setting?: string } = {};
    if (shell !== undefined && shell.trim() !== '') out.shell = shell;
    if (g.inline !== undefined) out.inline = value.trim();
    if (g.file !== undefined && g.file.trim() !== '') out.file = g.file.trim();
    if (g.setting !== undefined) out.setting = g.setting.trim();
    if (out.shell !== undefined || out.inline !== undefined || out.file !== undefined || out.setting !== undefined) return out;
  }
  return null;
}

/** Shell code a variable's value is for the program that reads it (`PROMPT_COMMAND=…`, `LESSOPEN='|CMD %s'`); null when none. */
export function variableCode(name: string, value: string): string | null {
  const how = isCodeVariable(name) ? CODE_VARIABLES[arrayName(name)] : undefined;
  return (how ? codeOf(plain(value), how, VARIABLE_PROGRAMS[arrayName(name)] ?? null) : null)?.shell ?? null;
}

/** Whether a variable's value is code; `NAME[i]` is an element of it (PROMPT_COMMAND runs every element). Own keys only: `constructor=x` is no entry. */
export const isCodeVariable = (name: string): boolean => Object.hasOwn(CODE_VARIABLES, arrayName(name));
export const arrayName = (name: string): string => name.replace(/\[.*\]$/s, '');
