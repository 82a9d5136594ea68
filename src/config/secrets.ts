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

/** Every credential the configuration holds: service keys, notify headers, connection passwords. */
export function configuredSecrets(config: Config): string[] {
  const s = config.services;
  const values = [s.web_search.api_key, s.vision.api_key, s.image.api_key, s.speech.api_key, config.model.api_key,
    ...Object.values(config.notify.targets).flatMap((t) => Object.values(t.headers)),
    urlPassword(config.database.url), urlPassword(config.queue.redis_url)];
  return values.filter((v): v is string => typeof v === 'string' && v.length >= 4);
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
