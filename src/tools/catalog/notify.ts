import type { Config } from '../../config/schema.ts';
import { FETCH_LIMIT_RULES, FetchLimitError, guardedFetch, SsrfBlockedError, undiciTransport } from '../net/index.ts';
import { redactText } from '../../util/redact.ts';
import { defineTool } from '../define.ts';
import { guardInit, unresolvedName, type NetDeps } from '../net-deps.ts';
import { fail, ok, type ToolResult } from '../types.ts';

export type WebhookDeps = NetDeps;

/**
 * Posts a JSON body to a configured target through the guarded fetch; the
 * target's URL (webhook URLs carry tokens in their path) and headers stay out of
 * the result. Redirects are not followed: the configured headers must not reach another origin.
 */
export async function postToTarget(config: Config, tool: string, target: string, body: unknown, signal: AbortSignal, deps: WebhookDeps): Promise<ToolResult> {
  const t = config.notify.targets[target];
  if (!t) {
    const known = Object.keys(config.notify.targets);
    return fail('validation', `target: "${target}" is not a configured notify target${known.length ? ` (known: ${known.join(', ')})` : ' (notify.targets is empty)'}`);
  }
  const init = guardInit(config, deps);
  const transport = init.transport ?? undiciTransport();
  let sent = false;
  try {
    const res = await guardedFetch(t.url, {
      method: 'POST', headers: { 'content-type': 'application/json', ...t.headers }, body: JSON.stringify(body), signal,
      ...init, transport: (req) => { sent = true; return transport(req); }, maxBytes: 64 * 1024, maxRedirects: 0,
    });
    if (res.status >= 200 && res.status < 300) return ok({ target, status: res.status });
    return fail(res.status >= 500 ? 'internal' : 'business', `${tool}: target "${target}" answered HTTP ${res.status}`);
  } catch (err) {
    // cancelled (the run's deadline, the daemon's stop) once the request was on its way: as a timeout, it may have arrived
    if (signal.aborted && sent) return { ...fail('timeout', `${tool}: target "${target}": cancelled while the request was being sent; it may have been delivered`), effectful: true };
    if (unresolvedName(err)) return unresolved(tool, target, t.url, err);
    if (err instanceof SsrfBlockedError) return fail('denied', `${tool}: target "${target}" is refused by the network guard (${err.rule})`);
    if (err instanceof FetchLimitError) {
      const why = err.rule === 'fetch.too_many_redirects' ? 'answered with a redirect, which is not followed for notify targets' : `stopped: ${FETCH_LIMIT_RULES[err.rule]}`;
      // a timeout may come after the request was sent: not retried, so a slow target does not get it twice
      return err.rule === 'fetch.timeout'
        ? { ...fail('timeout', `${tool}: target "${target}" ${why} (${err.rule})`), effectful: true }
        : fail('business', `${tool}: target "${target}" ${why} (${err.rule})`);
    }
    return fail('internal', `${tool}: target "${target}" could not be reached: ${withoutUrl(redactText((err as Error).message), t.url)}`);
  }
}

/** A target whose name did not resolve (see unresolvedName): `internal`, so the executor retries it. */
function unresolved(tool: string, target: string, url: string, err: SsrfBlockedError): ToolResult {
  const code = /\(([A-Z_]+)\)\s*$/.exec(err.reason)?.[1];
  const why = err.rule === 'ssrf.dns.empty' ? 'resolved to no address' : `could not be resolved${code ? ` (${code})` : ''}`;
  return fail('internal', `${tool}: target "${target}": its host ${new URL(url).hostname} ${why}; DNS may be failing for now, or the name is wrong in notify.targets.${target}.url (${err.rule})`);
}

/** An error text with the target's URL (and its path, where tokens live) cut out. */
function withoutUrl(text: string, url: string): string {
  const u = new URL(url);
  return [url, u.href, u.pathname.length > 1 ? u.pathname : null].filter((x): x is string => x !== null)
    .reduce((out, part) => out.split(part).join('[target]'), text);
}

export function notifyTool(config: Config, deps: WebhookDeps = {}) {
  return defineTool('notify', config, {
    maxRetries: 2,
    execute: (params, _ctx, { signal }) => postToTarget(config, 'notify', String(params.target), { title: params.title ?? null, text: params.text }, signal, deps),
  });
}
