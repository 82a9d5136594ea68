export const NETWORK_POLICIES = ['deny', 'restricted', 'allow'] as const;
export type NetworkPolicy = (typeof NETWORK_POLICIES)[number];

/** Whether a host may be contacted under `restricted`: exact name or a `*.suffix` entry. */
export function hostAllowed(host: string, allowlist: readonly string[]): boolean {
  const h = host.toLowerCase().replace(/\.$/, '');
  return allowlist.some((entry) => {
    const e = entry.toLowerCase().replace(/\.$/, '');
    if (e.startsWith('*.')) return h.endsWith(e.slice(1)) && h.length > e.length - 1;
    return h === e;
  });
}
