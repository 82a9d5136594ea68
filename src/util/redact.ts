import { setOwn } from './canonical-json.ts';
/** Keys whose values are credentials wherever they appear (I11). */
const SECRET_KEY = /(password|passwd|passphrase|secret|token|api[_-]?key|authori[sz]ation|credential|cookie|private[_-]?key|session[_-]?id|key[_-]?data$|^auth$|^pwd?$|[_-]pwd$)/i;
/**
 * The words of a key name: split at `_`, `-`, `.`, digits and the like, and where camelCase starts a word
 * (`smtpPass` → smtp, Pass).
 */
const NAME_WORDS = /[^A-Za-z]+|(?<=[a-z])(?=[A-Z])/;
/**
 * Words holding "pass" that are not credentials. Any other word that starts or ends with it (`pass`, `dbpass`,
 * `PGPASS`, `passcode`, `passkey`, `Passwort`) is taken for one: a name not listed here fails closed.
 */
const PASS_WORDS: ReadonlySet<string> = new Set([
  'bypass', 'compass', 'surpass', 'overpass', 'underpass', 'trespass', 'encompass',
  'passes', 'passed', 'passing', 'passage', 'passenger', 'passengers', 'passive', 'passport', 'passthrough', 'passthru',
]);
/** Whether a word of the key (`db_pass` → db, pass; `smtpPass` → smtp, Pass) names a pass credential. */
const namesPass = (key: string): boolean => key.split(NAME_WORDS).some((w) => {
  const word = w.toLowerCase();
  return (word.startsWith('pass') || word.endsWith('pass')) && !PASS_WORDS.has(word);
});
/** Counters such as max_tokens or usage.prompt_tokens are not credentials when they are numbers. */
const TOKEN_COUNT = /(^|[_-])tokens$|^tokens?[_-](count|used)$/i;
/**
 * Last words of a key that make its number a measure, not a credential: `hung_pass_seconds: 300`, `pass_count`,
 * `token_ttl`. A string under such a key is still masked; words a numeric secret goes by (pin, code, number) are not here.
 */
const MEASURE_WORDS: ReadonlySet<string> = new Set([
  'ms', 'msec', 'millis', 'milliseconds', 'sec', 'secs', 'second', 'seconds', 'min', 'mins', 'minute', 'minutes',
  'hour', 'hours', 'day', 'days', 'week', 'weeks', 'ttl', 'timeout', 'interval', 'age',
  'count', 'counts', 'max', 'limit', 'total', 'size', 'bytes', 'length', 'len', 'retries', 'attempts',
]);
/** A number under a key whose last word is a unit or a count. */
const isMeasure = (key: string, value: unknown): boolean =>
  typeof value === 'number' && MEASURE_WORDS.has(key.split(NAME_WORDS).filter(Boolean).at(-1)?.toLowerCase() ?? '');
const MASK = '[REDACTED]';

// `key-data`: kubeconfig's client-key-data, a base64 private key
const SECRET_WORD = '(?:api[_-]?key|apikey|token|secret|password|passwd|passphrase|access[_-]?key|client[_-]?secret|private[_-]?key|key[_-]data|authorization|credentials?)';
/**
 * A character of an unquoted value. Text is often redacted after JSON.stringify (a tool's output sent to
 * the model), where a line break is the two characters `\n`: the value ends there as at a real one, or
 * `api_key: x\n  name: y` would lose its line break and the next line's key. An escaped backslash (`\\`) is kept whole.
 */
const BARE_CHAR = String.raw`(?:[^\s&,;\\]|\\\\|\\(?![nr]))`;
/**
 * A quoted value never spans the other quote: `'token: "'; curl …; echo '"'` is shell code between two strings, not a value.
 * `\"x y\"` is a quoted value in JSON text that was stringified again (a tool result inside a message).
 */
const VALUE = String.raw`("[^"'\n]*"|'[^'"\n]*'|\\"[^"\n]*\\"|${BARE_CHAR}+)`;
/**
 * Between a key and its value: spaces on the same line, or a YAML value alone on the next, indented line
 * (`password:\n  hunter2`, its line break real or JSON-escaped). Never a line holding another key, a list or a
 * comment: `credentials:\n  github: x` is a mapping, and its `github:` is no value.
 */
