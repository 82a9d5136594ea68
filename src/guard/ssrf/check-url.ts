import { isIP } from '../../util/ip-syntax.ts';
import { hostAllowed, type NetworkPolicy } from '../../policy/network-policy.ts';
import { RULES } from '../../policy/rules.ts';
import type { GuardDecision, GuardFinding } from '../types.ts';
import { verdictOf } from '../types.ts';
import { judgeAddress } from './address-rules.ts';
import { blockedName } from './name-rules.ts';
import { redactUrl } from './redact.ts';

/** Resolves a name to every address it has (the whole answer, not just the first); injected (util/system-ports.ts has the system's). */
export type Lookup = (hostname: string) => Promise<{ address: string; family: 4 | 6 }[]>;

export interface CheckUrlOptions {
  /** `null` = offline (`--no-dns`): names are judged by the name denylist only. */
  readonly lookup: Lookup | null;
  readonly networkPolicy?: NetworkPolicy;
  readonly allowlist?: readonly string[];
  /** Aborts waiting for the lookup. */
  readonly signal?: AbortSignal;
}

export interface UrlVerdict {
  readonly decision: GuardDecision;
  readonly reason: string;
  readonly rule: string;
  /** Every address checked: the literal, or the whole DNS answer (canonical text). */
  readonly addresses: string[];
  /** Normalised host: WHATWG-parsed, brackets and trailing dots removed. */
  readonly host: string;
  readonly findings: GuardFinding[];
}

/** A value written as a URL (`scheme://…`) rather than a local path. */
export const HAS_SCHEME = /^[a-z][a-z0-9+.-]*:\/\//i;

/** Rules of the URL itself (not of its target), with the sentence shown to people. */
export const URL_RULES = {
  'ssrf.url_invalid': 'The URL does not parse as an absolute URL.',
  'ssrf.scheme': 'Only http: and https: URLs may be fetched.',
  'ssrf.userinfo': 'URLs carrying a user name or password are refused; credentials must not travel in URLs.',
  // the network policy's rules, one sentence each wherever they decide
  'network.deny': RULES['network.deny'],
  'network.restricted': RULES['network.restricted'],
  'ssrf.dns.failed': 'The name could not be resolved, so its addresses cannot be shown to be public.',
  'ssrf.dns.unavailable': 'The resolver did not answer for now, so the name\'s addresses cannot be shown to be public; a later try may resolve it.',
  'ssrf.dns.empty': 'The name resolved to no address, so it cannot be shown to be public.',
  'ssrf.allowed': 'Every address of the target is public.',
  'ssrf.unresolved': 'Offline check (no DNS): the name passed the name denylist, but its addresses were not resolved or checked.',
  'ssrf.approved_target_changed': 'A person approved this call for other non-public addresses than the target has now; the approval does not cover them.',
  'ssrf.approved_name_metadata': 'A person approved a name, and it resolved to a metadata or link-local address they were not shown; an approval of a name never covers those.',
  'ssrf.approved_name_loopback': 'A person approved a name, and it resolved to this machine (loopback or an unspecified address), where the daemon\'s own services listen; to reach this machine the URL must say localhost or 127.0.0.1, so the person sees it.',
} as const;

type UrlRule = keyof typeof URL_RULES;

const finding = (rule: string, severity: 'deny' | 'ask', matched: string, reason: string): GuardFinding => ({ rule, severity, matched, reason });
const urlFinding = (rule: UrlRule, matched: string): GuardFinding => finding(rule, 'deny', matched, URL_RULES[rule]);

function verdict(host: string, addresses: string[], findings: GuardFinding[], allowRule: UrlRule = 'ssrf.allowed'): UrlVerdict {
  const { decision } = verdictOf(findings);
  const lead = findings.find((f) => f.severity === 'deny') ?? findings[0];
  if (!lead) return { decision, rule: allowRule, reason: URL_RULES[allowRule], addresses, host, findings };
  const more = findings.length > 1 ? ` (+${findings.length - 1} more finding${findings.length > 2 ? 's' : ''})` : '';
  return { decision, rule: lead.rule, reason: `${lead.reason}${more}`, addresses, host, findings };
}

/** WHATWG host without IPv6 brackets or trailing dots. */
export function normaliseHost(hostname: string): string {
  const bare = hostname.startsWith('[') && hostname.endsWith(']') ? hostname.slice(1, -1) : hostname;
  return bare.replace(/\.+$/, '').toLowerCase();
}

