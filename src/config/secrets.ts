import { rememberSecrets } from '../util/redact.ts';
import type { Config } from './schema.ts';

/** The password of a connection URL, if it has one. */
function urlPassword(url: string | undefined): string | undefined {
  if (!url) return undefined;
  try {
    return decodeURIComponent(new URL(url).password) || undefined;
  } catch {
    return undefined;
  }
}

/**
 * A piece of a URL that reads as a token rather than a word: letters and digits together (`TOKEN123456`,
 * Slack's `B0123ABCD`), or long (`XyzAbcDefGhiJklMnoPqrStu`). `hook`, `services`, `IncomingWebhook` or an
 * all-digit id are not: cut out of every text, they would take ordinary words with them.
 */
const tokenLike = (piece: string): boolean =>
  piece.length >= 8 && ((/[A-Za-z]/.test(piece) && /\d/.test(piece)) || piece.length >= 20);

const decoded = (s: string): string => {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
};

/**
 * What of a notify target's URL is a credential: webhook URLs carry their token in the path or the
 * query (Slack, Discord, Teams), so the URL as written and as normalised, its userinfo password, the
 * part after the host when it holds a token, and each such token alone (a text may quote the URL in
 * another form: another host spelling, the path alone). `names` (the targets' names) are never cut.
 */
function notifyUrlSecrets(url: string, names: ReadonlySet<string>): string[] {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return [url];
  }
  const pieces = [...u.pathname.split('/'), ...[...u.searchParams.values()]]
    .flatMap((p) => [p, decoded(p)])
    .filter((p) => tokenLike(p) && !names.has(p));
  const afterHost = `${u.pathname}${u.search}`;
  return [url, u.href, urlPassword(url), ...(pieces.length > 0 ? [afterHost, decoded(afterHost)] : []), ...pieces]
    .filter((v): v is string => v !== undefined);
}

/** Every credential the configuration holds: service keys, notify URLs and headers, connection passwords. */
export function configuredSecrets(config: Config): string[] {
  const s = config.services;
  const names = new Set(Object.keys(config.notify.targets));
  const values = [s.web_search.api_key, s.vision.api_key, s.image.api_key, s.speech.api_key, config.model.api_key,
    ...Object.values(config.notify.targets).flatMap((t) => [...notifyUrlSecrets(t.url, names), ...Object.values(t.headers)]),
    urlPassword(config.database.url), urlPassword(config.queue.redis_url)];
  return [...new Set(values.filter((v): v is string => typeof v === 'string' && v.length >= 4))];
}

/**
 * Makes the configuration's credentials known to redaction, so that a key echoed back in any text
 * (a proxy's "incorrect API key abcd…", a file holding the bare key) is cut out of logs, audit
 * records, transcripts and tool messages alike (I11), whatever its shape.
 */
export function knownToRedaction(config: Config): Config {
  rememberSecrets(configuredSecrets(config));
  return config;
}
