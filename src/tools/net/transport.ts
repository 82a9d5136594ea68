import { isIP, type Socket } from 'node:net';
import { buildConnector, Client } from 'undici';
import { blockedAddress, FetchLimitError, redactUrl, sameAddress, SsrfBlockedError, UNPARSEABLE_ADDRESS, type HopRequest } from '../../guard/ssrf/index.ts';

/** A request whose URL has passed checkUrl; `addresses` is the checked answer it may connect to. */
export interface PinnedRequest extends HopRequest {
  readonly addresses: readonly string[];
  /** A person approved this non-public target: the peer must still be one of `addresses`, but need not be public. */
  readonly nonPublicApproved?: boolean;
  readonly signal: AbortSignal;
  readonly maxBytes: number;
}

export interface HopResponse {
  readonly status: number;
  readonly headers: Record<string, string | string[]>;
  readonly body: Buffer;
}

/** The I/O of one hop. guardedFetch checks every URL before calling it, whatever the transport. */
export type Transport = (req: PinnedRequest) => Promise<HopResponse>;

export const SOCKET_RULES = {
  'ssrf.socket.unpinned': 'No checked address was given for the connection.',
  'ssrf.socket.no_remote': 'The connected socket reports no remote address, so it cannot be checked.',
  'ssrf.socket.mismatch': 'The socket is connected to an address other than the checked one.',
} as const;

export interface UndiciTransportOptions {
  /**
   * The socket opener (undici connector). Default: undici's own `buildConnector`. Tests replace it to stand for
   * the network; the pinning and the remote-address re-check wrap whatever it returns.
   */
  readonly connector?: buildConnector.connector;
  readonly connectTimeoutMs?: number;
}

/** Refusal of a connected socket, or undefined when its peer is one of the checked, public addresses. */
export function checkRemoteAddress(remote: string | undefined, pinned: readonly string[], nonPublicApproved = false): { rule: string; reason: string } | undefined {
  if (!remote) return { rule: 'ssrf.socket.no_remote', reason: SOCKET_RULES['ssrf.socket.no_remote'] };
  const block = nonPublicApproved ? undefined : blockedAddress(remote)[0];
  if (block) return { rule: block.rule, reason: `${block.reason} (connected socket peer)` };
  if (!pinned.some((p) => sameAddress(p, remote))) return { rule: 'ssrf.socket.mismatch', reason: SOCKET_RULES['ssrf.socket.mismatch'] };
  return undefined;
}

/**
 * A connector that dials only the checked addresses (in order, next one on a connect error), never the name,
 * so no second DNS lookup can happen; the Host header and TLS SNI stay the URL's name. Every socket's peer is
 * checked again before undici may write to it.
 */
export function pinnedConnector(addresses: readonly string[], base: buildConnector.connector, url: string, nonPublicApproved = false): buildConnector.connector {
  return (opts, callback) => {
    if (addresses.length === 0) {
      callback(new SsrfBlockedError('ssrf.socket.unpinned', 'ask', SOCKET_RULES['ssrf.socket.unpinned'], redactUrl(url)), null);
      return;
    }
    const blocked = (refusal: { rule: string; reason: string }) => new SsrfBlockedError(refusal.rule, 'ask', refusal.reason, redactUrl(url));
    // a name (or garbage) in the list would make the socket resolve it: the second lookup pinning exists to prevent
    const odd = addresses.findIndex((a) => typeof a !== 'string' || isIP(a) === 0);
    if (odd >= 0) {
      callback(blocked({ rule: UNPARSEABLE_ADDRESS.rule, reason: `${UNPARSEABLE_ADDRESS.reason} (pinned to ${JSON.stringify(String(addresses[odd]).slice(0, 80))})` }), null);
      return;
    }
    const attempt = (i: number): void => {
      const pending = base({ ...opts, hostname: addresses[i]! }, (err, socket) => {
        if (err instanceof SsrfBlockedError) return callback(err, null);
        if (err || !socket) {
          if (i + 1 < addresses.length) attempt(i + 1);
          else callback(err ?? new Error('connect failed'), null);
          return;
        }
        const refusal = checkRemoteAddress((socket as Socket).remoteAddress, addresses, nonPublicApproved);
        if (refusal) {
          socket.destroy();
          return callback(blocked(refusal), null);
        }
        callback(null, socket);
      }) as unknown as Socket | undefined;
      // undici's connector returns the socket: check the peer at TCP connect, before a TLS handshake goes out
      pending?.prependOnceListener?.('connect', () => {
        const refusal = checkRemoteAddress(pending.remoteAddress, addresses, nonPublicApproved);
        if (refusal) pending.destroy(blocked(refusal));
      });
    };
    attempt(0);
  };
}

const flatHeaders = (h: Record<string, string | string[] | undefined>): Record<string, string | string[]> =>
  Object.fromEntries(Object.entries(h).filter((e): e is [string, string | string[]] => e[1] !== undefined));

/** The production transport: undici Client per hop, pinned connector, bounded body. No decompression. */
export function undiciTransport(options: UndiciTransportOptions = {}): Transport {
  return async (req) => {
    const url = new URL(req.url);
    const base = options.connector ?? buildConnector({ timeout: options.connectTimeoutMs ?? 10_000 });
    const client = new Client(url.origin, { connect: pinnedConnector(req.addresses, base, req.url, req.nonPublicApproved === true), pipelining: 1 });
    try {
      const res = await client.request({
        path: `${url.pathname}${url.search}`,
        method: req.method as 'GET',
        headers: req.headers,
        body: req.body ?? null,
        signal: req.signal,
      });
      const declared = Number(res.headers['content-length']);
      if (Number.isFinite(declared) && declared > req.maxBytes) {
        res.body.destroy();
        throw new FetchLimitError('fetch.too_large', redactUrl(req.url), `(declared ${declared} bytes, limit ${req.maxBytes})`);
      }
      const chunks: Buffer[] = [];
      let size = 0;
      for await (const chunk of res.body) {
        size += (chunk as Buffer).length;
        if (size > req.maxBytes) {
          res.body.destroy();
          throw new FetchLimitError('fetch.too_large', redactUrl(req.url), `(more than ${req.maxBytes} bytes)`);
        }
        chunks.push(chunk as Buffer);
      }
      return { status: res.statusCode, headers: flatHeaders(res.headers), body: Buffer.concat(chunks) };
    } finally {
      await client.destroy().catch(() => undefined);
    }
  };
}
