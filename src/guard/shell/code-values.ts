import { CODE_VARIABLES, type CodeIn } from './code-tables.ts';
import { decodeAnsiC } from './syntax/ansi-c.ts';
import { plain } from './values.ts';

/** What a value carries: shell code to walk, another interpreter's code to flag, or both (a C `system("…")`). */
export interface ValueCode {
  readonly shell?: string;
  readonly inline?: string;
}

/**
 * The code a value carries per its table entry: all of it, or the first matching pattern's groups — `code` (shell
 * code as written), `cstring` (a C string literal's body, unescaped), `inline` (flagged like `python -c`).
 */
export function codeOf(value: string, how: CodeIn): ValueCode | null {
  if (how === true) return { shell: value };
  for (const re of how) {
    const g = re.exec(value)?.groups;
    if (!g) continue;
    const shell = g.code ?? (g.cstring !== undefined ? decodeAnsiC(g.cstring) : undefined);
    const out: { shell?: string; inline?: string } = {};
    if (shell !== undefined && shell.trim() !== '') out.shell = shell;
    if (g.inline !== undefined) out.inline = value.trim();
    if (out.shell !== undefined || out.inline !== undefined) return out;
  }
  return null;
}

/** Shell code a variable's value is for the program that reads it (`PROMPT_COMMAND=…`, `LESSOPEN='|CMD %s'`); null when none. */
export function variableCode(name: string, value: string): string | null {
  const how = CODE_VARIABLES[arrayName(name)];
  return (how ? codeOf(plain(value), how) : null)?.shell ?? null;
}

/** Whether a variable's value is code; `NAME[i]` is an element of it (PROMPT_COMMAND runs every element). */
export const isCodeVariable = (name: string): boolean => CODE_VARIABLES[arrayName(name)] !== undefined;
export const arrayName = (name: string): string => name.replace(/\[.*\]$/s, '');
