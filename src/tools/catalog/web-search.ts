import type { Config } from '../../config/schema.ts';
import { guardedFetch, redactUrl } from '../net/index.ts';
import { defineTool } from '../define.ts';
import { guardInit, netFailure, scrub, secretsOf, statusFailure, unready, type NetDeps } from '../net-deps.ts';
import { fail, ok } from '../types.ts';

export const WEB_SEARCH_DEFAULT_LIMIT = 10;
const MAX_RESPONSE_BYTES = 1024 * 1024;
const TIMEOUT_MS = 15_000;

export interface SearchResult {
  readonly title: string;
  readonly url: string;
  readonly snippet: string;
}

/**
 * The search service contract: `GET <services.web_search.url>?q=<query>&limit=<n>` (with
 * `Authorization: Bearer <api_key>` when a key is set) answers JSON
 * `{ "results": [{ "title", "url", "snippet" | "content" | "description" }] }` (SearXNG-style).
 * Items without a string url are dropped; extra fields are ignored.
 */
export function parseResults(body: unknown): SearchResult[] | null {
  const results = (body as { results?: unknown } | null)?.results;
  if (!Array.isArray(results)) return null;
  return results.flatMap((r: unknown) => {
    if (r === null || typeof r !== 'object') return [];
    const o = r as Record<string, unknown>;
    if (typeof o.url !== 'string' || o.url === '') return [];
    const snippet = [o.snippet, o.content, o.description].find((v): v is string => typeof v === 'string') ?? '';
    return [{ title: typeof o.title === 'string' ? o.title : o.url, url: o.url, snippet }];
  });
}

export function webSearchTool(config: Config, net: NetDeps = {}) {
  return defineTool('web_search', config, {
    timeoutSeconds: TIMEOUT_MS / 1000 + 5,
    async execute(params, _ctx, { signal }) {
      const missing = unready('web_search', config);
      if (missing) return missing;
      const service = config.services.web_search;
      const query = String(params.query);
      const limit = typeof params.limit === 'number' ? params.limit : WEB_SEARCH_DEFAULT_LIMIT;
      const url = new URL(service.url!);
      url.searchParams.set('q', query);
      url.searchParams.set('limit', String(limit));
      const secrets = secretsOf(config);
      let res;
      try {
        res = await guardedFetch(url.href, {
          ...guardInit(config, net), signal, maxBytes: MAX_RESPONSE_BYTES, timeoutMs: TIMEOUT_MS,
          headers: { accept: 'application/json', 'accept-encoding': 'identity', ...(service.api_key ? { authorization: `Bearer ${service.api_key}` } : {}) },
        });
      } catch (err) {
        return netFailure('web_search', err, secrets);
      }
      const where = `the search service ${redactUrl(service.url!)}`;
      if (res.status < 200 || res.status >= 300) return statusFailure('web_search', where, res.status);
      let body: unknown;
      try {
        body = JSON.parse(res.body.toString('utf8'));
      } catch {
        return fail('internal', `web_search: ${where} did not answer JSON`);
      }
      const results = parseResults(body);
      if (!results) return fail('internal', scrub(`web_search: ${where} answered JSON without a "results" array`, secrets));
      return ok({ query, results: results.slice(0, limit) });
    },
  });
}
