/**
 * Host names that lead to internal targets whatever DNS says, as data. `names` match exactly, `suffixes`
 * match the name itself or any sub-domain. First matching rule wins.
 */
export interface NameRule {
  readonly rule: string;
  readonly names?: readonly string[];
  readonly suffixes?: readonly string[];
  readonly reason: string;
}

export const NAME_RULES: readonly NameRule[] = [
  {
    rule: 'ssrf.name.localhost',
    suffixes: ['localhost', 'localhost6', 'ip6-localhost', 'ip6-loopback'],
    reason: 'The name is localhost (or under .localhost), which always means this machine.',
  },
  {
    rule: 'ssrf.name.metadata',
    names: ['metadata.google.internal', 'metadata.goog', 'metadata', 'instance-data', 'instance-data.ec2.internal', 'metadata.tencentyun.com'],
    reason: 'The name is a cloud instance metadata service, which hands out credentials.',
  },
  {
    rule: 'ssrf.name.internal_suffix',
    suffixes: ['internal', 'local', 'localdomain', 'intranet', 'lan', 'home', 'corp', 'private', 'home.arpa', 'svc', 'cluster.local'],
    reason: 'The name is under a suffix used only inside private networks (.internal, .local, .localdomain, .lan, …).',
  },
  {
    rule: 'ssrf.name.rebinding_service',
    suffixes: ['nip.io', 'sslip.io', 'xip.io', 'localtest.me', 'lvh.me', 'vcap.me', 'lacolhost.com', 'rbndr.us', '1u.ms', 'traefik.me', 'local.gd'],
    reason: 'The name belongs to a wildcard DNS service that maps names to arbitrary (often private) addresses, a known SSRF and rebinding trick.',
  },
];

export const SINGLE_LABEL_RULE = {
  rule: 'ssrf.name.single_label',
  reason: 'The name has a single label, so it resolves through local search domains or hosts files, i.e. inside the network.',
} as const;

export interface NameBlock {
  readonly rule: string;
  readonly reason: string;
}

/** The rule blocking a normalised (lower-case, no trailing dot) host name, if any. */
export function blockedName(host: string): NameBlock | undefined {
  for (const r of NAME_RULES) {
    if (r.names?.includes(host)) return { rule: r.rule, reason: r.reason };
    if (r.suffixes?.some((s) => host === s || host.endsWith(`.${s}`))) return { rule: r.rule, reason: r.reason };
  }
  if (!host.includes('.')) return { rule: SINGLE_LABEL_RULE.rule, reason: SINGLE_LABEL_RULE.reason };
  return undefined;
}
