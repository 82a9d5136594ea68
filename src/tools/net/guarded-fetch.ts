import type { NetworkPolicy } from '../../policy/network-policy.ts';
import {
  blockedAddress, checkUrl, FetchLimitError, normaliseHeaders, planRedirect, redactUrl, resolveAll, SsrfBlockedError, URL_RULES,
  type HopRequest, type Lookup, type UrlVerdict,
} from '../../guard/ssrf/index.ts';
import { systemLookup } from '../../util/system-ports.ts';
import { undiciTransport, type Transport } from './transport.ts';
import { linkedSignal, type LinkedSignal } from '../../util/linked-signal.ts';

export const DEFAULT_MAX_BYTES = 5 * 1024 * 1024;
export const DEFAULT_TIMEOUT_MS = 15_000;
export const DEFAULT_MAX_REDIRECTS = 5;

export interface GuardedFetchInit {
  readonly method?: string;
  readonly headers?: Readonly<Record<string, string>>;
  readonly body?: string | Buffer;
  /** Response body limit per hop, bytes (default 5 MiB). */
  readonly maxBytes?: number;
  /** Limit for the whole exchange, redirects and DNS included (default 15 s). */
  readonly timeoutMs?: number;
  readonly maxRedirects?: number;
  readonly lookup?: Lookup;
  readonly networkPolicy?: NetworkPolicy;
  readonly allowlist?: readonly string[];
  readonly signal?: AbortSignal;
  /** I/O seam (default: pinned undici). Every hop's URL is checked before the transport sees it. */
  readonly transport?: Transport;
  /**
   * The non-public targets a person saw flagged and approved (SPEC §6: such a target is an `ask`): the
   * first hop may go there, and only there. A lookup that now answers another non-public address is
   * refused; the hop is pinned to the checked addresses, and every redirect is judged in full.
   */
  readonly approvedTargets?: readonly string[];
}

export interface GuardedResponse {
  readonly status: number;
  readonly headers: Record<string, string | string[]>;
  readonly body: Buffer;
  /** The final URL, after redirects. */
  readonly url: string;
  /** Every redirect target followed, in order. */
  readonly redirects: string[];
}

const firstHeader = (v: string | string[] | undefined): string | undefined => (Array.isArray(v) ? v[0] : v);

/**
 * fetch for every network tool (SPEC §6): each hop is checked with checkUrl (any non-allow verdict throws
 * SsrfBlockedError before a byte is sent), connected only to the checked addresses, redirects followed by hand.
 */
export async function guardedFetch(url: string, init: GuardedFetchInit = {}): Promise<GuardedResponse> {
  const limit = linkedSignal([init.signal], init.timeoutMs ?? DEFAULT_TIMEOUT_MS);
  try {
    return await fetchHops(url, init, limit);
  } finally {
    limit.dispose();
  }
}

