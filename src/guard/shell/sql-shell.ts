import type { Invocation } from './model.ts';
import { plain } from './values.ts';

/**
 * Shell commands a database client runs from its own commands, in its arguments (`psql -c`, `mysql -e`, sqlite3's SQL
 * operand) or static stdin: psql's `\! CMD`, output piped with `\o |CMD`, `\g |CMD`, `\w |CMD`, `-o '|CMD'`, and `COPY … PROGRAM 'CMD'`
 * (`\copy` runs it here, COPY on the server, which may be this machine); mysql's `\! CMD`, `system CMD` and its pager (`pager CMD`, `--pager=CMD`);
 * sqlite3's (and duckdb's, litecli's) `.system`, `.shell`, and `|CMD` targets of `.once`, `.output`, `.read`, `.import`.
 * Each found command is walked like `sh -c CMD`.
 */
const PSQL: readonly RegExp[] = [
  /\\!(?<code>[^\n]*)/g,
  /\\(?:o|out|g|gx|w|write)[ \t]+\|(?<code>[^\n]*)/g,
  /\bprogram\s+'(?<quoted>(?:[^']|'')*)'/gi,
  // `psql -o '|CMD'`: its output piped to CMD
  /^\|(?<code>[^\n]*)/g,
];
const MYSQL: readonly RegExp[] = [
  /\\!(?<code>[^\n]*)/g,
  /(?:^|[\n;])[ \t]*(?:system|pager)[ \t]+(?<code>[^\n]*)/gi,
  /\\P[ \t]+(?<code>[^\n]*)/g,
  /^--pager=(?<code>.*)$/gs,
];
const SQLITE: readonly RegExp[] = [
  /(?:^|\n)[ \t]*\.(?:system|shell)[ \t]+(?<code>[^\n]*)/g,
  /(?:^|\n)[ \t]*\.(?:once|output|read|import)[ \t]+(?:-\S+[ \t]+)*['"]?\|(?<code>[^\n'"]*)/g,
];

export const SQL_SHELL: Readonly<Record<string, readonly RegExp[]>> = {
  psql: PSQL, usql: PSQL, pgcli: PSQL,
  mysql: MYSQL, mariadb: MYSQL, mycli: MYSQL,
  sqlite3: SQLITE, sqlite: SQLITE, duckdb: SQLITE, litecli: SQLITE,
};

/** The shell commands a database client's arguments and stdin hold (see above). */
export function sqlShellCode(inv: Invocation): string[] {
  const res = Object.hasOwn(SQL_SHELL, inv.program) ? SQL_SHELL[inv.program]! : null;
  if (!res) return [];
  const texts = [...inv.args.map((a) => plain(a.v)), ...(inv.stdinText !== null ? [inv.stdinText] : [])];
  const out: string[] = [];
  for (const t of texts) {
    for (const re of res) {
      for (const m of t.matchAll(re)) {
        const code = m.groups?.code?.replace(/;\s*$/, '') ?? m.groups?.quoted?.replace(/''/g, "'");
        if (code !== undefined && code.trim() !== '') out.push(code);
      }
    }
  }
  return out;
}
