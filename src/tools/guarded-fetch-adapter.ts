import { guardedFetch, type GuardedFetchInit, type GuardedResponse } from './net/index.ts';
import { linkedSignal } from '../util/linked-signal.ts';

/** The WHATWG fetch signature, as SDKs (openai's `fetch` option) expect it. */
export type FetchLike = (input: string | URL | Request, init?: RequestInit) => Promise<Response>;

export type AdapterOptions = Omit<GuardedFetchInit, 'method' | 'headers' | 'body'> & {
  /** Sees every error guardedFetch throws, before an SDK wraps or rewords it. */
  readonly onError?: (err: unknown) => void;
};

// statuses the Response constructor refuses a body for
const NULL_BODY = new Set([101, 103, 204, 205, 304]);

async function bodyOf(body: RequestInit['body'], headers: Headers): Promise<string | Buffer | undefined> {
  if (body === undefined || body === null) return undefined;
  if (typeof body === 'string') return body;
  if (body instanceof ArrayBuffer) return Buffer.from(body);
  if (ArrayBuffer.isView(body)) return Buffer.from(body.buffer, body.byteOffset, body.byteLength);
  // FormData, Blob, URLSearchParams, streams: let Response serialise them, content type (multipart boundary) included
  const serialised = new Response(body);
  const type = serialised.headers.get('content-type');
  if (type && !headers.has('content-type')) headers.set('content-type', type);
  return Buffer.from(await serialised.arrayBuffer());
}

function toResponse(res: GuardedResponse): Response {
  const headers = new Headers();
  for (const [name, value] of Object.entries(res.headers)) {
    for (const v of Array.isArray(value) ? value : [value]) headers.append(name, v);
  }
  const response = new Response(NULL_BODY.has(res.status) ? null : new Uint8Array(res.body), { status: res.status, headers });
  Object.defineProperty(response, 'url', { value: res.url });
  return response;
}

/**
 * fetch over guardedFetch: every request an SDK makes is SSRF-checked, pinned and size/time-limited.
 * The caller's `init.signal` and the options' signal both cancel it.
 */
export function guardedFetchAdapter(options: AdapterOptions = {}): FetchLike {
  const { onError, ...base } = options;
  return async (input, init = {}) => {
    const request = input instanceof Request ? input : undefined;
    const url = request ? request.url : String(input);
    const headers = new Headers(request?.headers);
    new Headers(init.headers).forEach((v, k) => headers.set(k, v));
    // the transport does not decompress
    headers.set('accept-encoding', 'identity');
    const rawBody = init.body !== undefined ? init.body : request && request.body ? await request.arrayBuffer() : undefined;
    const body = await bodyOf(rawBody, headers);
    const signals = [base.signal, init.signal ?? request?.signal].filter((s): s is AbortSignal => s instanceof AbortSignal);
    const both = signals.length > 1 ? linkedSignal(signals) : null;
    const signal = both?.signal ?? signals[0];
    const flat: Record<string, string> = {};
    headers.forEach((v, k) => (flat[k] = v));
    try {
      const res = await guardedFetch(url, {
        ...base,
        method: init.method ?? request?.method ?? 'GET',
        headers: flat,
        ...(body !== undefined ? { body } : {}),
        ...(signal ? { signal } : {}),
      });
      return toResponse(res);
    } catch (err) {
      onError?.(err);
      throw err;
    } finally {
      both?.dispose();
    }
  };
}