async function fetchHops(url: string, init: GuardedFetchInit, limit: LinkedSignal): Promise<GuardedResponse> {
  const maxBytes = init.maxBytes ?? DEFAULT_MAX_BYTES;
  const maxRedirects = init.maxRedirects ?? DEFAULT_MAX_REDIRECTS;
  const { signal } = limit;
  const transport = init.transport ?? undiciTransport();
  const lookup = init.lookup ?? systemLookup;

  const stopped = (current: string): Error | undefined => {
    if (init.signal?.aborted) return init.signal.reason instanceof Error ? init.signal.reason : new Error('aborted');
    if (limit.timedOut()) return new FetchLimitError('fetch.timeout', redactUrl(current), `(${init.timeoutMs ?? DEFAULT_TIMEOUT_MS} ms)`);
    return undefined;
  };

  let req: HopRequest = {
    url,
    method: (init.method ?? 'GET').toUpperCase(),
    headers: normaliseHeaders(init.headers),
    ...(init.body !== undefined ? { body: init.body } : {}),
  };
  const redirects: string[] = [];
  for (;;) {
    const verdict = await checkUrl(req.url, { lookup, networkPolicy: init.networkPolicy ?? 'allow', allowlist: init.allowlist ?? [], signal });
    const halt = stopped(req.url);
    if (halt) throw halt;
    const approvable = init.approvedTargets !== undefined && redirects.length === 0 && approvableTarget(verdict);
    const approved = approvable && verdict.findings.every((f) => f.target !== undefined && init.approvedTargets!.includes(f.target));
    if (approvable && !approved) {
      const now = verdict.findings.map((f) => f.target ?? f.matched).join(', ');
      throw new SsrfBlockedError('ssrf.approved_target_changed', 'ask', `${URL_RULES['ssrf.approved_target_changed']} (approved: ${init.approvedTargets!.join(', ') || 'none'}; now: ${now})`, redactUrl(req.url));
    }
    const addresses = approved && verdict.addresses.length === 0 ? await namedAddresses(lookup, verdict, signal, req.url) : verdict.addresses;
    if (verdict.decision !== 'allow' && !(approved && addresses.length > 0)) throw new SsrfBlockedError(verdict.rule, verdict.decision, verdict.reason, redactUrl(req.url));

    let res;
    try {
      res = await transport({ ...req, url: new URL(req.url).href, addresses, signal, maxBytes, ...(approved ? { nonPublicApproved: true } : {}) });
    } catch (err) {
      if (err instanceof SsrfBlockedError || err instanceof FetchLimitError) throw err;
      throw stopped(req.url) ?? err;
    }

    const plan = planRedirect(req, res.status, firstHeader(res.headers['location']));
    if (plan.kind === 'final') return { status: res.status, headers: res.headers, body: res.body, url: new URL(req.url).href, redirects };
    if (plan.kind === 'invalid') throw new FetchLimitError('fetch.redirect_invalid', redactUrl(req.url));
    if (redirects.length >= maxRedirects) throw new FetchLimitError('fetch.too_many_redirects', redactUrl(req.url), `(limit ${maxRedirects})`);
    redirects.push(plan.next.url);
    req = plan.next;
  }
}

/** Only a non-public target is a person's to approve; a bad URL, the network policy or a failed lookup is not. */
function approvableTarget(v: UrlVerdict): boolean {
  return v.decision === 'ask' && v.findings.every((f) => f.severity === 'ask' && !f.rule.startsWith('ssrf.dns.'));
}

/** Where credentials are handed out: a name's answer never reaches these on the strength of the name alone. */
const NEVER_BY_NAME = new Set(['ssrf.ip.metadata', 'ssrf.ip.link_local']);
/** This machine, where the daemon's own metrics, database and queue listen: reached by name only through a localhost name. */
const THIS_MACHINE = new Set(['ssrf.ip.loopback', 'ssrf.ip.this_network', 'ssrf.ip.unspecified']);

/**
 * A name refused by the name rules (`localhost`, `*.internal`) was never resolved; once approved it is.
 * The person saw a name, not its addresses: an answer naming a metadata or link-local address (a
 * rebinding name, a poisoned resolver) is refused rather than reached, and so is this machine unless
 * the name itself said so (`localhost`): `nas.lan` approved is not an approval of 127.0.0.1.
 */
async function namedAddresses(lookup: Lookup, verdict: UrlVerdict, signal: AbortSignal, url: string): Promise<string[]> {
  const { host } = verdict;
  const answer = await resolveAll(lookup, host, signal);
  if (answer instanceof Error) return [];
  const blocks = answer.flatMap((a) => blockedAddress(a));
  const hidden = blocks.find((b) => NEVER_BY_NAME.has(b.rule));
  if (hidden) throw new SsrfBlockedError('ssrf.approved_name_metadata', 'deny', `${URL_RULES['ssrf.approved_name_metadata']} (${host} -> ${hidden.address}: ${hidden.reason})`, redactUrl(url));
  const saysLocal = verdict.findings.some((f) => f.rule === 'ssrf.name.localhost');
  const local = saysLocal ? undefined : blocks.find((b) => THIS_MACHINE.has(b.rule));
  if (local) throw new SsrfBlockedError('ssrf.approved_name_loopback', 'deny', `${URL_RULES['ssrf.approved_name_loopback']} (${host} -> ${local.address})`, redactUrl(url));
  return answer;
}
