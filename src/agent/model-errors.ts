import OpenAI from 'openai';
import { redactText } from '../util/redact.ts';

/** What went wrong with the model endpoint. */
export type ModelFailureKind = 'unreachable' | 'timeout' | 'http' | 'bad_response';

/**
 * A model endpoint failure with a message for people: which endpoint (host and path, never its
 * userinfo or query), which model, what happened, how many attempts. `transient`: another
 * attempt later may pass (the daemon retries the run); a refusal such as an unknown model will not.
 */
export class ModelEndpointError extends Error {
  override readonly name = 'ModelEndpointError';
  constructor(message: string, readonly kind: ModelFailureKind, readonly transient: boolean, readonly status?: number) {
    // every message passes the redaction every log line gets (I11): an endpoint may echo what it was sent
    super(redactText(message));
  }
}

export interface EndpointInfo {
  readonly endpoint: string;
  readonly model: string;
  readonly timeoutMs: number;
}

/** `host[:port]/path` of a base URL: what names the endpoint, without credentials or query. */
export function endpointName(baseURL: string): string {
  try {
    const u = new URL(baseURL);
    return `${u.host}${u.pathname.replace(/\/+$/, '')}`;
  } catch {
    return 'model.base_url (not a valid URL)';
  }
}

const at = (w: EndpointInfo) => `the model endpoint at ${w.endpoint} (model ${JSON.stringify(w.model)})`;
const tries = (n: number) => (n === 1 ? '1 attempt' : `${n} attempts`);

/** A short, single-line quote of what an endpoint sent. */
export function quote(text: string, max = 200): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return JSON.stringify(flat.length > max ? `${flat.slice(0, max)}…` : flat);
}

/** The system error code behind a connection failure (ECONNREFUSED, ENOTFOUND…), and its message. */
function rootCause(err: unknown): { code?: string; message: string } {
  let e: unknown = err;
  let found: { code?: string; message: string } = { message: err instanceof Error ? err.message : String(err) };
  for (let depth = 0; e instanceof Error && depth < 5; depth++, e = e.cause) {
    const code = (e as { code?: unknown }).code;
    if (depth > 0) found = { message: e.message, ...(typeof code === 'string' ? { code } : {}) };
    if (typeof code === 'string') return found;
  }
  return found;
}

/** 408 and 429 ask to try again later, 5xx is the server's trouble; any other 4xx answers the same each time. */
export const transientStatus = (status: number) => status === 408 || status === 429 || status >= 500;

/** What a failed attempt means: the error to report, and whether another attempt may pass. */
export function modelFailure(err: unknown, w: EndpointInfo, attempts: number): { error: ModelEndpointError; retry: boolean } {
  if (err instanceof OpenAI.APIConnectionTimeoutError) {
    const s = w.timeoutMs / 1000;
    return {
      retry: false,
      error: new ModelEndpointError(`${at(w)} did not answer within model.timeout_seconds (${s} s, the limit for one model response, retries included; ${tries(attempts)} made)`, 'timeout', true),
    };
  }
  if (err instanceof OpenAI.APIConnectionError) {
    const cause = rootCause(err);
    const what = cause.code ? `${cause.code} (${cause.message})` : cause.message;
    return { retry: true, error: new ModelEndpointError(`could not reach ${at(w)}: ${what}; ${tries(attempts)} made`, 'unreachable', true) };
  }
  if (err instanceof OpenAI.APIError && typeof err.status === 'number') {
    const status = err.status;
    const body = (err.error as { message?: unknown } | undefined)?.message;
    const said = quote(typeof body === 'string' ? body : err.message.replace(/^\d{3}\s*/, ''));
    if (transientStatus(status)) {
      return { retry: true, error: new ModelEndpointError(`${at(w)} failed with HTTP ${status}: ${said}; ${tries(attempts)} made`, 'http', true, status) };
    }
    const check = status === 401 || status === 403 ? 'model.api_key' : status === 404 ? 'the model name (model.name, or the job\'s payload.model) and model.base_url' : 'the request settings (model.*)';
    return {
      retry: false,
      error: new ModelEndpointError(`${at(w)} refused the request with HTTP ${status}: ${said}; not retried, as the same request gets the same answer: check ${check}`, 'http', false, status),
    };
  }
  if (err instanceof SyntaxError) {
    return { retry: false, error: new ModelEndpointError(`${at(w)} answered with a body that is not valid JSON (${err.message}); is model.base_url the API's base URL?`, 'bad_response', false) };
  }
  const message = err instanceof Error ? err.message : String(err);
  return { retry: true, error: new ModelEndpointError(`${at(w)} failed: ${message}; ${tries(attempts)} made`, 'unreachable', true) };
}

/** The wait before the next attempt: what a 429/503 asks for (Retry-After), else 0.5 s doubled, at most 8 s, with some jitter. */
export function retryWaitMs(err: unknown, attempt: number): number {
  const headers = err instanceof OpenAI.APIError ? err.headers : undefined;
  const asked = headers?.get('retry-after-ms');
  const ms = asked ? Number(asked) : NaN;
  if (Number.isFinite(ms) && ms >= 0) return ms;
  const after = headers?.get('retry-after');
  if (after) {
    const seconds = Number(after);
    const when = Number.isFinite(seconds) ? seconds * 1000 : Date.parse(after) - Date.now();
    if (Number.isFinite(when) && when >= 0) return when;
  }
  return Math.min(500 * 2 ** (attempt - 1), 8_000) * (1 + Math.random() * 0.25);
}

/** Waits `ms`, or less when `signal` aborts; leaves no listener behind. */
export function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
  });
}

/** Why a 200 answer is not a chat completion, or null when it is one. */
export function shapeProblem(data: unknown): string | null {
  if (data === null || data === undefined) return 'answered with an empty body';
  if (typeof data !== 'object') return `answered without choices: the body is not JSON but ${quote(String(data))}; is model.base_url the API's base URL (often ending in /v1)?`;
  const body = data as { choices?: unknown; error?: { message?: unknown } };
  if (body.error !== undefined) return `answered with an error: ${quote(typeof body.error.message === 'string' ? body.error.message : JSON.stringify(body.error))}`;
  if (!Array.isArray(body.choices)) return `answered without choices: ${quote(JSON.stringify(data))}`;
  if (body.choices.length === 0) return 'answered without choices (an empty list): no message and no tool calls';
  const message = (body.choices[0] as { message?: unknown } | null)?.message;
  if (message === null || typeof message !== 'object') return `answered with a choice without a message: ${quote(JSON.stringify(body.choices[0]))}`;
  return null;
}