const KEY_GAP = String.raw`[ \t]*(?:(?:\r?\n|(?:\\r)?\\n)[ \t]+(?![^\s:\\]*:|[-#]))?`;
/**
 * Characters a key may have around its secret word. Names are short; unbounded, a long run of name
 * characters (`a-a-a-…`, base64) would be rescanned from every position, in quadratic or cubic time.
 */
const NAME_MAX = 64;
/** `PGPASSWORD=x`, `AWS_SECRET_ACCESS_KEY: x`, `api_key=x`: the word may sit inside a longer name (a match may start after a `_`, `.` or `-` in it). */
const KEY_VALUE = new RegExp(String.raw`(?:\b|(?<=[_.-]))([A-Za-z0-9_.-]{0,${NAME_MAX}}${SECRET_WORD}(?:[_-][A-Za-z0-9_-]{0,${NAME_MAX}})?(?:\\?["'])?[ \t]*[=:]${KEY_GAP})${VALUE}`, 'gi');
/** `--password x`, `--api-key x`, `-token x`: an option naming a secret, then its value (on the same line). */
const OPTION_VALUE = new RegExp(String.raw`(^|\s)(--?[A-Za-z0-9-]{0,${NAME_MAX}}${SECRET_WORD}(?:-[A-Za-z0-9-]{0,${NAME_MAX}})?[ \t]+)${VALUE}`, 'gi');
/** A header's value: up to the end of its line (a real or a JSON-escaped line break) or of the quoted argument. */
const HEADER_VALUE = String.raw`(?:[^\r\n"'\\]|\\(?![nr"']))+`;
/** `sshpass -p pw`, `mysql -ppw` (the password attached to -p; a bare -p prompts for it). */
const PASSWORD_OPTION = /(^|\s)(sshpass\b[^\n;|&]{0,1024}?\s-p[ \t]*|(?:mysql|mysqldump|mysqladmin|mariadb|mariadb-dump)\b[^\n;|&]{0,1024}?\s-p)("[^"'\n]*"|'[^'"\n]*'|[^\s"';|&-][^\s"';|&]*)/g;
/** A whole header value, whatever its scheme (`Token x`, `Negotiate x`), up to the end of its line or quote. */
const AUTHORIZATION_HEADER = new RegExp(String.raw`\b((?:proxy-)?authorization[ \t]*:[ \t]*)${HEADER_VALUE}`, 'gi');
const COOKIE_HEADER = new RegExp(String.raw`\b((?:set-)?cookie[ \t]*:[ \t]*)${HEADER_VALUE}`, 'gi');
/**
 * `Bearer x`, `Basic x` on one line. A plain word (a full stop after it too) is not a credential: "a basic
 * understanding" stays; a token has digits, mixed case or punctuation inside it.
 */
const SCHEME_TOKEN = /\b(bearer|basic)[ \t]+(?![A-Za-z][a-z]+\.*(?![A-Za-z0-9._~+/=-]))[A-Za-z0-9._~+/=-]{8,}/gi;
/** `scheme://user:pass@host`: a scheme is short, userinfo at most 8 KiB (a longer one is cut only if known). */
const USERINFO = /([a-z][a-z0-9+.-]{0,31}:\/\/)[^\s/?#]{0,8192}@/gi;
/** `curl -u user:pass`, `--user user:pass`: the password after the colon. */
const USER_PASSWORD = /(^|\s)(-u\s*|--user[=\s]+|--proxy-user[=\s]+)("?[^\s:"]+):("[^"]*"|[^\s"]+)/g;

/**
 * A private key block (PEM, OpenSSH, PGP): its body, up to its END line, or to the end of the text when output
 * was cut short inside it. The BEGIN and END lines stay, to show what was there.
 */
const PRIVATE_KEY_BLOCK = /(-----BEGIN [A-Z0-9 ]{0,40}PRIVATE KEY(?: BLOCK)?-----)(?:(?!-----END )[\s\S])*(-----END [A-Z0-9 ]{0,40}PRIVATE KEY(?: BLOCK)?-----|$)/g;
/** A JSON Web Token: header and payload are base64url JSON (`eyJ`), the signature may be empty. */
const JWT = /\beyJ[A-Za-z0-9_-]{4,}\.eyJ[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]*/g;
/** Query parameters that carry a credential under a name too common to mask everywhere (`key`, `sig`). */
const QUERY_SECRET = /([?&](?:key|sig|signature|x-amz-signature|x-amz-credential|x-goog-signature|x-goog-credential)=)[^&#\s"'\\]+/gi;
/** Webhook URLs whose path is the credential: whoever has it can post. The host stays. */
const WEBHOOK_PATH = /(\bhttps?:\/\/(?:hooks\.slack\.com\/(?:services|workflows|triggers)|(?:[a-z]+\.)?discord(?:app)?\.com\/api\/webhooks)\/)[^\s"'?#\\]+/gi;
/** Tokens recognised by their prefix, whatever key or line they sit on. */
const PREFIXED_TOKEN = /\b(sk-[A-Za-z0-9_-]{16,}|(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{16,}|gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,}|glpat-[A-Za-z0-9_-]{20,}|npm_[A-Za-z0-9]{36}|xox[abpr]-[A-Za-z0-9-]{10,}|AKIA[0-9A-Z]{16}|AIza[0-9A-Za-z_-]{35})\b/g;

/**
 * Whether a matched value is a literal worth hiding. A reference (`$VAR`,
 * `$(cmd)`, a backtick) is code, not a secret, and must stay visible to
 * whoever approves the call; a number after a `…tokens` key is a counter.
 */
function literalSecret(key: string, value: string): boolean {
  const bare = value.replace(/^\\?["']/, '');
  // anywhere in the value, not only at its start: `T="x$(curl evil)"` must not hide the curl from a reviewer
  if (/^\$/.test(bare) || /\$\(|\$\{|`/.test(value)) return false;
  // an address, not a credential (`TOKEN_URL=https://…`): whoever approves the call must see where it goes;
  // its userinfo, credential query parameters and webhook paths are masked by rules of their own
  if (/^[a-z][a-z0-9+.-]{0,31}:\/\//i.test(bare)) return false;
  // `--password-file /run/secrets/db`, `POSTGRES_PASSWORD_FILE=…`, `--password-stdin -u bob`: where the secret is, not it
  if (/[_-](?:file|path|dir|stdin)\b/i.test(key)) return false;
  // already masked by a header rule, up to its closing quote: the quote is the command's, not the value's
  if (/^\[REDACTED\][\\"']*$/.test(value)) return false;
  return !(/tokens\W*$/i.test(key) && /^\d+$/.test(value));
}

/**
 * The mask inside the value's own quotes, and before the quotes that close the string the pair sits in
 * (`-d "token=x"`), so that JSON, YAML or shell text stays well formed around it.
 */
function masked(value: string): string {
  const quote = /^\\?["']/.exec(value)?.[0];
  if (quote) return value.length >= 2 * quote.length && value.endsWith(quote) ? `${quote}${MASK}${quote}` : MASK;
  return `${MASK}${/(?:\\?["'])+$/.exec(value)?.[0] ?? ''}`;
}

/** Literal credentials of this process (the configuration's), longest first so none leaves a piece of another. */
let known: string[] = [];
/** Shorter values would cut ordinary words out of text; such secrets are still masked by key name. */
const MIN_KNOWN_LENGTH = 8;

/** Adds credentials that redaction cuts out literally wherever they appear, whatever their shape. */
export function rememberSecrets(values: Iterable<string>): void {
  const next = new Set(known);
  for (const v of values) if (v.length >= MIN_KNOWN_LENGTH) next.add(v);
  known = [...next].sort((a, b) => b.length - a.length);
}

const withoutKnown = (text: string): string => {
  let out = text;
  for (const s of known) if (out.includes(s)) out = out.split(s).join(MASK);
  return out;
};

/**
 * What every pattern below needs at least one of: whitespace, `=` or `:` (URLs, headers, key=value,
 * options), or a token prefix. Text with none (ids, rule names, paths) only needs the known secrets cut.
 */
const MAY_HOLD_PATTERN = /[\s=:]|sk-|_live_|_test_|gh[pousr]_|github_pat_|glpat-|npm_|xox[abpr]-|AKIA|AIza|eyJ/;

/** Where redaction hid text: a header's value, a cookie line's, or any other credential value (key, option, URL userinfo). */
export type MaskKind = 'header' | 'cookie' | 'value';
/** Told of each text a pattern or a key name hides: its kind, what it followed (`Authorization:`, `api_key`), and the text. */
export type OnMask = (kind: MaskKind, where: string, hidden: string) => void;

/** `scheme://user:pass@host` → `scheme://[REDACTED]@host`; `Bearer xyz`, cookies and `key=value` secrets too. */
export function redactText(text: string, onMask?: OnMask): string {
  const cut = withoutKnown(text);
  if (!MAY_HOLD_PATTERN.test(cut)) return cut;
  // a literal value after a credential key or option becomes `replacement`, and is reported; a reference stays as written
  const hidden = (all: string, key: string, value: string, replacement: string): string => {
    if (!literalSecret(key, value)) return all;
    onMask?.('value', key, value);
    return replacement;
  };
  // a header's whole value after its name
  const header = (kind: MaskKind) => (all: string, lead: string): string => {
    onMask?.(kind, lead, all.slice(lead.length));
    return `${lead}${MASK}`;
  };
  return cut
    .replace(PRIVATE_KEY_BLOCK, (all, begin: string, end: string) => {
      onMask?.('value', begin, all.slice(begin.length, all.length - end.length));
      return `${begin}${MASK}${end}`;
    })
    // the userinfo ends at the last `@` before the path, as URL parsers read it: a password may hold an `@`.
    // Both parts are bounded, so a long run of letters (base64) is scanned in linear time, not retried from each one
    .replace(USERINFO, (all, scheme: string) => {
      onMask?.('value', `${scheme}…@`, all.slice(scheme.length, -1));
      return `${scheme}${MASK}@`;
    })
    .replace(SCHEME_TOKEN, `$1 ${MASK}`)
    // up to the end of the line or of the quoted argument: code after a closing quote stays visible
    .replace(AUTHORIZATION_HEADER, header('header'))
    .replace(COOKIE_HEADER, header('cookie'))
    .replace(KEY_VALUE, (all, key: string, value: string) => hidden(all, key, value, `${key}${masked(value)}`))
    .replace(OPTION_VALUE, (all, lead: string, key: string, value: string) => hidden(all, key, value, `${lead}${key}${masked(value)}`))
    .replace(USER_PASSWORD, (all, lead: string, flag: string, user: string, value: string) => hidden(all, flag, value, `${lead}${flag}${user}:${MASK}`))
    .replace(PASSWORD_OPTION, (all, lead: string, flag: string, value: string) => hidden(all, flag, value, `${lead}${flag}${MASK}`))
    .replace(QUERY_SECRET, `$1${MASK}`)
    .replace(WEBHOOK_PATH, `$1${MASK}`)
    .replace(JWT, MASK)
    .replace(PREFIXED_TOKEN, MASK);
}

/** Deeper than this, a value is cut: redaction must not overflow the stack on what a model or a peer sent. */
const MAX_DEPTH = 100;

/** A deep copy with credential-named keys masked and credential-looking text redacted. */
export function redact<T>(value: T, seen = new WeakSet<object>(), onMask?: OnMask, depth = 0): T {
  if (typeof value === 'string') return redactText(value, onMask) as T;
  if (value === null || typeof value !== 'object') return value;
  if (seen.has(value)) return '[Circular]' as T;
  if (depth >= MAX_DEPTH) return '[nested too deep]' as T;
  if (value instanceof Date) return value;
  // an Error's message and stack are not enumerable: copied like other objects it would come out as {}
  if (value instanceof Error) return redactedError(value, seen) as T;
  // `seen` holds the ancestors only: a value shared by two fields is not a cycle
  seen.add(value);
  try {
    if (Array.isArray(value)) return value.map((v) => redact(v, seen, onMask, depth + 1)) as T;
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) {
      if (!holdsSecret(k, v)) setOwn(out, k, redact(v, seen, onMask, depth + 1));
      else {
        if (onMask) eachString(v, (text) => onMask(/cookie/i.test(k) ? 'cookie' : /authori[sz]ation/i.test(k) ? 'header' : 'value', k, text));
        setOwn(out, k, MASK);
      }
    }
    return out as T;
  } finally {
    seen.delete(value);
  }
}

/** Every string inside a value (a masked key may hold an object). */
function eachString(value: unknown, visit: (text: string) => void, depth = 0): void {
  if (typeof value === 'string') visit(value);
  else if (value !== null && typeof value === 'object' && depth < 32) for (const v of Object.values(value)) eachString(v, visit, depth + 1);
}

/** Literal values shorter than this would cut ordinary text (transcripts use the same floor). */
const MIN_LITERAL_LENGTH = 4;

/**
 * redact() with `literals` (a context's credentials: any shape, known only to this run) cut out of every
 * string first, longest first so none leaves a piece of another.
 */
export function redactWith<T>(value: T, literals: readonly string[], onMask?: OnMask): T {
  const cut = literals.filter((s) => s.length >= MIN_LITERAL_LENGTH).sort((a, b) => b.length - a.length);
  const each = (v: unknown): unknown => {
    if (typeof v === 'string') return cut.reduce((out, s) => out.split(s).join(MASK), v);
    if (Array.isArray(v)) return v.map(each);
    if (v !== null && typeof v === 'object' && !(v instanceof Date) && !(v instanceof Error)) {
      const out: Record<string, unknown> = {};
      for (const [k, x] of Object.entries(v)) setOwn(out, k, each(x));
      return out;
    }
    return v;
  };
  return redact(cut.length > 0 ? each(value) as T : value, new WeakSet(), onMask);
}

/** A key whose value is a credential (I11): redacted in logs, audit records and output. */
export function isSecretKey(key: string): boolean {
  return SECRET_KEY.test(key) || namesPass(key);
}

/** Whether a key's value is a credential (I11), judged with the value: a number of seconds or a count is not. */
export function holdsSecret(key: string, value: unknown): boolean {
  if (value === null || value === undefined || value === '') return false;
  if (typeof value === 'number' && TOKEN_COUNT.test(key)) return false;
  if (isMeasure(key, value)) return false;
  return isSecretKey(key);
}

/**
 * Fields of an error that say what went wrong without quoting data: a driver's error can carry the
 * command it sent (ioredis: AUTH and its password) or the row it refused (pg's `detail`), so nothing else is kept.
 */
const ERROR_FIELDS = ['code', 'errno', 'syscall', 'severity', 'constraint', 'table', 'column', 'schema', 'routine', 'address', 'port', 'status', 'statusCode'];

/** What an error says, as data: its name, message, code and stack, a few descriptive fields and its cause, redacted. */
function redactedError(err: Error, seen: WeakSet<object>): Record<string, unknown> {
  seen.add(err);
  try {
    // drizzle quotes a failed statement's parameters in its message: the statement is enough
    const message = 'params' in err ? err.message.replace(/\nparams:[\s\S]*$/, '') : err.message;
    const out: Record<string, unknown> = { type: err.name, message: redactText(message) };
    for (const k of ERROR_FIELDS) {
      const v = (err as unknown as Record<string, unknown>)[k];
      if (typeof v === 'string' || typeof v === 'number') out[k] = typeof v === 'string' ? redactText(v) : v;
    }
    if (err.cause !== undefined) out.cause = redact(err.cause, seen);
    // the stack's first lines repeat the message as thrown: only the frames are taken from it
    if (err.stack) {
      const frames = err.stack.indexOf('\n    at ');
      out.stack = redactText(`${err.name}: ${message}${frames >= 0 ? err.stack.slice(frames) : ''}`);
    }
    return out;
  } finally {
    seen.delete(err);
  }
}