/** Canonical addresses (deduplicated) and a finding per block on any of them. */
function judgeAll(host: string, texts: readonly string[], literal: boolean): { addresses: string[]; findings: GuardFinding[] } {
  const addresses: string[] = [];
  const findings: GuardFinding[] = [];
  for (const text of texts) {
    const { address, blocks } = judgeAddress(text);
    if (addresses.includes(address)) continue;
    addresses.push(address);
    for (const b of blocks) findings.push({ ...finding(b.rule, 'ask', literal ? address : `${host} -> ${address}`, b.reason), target: address });
  }
  return { addresses, findings };
}

/** Every address of a name, or the error; gives up when `signal` aborts. */
export async function resolveAll(lookup: Lookup, host: string, signal?: AbortSignal): Promise<string[] | Error> {
  let onAbort: (() => void) | undefined;
  try {
    signal?.throwIfAborted();
    const aborted = new Promise<never>((_, reject) => {
      onAbort = () => reject(signal?.reason);
      signal?.addEventListener('abort', onAbort, { once: true });
    });
    const answers = await (signal ? Promise.race([lookup(host), aborted]) : lookup(host));
    return answers.map((a) => a.address);
  } catch (err) {
    return err instanceof Error ? err : new Error(String(err));
  } finally {
    if (onAbort) signal?.removeEventListener('abort', onAbort);
  }
}

/** Resolver answers that say nothing about the name: node's dns and c-ares codes for a timeout, a refusal or a server failure. */
const TRANSIENT_DNS: ReadonlySet<string> = new Set(['EAI_AGAIN', 'ETIMEOUT', 'ETIMEDOUT', 'ECONNREFUSED', 'ESERVFAIL', 'ECANCELLED', 'EREFUSED']);

/** Whether a decision was refused only because the resolver did not answer: a passing failure, not a refusal of the call. */
export function onlyResolverDown(flagged: readonly { readonly rule: string }[]): boolean {
  return flagged.length > 0 && flagged.every((f) => f.rule === 'ssrf.dns.unavailable');
}

/**
 * Decides whether a URL may be fetched (SPEC §6). URL-shape and network-policy problems are `deny`;
 * a non-public target is `ask` (flagged; refused when unattended and by guardedFetch).
 */
export async function checkUrl(url: string, opts: CheckUrlOptions): Promise<UrlVerdict> {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return verdict('', [], [urlFinding('ssrf.url_invalid', redactUrl(url))]);
  }
  const host = normaliseHost(parsed.hostname);
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') return verdict(host, [], [urlFinding('ssrf.scheme', parsed.protocol)]);
  if (parsed.username || parsed.password) return verdict(host, [], [urlFinding('ssrf.userinfo', `***@${parsed.host}`)]);
  if (!host) return verdict(host, [], [urlFinding('ssrf.url_invalid', redactUrl(url))]);

  const policy = opts.networkPolicy ?? 'allow';
  if (policy === 'deny') return verdict(host, [], [urlFinding('network.deny', host)]);
  if (policy === 'restricted' && !hostAllowed(host, opts.allowlist ?? [])) return verdict(host, [], [urlFinding('network.restricted', host)]);

  if (isIP(host) !== 0) {
    const { addresses, findings } = judgeAll(host, [host], true);
    return verdict(host, addresses, findings);
  }
  const named = blockedName(host);
  if (named) return verdict(host, [], [{ ...finding(named.rule, 'ask', host, named.reason), target: host }]);
  if (opts.lookup === null) return verdict(host, [], [], 'ssrf.unresolved');

  const answer = await resolveAll(opts.lookup, host, opts.signal);
  if (answer instanceof Error) {
    const code = (answer as NodeJS.ErrnoException).code;
    // a resolver that is down or slow is not a name that does not exist: a daemon run is retried for the one, refused for the other
    const rule = code && TRANSIENT_DNS.has(code) ? 'ssrf.dns.unavailable' : 'ssrf.dns.failed';
    return verdict(host, [], [finding(rule, 'ask', host, `${URL_RULES[rule]}${code ? ` (${code})` : ''}`)]);
  }
  if (answer.length === 0) return verdict(host, [], [finding('ssrf.dns.empty', 'ask', host, URL_RULES['ssrf.dns.empty'])]);
  const { addresses, findings } = judgeAll(host, answer, false);
  return verdict(host, addresses, findings);
}
