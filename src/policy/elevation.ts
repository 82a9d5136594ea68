/** The only tools elevation applies to (seed: 提权只对 exec、execute_code、process 三个工具生效). */
export const ELEVATION_TOOLS: readonly string[] = ['exec', 'execute_code', 'process'];

export interface ExecSettings {
  readonly host: 'sandbox' | 'local' | 'remote';
  readonly security: 'deny' | 'allowlist' | 'full';
}

export interface ElevationSettings {
  readonly enabled: boolean;
  readonly allow_from: Readonly<Record<string, readonly string[]>>;
  readonly admin_users: readonly string[];
}

export function needsElevation(tool: string, exec: ExecSettings): boolean {
  return ELEVATION_TOOLS.includes(tool) && (exec.host === 'local' || exec.host === 'remote' || exec.security === 'full');
}

/**
 * Whether the sender is elevated. Matching is on the stable sender id, exact
 * string equality; "*" works as channel key and as sender value.
 */
export function isElevated(sender: { channel: string; user_id: string }, s: ElevationSettings): boolean {
  if (sender.user_id !== '' && s.admin_users.includes(sender.user_id)) return true;
  if (!s.enabled || sender.user_id === '') return false;
  const lists = [s.allow_from[sender.channel], s.allow_from['*']];
  return lists.some((ids) => ids !== undefined && (ids.includes('*') || ids.includes(sender.user_id)));
}
