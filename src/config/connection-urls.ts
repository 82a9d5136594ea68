/**
 * Whether database.url and queue.redis_url parse as the drivers parse them (pg-connection-string, ioredis), so
 * a malformed one is a config problem (exit 78, key named) and not an "Invalid URL" at start, retried for ever.
 * Messages never quote the user name, the password or the query (I11).
 */

const POSTGRES_SCHEME = /^postgres(ql)?:\/\//;
const REDIS_SCHEME = /^rediss?:\/\//;

function parsed(text: string, base?: string): URL | null {
  try {
    return new URL(text, base);
  } catch {
    return null;
  }
}

const decodes = (decode: (s: string) => string, s: string): boolean => {
  try {
    decode(s);
    return true;
  } catch {
    return false;
  }
};

/** A number, as the port or the database number must be. */
const DIGITS = /^\d+$/;

const SPLIT_BY_DELIMITER = 'a "/", "?" or "#" in the user name or password ends the host part early: write them as %2F, %3F and %23';

/** Why a value that starts with its scheme is no URL: its port, its host, or a password that cut the URL short. */
function whyNotUrl(text: string): string {
  const rest = text.slice(text.indexOf('://') + 3);
  const end = rest.search(/[/?#]/);
  const authority = end === -1 ? rest : rest.slice(0, end);
  // an `@` after the host part: the host part was cut at a delimiter inside the credentials, which are what follows
  if (end !== -1 && rest.slice(end).includes('@')) return SPLIT_BY_DELIMITER;
  const at = authority.lastIndexOf('@');
  const hostPort = authority.slice(at + 1);
  const [, host = '', port] = /^(\[[^\]]*\]|[^:]*)(?::(.*))?$/s.exec(hostPort) ?? [];
  if (hostPort.startsWith('[') && !/^\[[^\]]*\](:|$)/.test(hostPort)) return `the host ${JSON.stringify(hostPort)} is not a valid address and port`;
  if (port !== undefined && port !== '' && !DIGITS.test(port)) {
    // `redis://:secret` (no `@host`) reads as host "" and port "secret": with no `@`, the port is not shown
    return at === -1 ? 'the port is not a number (not shown: with no "@" in the URL it may be a password; write user:password@host:port)'
      : `the port ${JSON.stringify(port)} is not a number`;
  }
  if (port !== undefined && port !== '' && Number(port) > 65535) {
    // a numeric password with no `@` before it reads as a port too
    return at === -1 ? 'the port is out of range (not shown: with no "@" in the URL it may be a password; write user:password@host:port)'
      : `the port ${port} is out of range (at most 65535)`;
  }
  if (host === '' && at !== -1) return 'has a user name or password but no host';
  if (host !== '') return `the host ${JSON.stringify(host)} is not a valid host name or address`;
  return 'is not a valid URL';
}

const NOT_ENCODED = (what: string) => `the ${what} is not valid percent-encoding (not shown; write a "%" in it as %25)`;

/** The user name and password as the drivers decode them (decodeURIComponent, which throws on `%C3` alone). */
function credentialsProblem(url: URL): string | null {
  if (!decodes(decodeURIComponent, url.username)) return NOT_ENCODED('user name');
  if (!decodes(decodeURIComponent, url.password)) return NOT_ENCODED('password');
  return null;
}

/** What pg (pg-connection-string's parse) would refuse in a postgres:// URL, or null; a value of another scheme is the scheme check's. */
export function postgresUrlProblem(text: string): string | null {
  if (!POSTGRES_SCHEME.test(text)) return null;
  let str = text;
  // pg-connection-string's own steps: spaces and stray `%` encoded, then a second try with a stand-in host (`u@/db?host=/socket`)
  if (/ |%[^a-f0-9]|%[a-f0-9][^a-f0-9]/i.test(str)) {
    if (!decodes(encodeURI, str)) return 'holds a character that cannot be encoded (an unpaired surrogate)';
    str = encodeURI(str).replace(/%25(\d\d)/g, '%$1');
  }
  const whole = parsed(str, 'postgres://base');
  const url = whole ?? parsed(str.replace('@/', '@___DUMMY___/'), 'postgres://base');
  if (!url) return whyNotUrl(text);
  const credentials = credentialsProblem(url);
  if (credentials) return credentials;
  if (whole && !url.searchParams.has('host') && !decodes(decodeURIComponent, whole.hostname)) return `the host ${JSON.stringify(whole.hostname)} is not valid percent-encoding`;
  if (!decodes(decodeURI, url.pathname)) {
    // a path holding `@` may be the rest of a password cut at a `/`: not quoted
    return url.pathname.includes('@') ? SPLIT_BY_DELIMITER : `the database name ${JSON.stringify(url.pathname.slice(1))} is not valid percent-encoding`;
  }
  const port = url.searchParams.get('port');
  if (port !== null && !DIGITS.test(port)) return `the port ${JSON.stringify(port)} in its query (?port=) is not a number`;
  return null;
}

/** What ioredis (its parseURL, then parseInt of the port and the database number) would refuse in a redis:// URL, or null. */
export function redisUrlProblem(text: string): string | null {
  if (!REDIS_SCHEME.test(text)) return null;
  const url = parsed(text);
  if (!url) return whyNotUrl(text);
  const credentials = credentialsProblem(url);
  if (credentials) return credentials;
  if (url.pathname !== '' && url.pathname !== '/') {
    const db = url.pathname.slice(1);
    if (db.includes('@')) return SPLIT_BY_DELIMITER;
    // ioredis sends SELECT parseInt(db): `abc` is NaN, which Redis refuses at every connection
    if (!/^\d/.test(db)) return `the database number ${JSON.stringify(db)} after the host is not a number (redis://host:port/0)`;
  }
  return null;
}
