import type { GuardVerdict, NormalisedCommand } from '../guard/types.ts';
import { CATALOG_BY_NAME } from '../tools/catalog-table.ts';

/** A file's path as a scope word: quoted when a space (or a quote) would let it read as program and sub-command. */
const fileWord = (path: string): string => (/[\s"\\]/.test(path) ? JSON.stringify(path) : path);

const scopeOf = (c: NormalisedCommand): string => {
  const program = c.file ? fileWord(c.program) : c.program;
  return c.subcommand ? `${program} ${c.subcommand}` : program;
};

/**
 * What a persistent approval covers (SPEC §5 step 9): for shell-type tools each
 * command's program and sub-command; for other tools the tool name. A program found
 * on PATH is scoped by its name (`git status`); one named by a path (`./build.sh`) by
 * that file's real absolute path (`/ws/build.sh`), so no other file of that name is
 * covered. A shell line that yielded no parsed command, or runs a file from a place
 * that cannot be known, has no scope, so no record can match it.
 */
export function approvalScopes(tool: string, verdict: GuardVerdict): readonly string[] {
  const entry = CATALOG_BY_NAME.get(tool);
  if (!entry?.guarded?.shell) return [tool];
  const commands = verdict.commands ?? [];
  if (commands.some((c) => c.file === false)) return [];
  return [...new Set(commands.map(scopeOf))];
}
