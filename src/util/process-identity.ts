import { hostname, userInfo } from 'node:os';

/** The OS account this process runs as; `uid:N` when it has no name (a container's arbitrary uid). */
export function osAccount(): string {
  try {
    return userInfo().username;
  } catch {
    return `uid:${process.getuid?.() ?? 'unknown'}`;
  }
}

let identity: { readonly os_account: string; readonly host: string } | undefined;

/** Who really acted, beside the names a caller gives (`--as`, a channel's user id), which are only claims; read once per process. */
export function processIdentity(): { readonly os_account: string; readonly host: string } {
  identity ??= Object.freeze({ os_account: osAccount(), host: hostname() });
  return identity;
}
