import OpenAI from 'openai';
import type { Config } from '../config/schema.ts';
import { configuredSecrets } from '../config/secrets.ts';
import { FetchLimitError, SsrfBlockedError, type GuardedFetchInit, type Lookup, type Transport } from './net/index.ts';
import { redactText } from '../util/redact.ts';
import { CATALOG_BY_NAME } from './catalog-table.ts';
import { guardedFetchAdapter } from './guarded-fetch-adapter.ts';
import { readiness } from './readiness.ts';
import { fail, type ToolResult } from './types.ts';

/** The network seams of every network tool: tests give a fake internet, production the system resolver and undici. */
export interface NetDeps {
  readonly lookup?: Lookup;
  readonly transport?: Transport;
}

/** The guardedFetch options every tool request shares: the configured network policy and the injected seams. */
export function guardInit(config: Config, net: NetDeps): Pick<GuardedFetchInit, 'networkPolicy' | 'allowlist' | 'lookup' | 'transport'> {
  return {
    networkPolicy: config.execution.network_policy,
    allowlist: config.execution.network_allowlist,
    ...(net.lookup ? { lookup: net.lookup } : {}),
    ...(net.transport ? { transport: net.transport } : {}),
  };
}

/** Every configured secret, so a message echoing one (a server quoting our Authorization header) can be scrubbed. */
export const secretsOf = configuredSecrets;

/** Text safe for a result or a log (I11): configured secrets cut out literally, then credential-looking text. */
export function scrub(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const s of secrets) out = out.split(s).join('[REDACTED]');
  return redactText(out);
}

/** The catalog readiness again at call time: an unready tool called anyway is `unavailable`, naming the key. */
export function unready(tool: string, config: Config): ToolResult | null {
  const entry = CATALOG_BY_NAME.get(tool);
  if (!entry) return fail('unavailable', `${tool}: not in the catalog`);
  const [ready, detail] = readiness(entry, config);
  return ready ? null : fail('unavailable', `${tool}: ${detail}`);
}

/** An HTTP error status as a result: a refused key is a configuration problem, 429/5xx may pass on a retry. */
export function statusFailure(tool: string, what: string, status: number, detail = ''): ToolResult {
  const kind = status === 401 || status === 403 ? 'unavailable' : status === 429 || status >= 500 ? 'internal' : 'business';
  const why = status === 401 || status === 403 ? ' (the configured credentials were refused)' : '';
  return fail(kind, `${tool}: ${what} answered HTTP ${status}${why}${detail ? `: ${detail}` : ''}`);
}

/**
 * The guard could not resolve the name (a resolver outage, NXDOMAIN): nothing was sent and no address
 * judged, so this is no refusal, and a retry may pass.
 */
export function unresolvedName(err: unknown): err is SsrfBlockedError {
  return err instanceof SsrfBlockedError && err.rule.startsWith('ssrf.dns.');
}

/** A failed guarded request as a result: refusals are `denied` with the guard's rule id; limits are timeout/internal. */
export function netFailure(tool: string, err: unknown, secrets: readonly string[] = []): ToolResult {
  if (unresolvedName(err)) return fail('internal', `${tool}: the host could not be resolved, so nothing was sent: ${scrub(err.message, secrets)}`);
  if (err instanceof SsrfBlockedError) return fail('denied', `${tool}: ${scrub(err.message, secrets)}`);
  if (err instanceof FetchLimitError) return fail(err.rule === 'fetch.timeout' ? 'timeout' : 'internal', `${tool}: ${scrub(err.message, secrets)}`);
  const e = err instanceof Error ? err : new Error(String(err));
  if (e.name === 'AbortError' || e.name === 'TimeoutError' || e.message === 'timeout') return fail('timeout', `${tool}: the request was cancelled (${scrub(e.message, secrets)})`);
  return fail('internal', `${tool}: the request failed: ${scrub(e.message, secrets)}`);
}

export type ServiceName = 'vision' | 'image' | 'speech';

/** Used when services.<name>.model is unset. */
export const DEFAULT_MODELS: Readonly<Record<ServiceName, string>> = { vision: 'gpt-4o-mini', image: 'gpt-image-1', speech: 'tts-1' };

/** Media responses (base64 images, audio) are larger than pages. */
export const SERVICE_MAX_BYTES = 32 * 1024 * 1024;

export interface ServiceCall {
  readonly tool: string;
  readonly service: ServiceName;
  readonly timeoutMs: number;
  readonly signal: AbortSignal;
}

/**
 * One request to an OpenAI-compatible service, every byte through guardedFetch. The client is built per call so
 * the guard's own error (rule id) is kept even when the SDK wraps or rewords it. No SDK retries: the executor retries.
 */
export async function callService<T>(
  config: Config, net: NetDeps, call: ServiceCall, run: (client: OpenAI, model: string) => Promise<T>,
): Promise<{ value: T } | { failure: ToolResult }> {
  const missing = unready(call.tool, config);
  if (missing) return { failure: missing };
  const endpoint = config.services[call.service];
  const secrets = secretsOf(config);
  let guardError: unknown;
  const client = new OpenAI({
    baseURL: endpoint.base_url!, apiKey: endpoint.api_key!, maxRetries: 0, timeout: call.timeoutMs,
    fetch: guardedFetchAdapter({ ...guardInit(config, net), timeoutMs: call.timeoutMs, maxBytes: SERVICE_MAX_BYTES, onError: (e) => (guardError = e) }),
  });
  try {
    return { value: await run(client, endpoint.model || DEFAULT_MODELS[call.service]) };
  } catch (err) {
    if (guardError instanceof SsrfBlockedError || guardError instanceof FetchLimitError) return { failure: netFailure(call.tool, guardError, secrets) };
    if (err instanceof OpenAI.APIUserAbortError || err instanceof OpenAI.APIConnectionTimeoutError) return { failure: fail('timeout', `${call.tool}: the ${call.service} service did not answer in time`) };
    if (err instanceof OpenAI.APIError && typeof err.status === 'number') {
      return { failure: statusFailure(call.tool, `the ${call.service} service`, err.status, scrub(err.message, secrets)) };
    }
    return { failure: netFailure(call.tool, guardError ?? err, secrets) };
  }
}
