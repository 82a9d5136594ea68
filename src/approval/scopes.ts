import type { GuardVerdict } from '../guard/types.ts';
import { CATALOG_BY_NAME } from '../tools/catalog-table.ts';

/**
 * What a persistent approval covers (SPEC §5 step 9): for shell-type tools each
 * command's program and sub-command; for other tools the tool name. A shell line
 * that yielded no parsed command has no scope, so no record can match it.
 */
export function approvalScopes(tool: string, verdict: GuardVerdict): readonly string[] {
  const entry = CATALOG_BY_NAME.get(tool);
  if (!entry?.guarded?.shell) return [tool];
  const scopes = (verdict.commands ?? []).map((c) => (c.subcommand ? `${c.program} ${c.subcommand}` : c.program));
  return [...new Set(scopes)];
}
