/** One request of a redirect chain; header names are lower case. */
export interface HopRequest {
  readonly url: string;
  readonly method: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body?: string | Buffer;
}

export type RedirectPlan =
  | { readonly kind: 'final' }
  | { readonly kind: 'redirect'; readonly next: HopRequest }
  | { readonly kind: 'invalid'; readonly location: string };

export const REDIRECT_STATUSES: ReadonlySet<number> = new Set([301, 302, 303, 307, 308]);

/**
 * The only headers that follow a redirect to another origin. Any other may carry a credential under a
 * name nobody listed (`api-key`, `x-goog-api-key`, `private-token`, …), so it stays with its origin.
 */
export const CROSS_ORIGIN_HEADERS: readonly string[] = [
  'accept', 'accept-encoding', 'accept-language', 'user-agent', 'cache-control', 'pragma',
  'content-type', 'content-length', 'content-encoding', 'content-language',
];

/** Headers describing a request body; dropped when a redirect turns the request into a GET. */
const BODY_HEADERS: readonly string[] = ['content-type', 'content-length', 'content-encoding', 'content-language', 'content-location', 'transfer-encoding'];

/** Lower-cases header names and drops `host` (the origin decides it, so it cannot name another site). */
export function normaliseHeaders(headers: Readonly<Record<string, string>> | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(headers ?? {})) {
    const name = k.toLowerCase();
    if (name !== 'host') out[name] = v;
  }
  return out;
}

const without = (headers: Readonly<Record<string, string>>, names: readonly string[]): Record<string, string> =>
  Object.fromEntries(Object.entries(headers).filter(([k]) => !names.includes(k)));

/**
 * The next request after a response, as the fetch standard does it: 303 (and 301/302 after POST) become
 * GET without a body; 307/308 keep method and body; only CROSS_ORIGIN_HEADERS go on when the origin changes.
 * Pure: the caller checks the next URL with checkUrl before sending anything.
 */
export function planRedirect(req: HopRequest, status: number, location: string | undefined): RedirectPlan {
  if (!REDIRECT_STATUSES.has(status) || location === undefined) return { kind: 'final' };
  let nextUrl: URL;
  try {
    nextUrl = new URL(location, req.url);
  } catch {
    return { kind: 'invalid', location };
  }
  const toGet = (status === 303 && req.method !== 'HEAD') || ((status === 301 || status === 302) && req.method === 'POST');
  let headers: Record<string, string> = { ...req.headers };
  if (toGet) headers = without(headers, BODY_HEADERS);
  if (nextUrl.origin !== new URL(req.url).origin) headers = Object.fromEntries(Object.entries(headers).filter(([k]) => CROSS_ORIGIN_HEADERS.includes(k)));
  nextUrl.hash = '';
  const next: HopRequest = toGet
    ? { url: nextUrl.href, method: 'GET', headers }
    : { url: nextUrl.href, method: req.method, headers, ...(req.body !== undefined ? { body: req.body } : {}) };
  return { kind: 'redirect', next };
}
