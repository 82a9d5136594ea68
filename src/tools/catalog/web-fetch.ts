import { convert } from 'html-to-text';
import type { Config } from '../../config/schema.ts';
import { guardedFetch, redactUrl } from '../net/index.ts';
import { defineTool } from '../define.ts';
import { guardInit, netFailure, secretsOf, statusFailure, type NetDeps } from '../net-deps.ts';
import { fail, ok } from '../types.ts';

/** Media type and charset of a Content-Type header, lower-cased. */
export function parseContentType(header: string | string[] | undefined): { type: string; charset: string } {
  const raw = (Array.isArray(header) ? header[0] : header) ?? '';
  const [type = '', ...params] = raw.split(';').map((p) => p.trim());
  const charset = params.map((p) => /^charset\s*=\s*"?([^";]+)"?$/i.exec(p)?.[1]).find(Boolean) ?? 'utf-8';
  return { type: type.toLowerCase(), charset: charset.toLowerCase() };
}

type Kind = 'html' | 'text';

function kindOf(type: string): Kind | undefined {
  if (type === 'text/html' || type === 'application/xhtml+xml') return 'html';
  if (type.startsWith('text/') || type === 'application/json' || type.endsWith('+json')) return 'text';
  if (type === 'application/xml' || type.endsWith('+xml')) return 'text';
  return undefined;
}

function decode(body: Buffer, charset: string): string {
  try {
    return new TextDecoder(charset).decode(body);
  } catch {
    return new TextDecoder('utf-8').decode(body);
  }
}

/** Cuts text to at most `max` UTF-8 bytes without leaving half a character. */
function cutToBytes(text: string, max: number): { text: string; truncated: boolean } {
  const bytes = Buffer.from(text, 'utf8');
  if (bytes.length <= max) return { text, truncated: false };
  return { text: bytes.subarray(0, max).toString('utf8').replace(/\uFFFD+$/, ''), truncated: true };
}

const htmlToText = (html: string): string =>
  convert(html, { wordwrap: false, selectors: [{ selector: 'img', format: 'skip' }, { selector: 'script', format: 'skip' }, { selector: 'style', format: 'skip' }] });

/**
 * GET a page through the SSRF guard. tools.web_fetch.max_bytes bounds the download (a larger body is refused);
 * the `max_bytes` argument, capped by it, bounds the text returned (`truncated` says it was cut).
 */
export function webFetchTool(config: Config, net: NetDeps = {}) {
  const limits = config.tools.web_fetch;
  return defineTool('web_fetch', config, {
    timeoutSeconds: limits.timeout_seconds + 5,
    async execute(params, _ctx, { signal, approval }) {
      const url = String(params.url);
      let parsed: URL;
      try {
        parsed = new URL(url);
      } catch {
        return fail('validation', `url: ${redactUrl(url)} is not an absolute URL`);
      }
      if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') return fail('validation', `url: only http and https URLs can be fetched, not ${parsed.protocol}`);
      const maxText = Math.min(limits.max_bytes, typeof params.max_bytes === 'number' ? params.max_bytes : limits.max_bytes);
      let res;
      try {
        res = await guardedFetch(url, {
          ...guardInit(config, net), signal, maxBytes: limits.max_bytes, timeoutMs: limits.timeout_seconds * 1000,
          // the gate flagged a non-public target and a person approved the call anyway (SPEC §6)
          ...(approval?.approved_targets ? { approvedTargets: approval.approved_targets } : {}),
          headers: { accept: 'text/html,application/xhtml+xml,text/*;q=0.9,application/json;q=0.9,*/*;q=0.1', 'accept-encoding': 'identity' },
        });
      } catch (err) {
        return netFailure('web_fetch', err, secretsOf(config));
      }
      if (res.status >= 400) return statusFailure('web_fetch', redactUrl(url), res.status);
      const { type, charset } = parseContentType(res.headers['content-type']);
      const kind = kindOf(type);
      if (!kind) return fail('business', `web_fetch: ${redactUrl(url)} returned content type "${type || '(none)'}", which is not text, HTML or JSON`);
      const decoded = decode(res.body, charset);
      const { text, truncated } = cutToBytes(kind === 'html' ? htmlToText(decoded) : decoded, maxText);
      return ok({ url: redactUrl(url), final_url: redactUrl(res.url), status: res.status, content_type: type, text, truncated });
    },
  });
}
