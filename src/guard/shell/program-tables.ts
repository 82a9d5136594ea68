import type { OptionSpec } from './flags.ts';

/**
 * Copy and move tools: the options whose value is not a file to copy. Only options that
 * require a value: `--backup[=CONTROL]` or `--preserve[=ATTRS]` never take the next argument.
 */
export const TRANSFER_OPTIONS = {
  cp: { short: 'tS', long: ['target-directory', 'suffix', 'sparse'] },
  mv: { short: 'tS', long: ['target-directory', 'suffix'] },
  install: { short: 'tmogS', long: ['target-directory', 'mode', 'owner', 'group', 'suffix'] },
  ln: { short: 'tS', long: ['target-directory', 'suffix'] },
  rsync: { short: 'eBTfM', long: ['rsh', 'exclude', 'include', 'filter', 'rsync-path', 'temp-dir', 'partial-dir', 'password-file', 'chmod', 'chown', 'files-from', 'exclude-from', 'include-from'] },
  scp: { short: 'cFiJloPS', long: [] },
} as const satisfies Readonly<Record<string, OptionSpec>>;

/** GNU tar: options taking a value (old-style `tar czf FILE` included); optional-value ones are flags. */
export const TAR_OPTIONS = {
  bundled: true,
  short: 'bCfFgHIKLNTVX',
  long: [
    'file', 'directory', 'files-from', 'exclude', 'exclude-from', 'to-command', 'checkpoint-action', 'use-compress-program', 'rsh-command', 'info-script',
    'new-volume-script', 'blocking-factor', 'format', 'label', 'listed-incremental', 'newer', 'newer-mtime', 'after-date', 'owner', 'group', 'mode', 'mtime',
    'transform', 'xform', 'suffix', 'tape-length', 'starting-file', 'record-size', 'volno-file', 'index-file', 'strip-components', 'exclude-tag',
    'exclude-tag-under', 'exclude-tag-all', 'pax-option', 'quoting-style', 'quote-chars', 'no-quote-chars', 'sparse-version', 'hole-detection', 'owner-map',
    'group-map', 'warning', 'xattrs-include', 'xattrs-exclude', 'sort', 'level', 'exclude-ignore', 'exclude-ignore-recursive', 'add-file',
  ],
  flags: [
    'checkpoint', 'totals', 'backup', 'occurrence', 'atime-preserve', 'create', 'extract', 'get', 'list', 'append', 'update', 'diff', 'compare', 'delete',
    'concatenate', 'catenate', 'gzip', 'bzip2', 'xz', 'zstd', 'lzma', 'lzip', 'lzop', 'compress', 'auto-compress', 'verbose', 'remove-files', 'dereference',
    'one-file-system', 'no-recursion', 'recursion', 'to-stdout', 'absolute-names', 'preserve-permissions', 'numeric-owner', 'sparse', 'verify', 'null',
    'ignore-failed-read', 'interactive', 'confirmation', 'acls', 'xattrs', 'selinux', 'multi-volume', 'incremental', 'exclude-vcs', 'exclude-caches',
  ],
} as const satisfies OptionSpec;

/** zip: options taking a value (`-x`/`-i` take a list; the rest of it reads as operands, which are only patterns). */
export const ZIP_OPTIONS = {
  short: 'bnPZsOtxi',
  long: ['unzip-command', 'temp-path', 'suffixes', 'from-date', 'before-date', 'password', 'compression-method', 'split-size', 'output-file', 'exclude', 'include', 'logfile-path'],
  alias: { 'recurse-paths': 'r', 'recurse-patterns': 'R', 'names-stdin': '@' },
} as const satisfies OptionSpec;

/** sort: options taking a value. */
export const SORT_OPTIONS = {
  short: 'ktoST',
  long: ['key', 'field-separator', 'output', 'buffer-size', 'temporary-directory', 'files0-from', 'batch-size', 'parallel', 'compress-program', 'random-source', 'sort'],
} as const satisfies OptionSpec;

/** Programs that read the names of the files they read from a list rather than their operands. */
export interface NameListSpec {
  readonly spec: OptionSpec;
  /** Options whose value is a file of names, `-` for stdin (`tar -T FILE`, `rsync --files-from=FILE`). */
  readonly files?: readonly string[];
  /** Options with which it reads the names on stdin (`zip -@`, `cpio -o`). */
  readonly stdin?: readonly string[];
  /** An `@FILE` operand is a file of names (`7z a X.7z @list`). */
  readonly atFile?: boolean;
}

const TAR_LIST: NameListSpec = { spec: TAR_OPTIONS, files: ['T', 'files-from'] };
const SEVEN_ZIP_LIST: NameListSpec = { spec: {}, atFile: true };

/** `find ~ > l; tar czf x.tgz -T l`, `find ~ | cpio -o`, `find ~ | zip -@ x.zip`: what reads such a list reads what it lists (listing-files.ts). */
export const NAME_LISTS: Readonly<Record<string, NameListSpec>> = {
  tar: TAR_LIST, gtar: TAR_LIST, bsdtar: TAR_LIST,
  // copy-out and copy-pass modes read the names on stdin
  cpio: { spec: { short: 'FOIHCMER', long: ['file', 'format', 'io-size', 'message', 'pattern-file', 'owner', 'rsh-command', 'block-size'], alias: { create: 'o', 'pass-through': 'p' } }, stdin: ['o', 'p'] },
  // write mode reads the names on stdin when it is given none
  pax: { spec: { short: 'bfopsxBGTU' }, stdin: ['w'] },
  zip: { spec: ZIP_OPTIONS, stdin: ['@'] },
  rsync: { spec: TRANSFER_OPTIONS.rsync, files: ['files-from'] },
  sort: { spec: SORT_OPTIONS, files: ['files0-from'] },
  '7z': SEVEN_ZIP_LIST, '7za': SEVEN_ZIP_LIST, '7zz': SEVEN_ZIP_LIST, '7zr': SEVEN_ZIP_LIST,
  // wc reads the contents; du (NON_READERS) only sizes, so its --files0-from is left out
  wc: { spec: { long: ['files0-from', 'total'] }, files: ['files0-from'] },
};

/**
 * Archivers and copiers that delete what they read with one of these options (`tar --remove-files`, `zip -m`, `rsync
 * --remove-source-files`): a recursive delete of it. 7z's `-sdel` is one word, not a cluster of letters.
 */
export const SOURCE_REMOVERS: Readonly<Record<string, { readonly options?: readonly string[]; readonly word?: RegExp }>> = {
  tar: { options: ['remove-files'] }, gtar: { options: ['remove-files'] }, bsdtar: { options: ['remove-files'] },
  zip: { options: ['m', 'move'] },
  rsync: { options: ['remove-source-files', 'remove-sent-files'] },
  '7z': { word: /^-sdel$/i }, '7za': { word: /^-sdel$/i }, '7zz': { word: /^-sdel$/i }, '7zr': { word: /^-sdel$/i },
};

/** git's options before its sub-command (`git -C dir status`); git.c's handle_options also takes the next word for --shallow-file and --attr-source. */
export const GIT_GLOBAL = { posix: true, short: 'Cc', long: ['git-dir', 'work-tree', 'namespace', 'config-env', 'super-prefix', 'exec-path', 'shallow-file', 'attr-source'] } as const satisfies OptionSpec;

/** Interpreters that run code from an argument or from stdin. */
export interface InterpreterSpec extends OptionSpec {
  readonly family: 'shell' | 'code';
  /** Shell family: flags making the first operand code. Code family: options whose value is code. */
  readonly inline: readonly string[];
  /** Options after which a module or file runs, not stdin (`python -m`). */
  readonly module?: readonly string[];
}

const SHELL: InterpreterSpec = { family: 'shell', posix: true, short: 'oO', long: ['rcfile', 'init-file'], inline: ['c'] };
const PYTHON: InterpreterSpec = { family: 'code', posix: true, short: 'cmWXQ', inline: ['c'], module: ['m'], last: ['c', 'm'] };
const E_FLAG: InterpreterSpec = { family: 'code', posix: true, short: 'e', inline: ['e'], last: ['e'] };

export const INTERPRETERS: Readonly<Record<string, InterpreterSpec>> = {
  sh: SHELL, bash: SHELL, zsh: SHELL, dash: SHELL, ksh: SHELL, mksh: SHELL, ash: SHELL, yash: SHELL, posh: SHELL, rbash: SHELL, lksh: SHELL,
  fish: { family: 'shell', posix: true, short: 'cC', long: ['command', 'init-command'], inline: ['c', 'command'] },
  csh: SHELL, tcsh: SHELL,
  python: PYTHON, python2: PYTHON, python3: PYTHON, pypy: PYTHON, pypy3: PYTHON, py: PYTHON, ipython: PYTHON, jython: PYTHON,
  node: { family: 'code', posix: true, short: 'eprC', long: ['eval', 'print', 'require', 'import', 'loader', 'experimental-loader', 'conditions', 'input-type', 'env-file', 'title'], inline: ['e', 'eval', 'p', 'print'], last: ['e', 'eval', 'p', 'print'] },
  bun: { family: 'code', posix: true, short: 'epr', long: ['eval', 'print', 'preload', 'cwd'], inline: ['e', 'eval', 'p', 'print'], last: ['e', 'eval', 'p', 'print'] },
  perl: { family: 'code', posix: true, short: 'eE', attached: 'IMmilx0dDC', inline: ['e', 'E'], module: [], last: [] },
  ruby: { family: 'code', posix: true, short: 'eIrCEF', attached: 'x0lWT', inline: ['e'] },
  php: { family: 'code', posix: true, short: 'rBREFcdzft', inline: ['r', 'B', 'R', 'E'] },
  lua: { family: 'code', posix: true, short: 'el', inline: ['e'] }, luajit: { family: 'code', posix: true, short: 'elj', inline: ['e'] },
  rscript: E_FLAG, r: { family: 'code', posix: true, short: 'e', long: ['file'], inline: ['e'] },
  julia: { family: 'code', posix: true, short: 'eE', long: ['eval', 'print'], inline: ['e', 'E', 'eval', 'print'] },
  osascript: { family: 'code', posix: true, short: 'el', inline: ['e'] },
  expect: { family: 'code', posix: true, short: 'cf', inline: ['c'] },
  groovy: E_FLAG, scala: E_FLAG, elixir: { family: 'code', posix: true, short: 'er', long: ['eval'], inline: ['e', 'eval'] },
  racket: { family: 'code', posix: true, short: 'e', long: ['eval'], inline: ['e', 'eval'] },
  guile: { family: 'code', posix: true, short: 'clLe', inline: ['c'] },
  sbcl: { family: 'code', long: ['eval'], inline: ['eval'] },
  tclsh: { family: 'code', posix: true, inline: [] }, wish: { family: 'code', posix: true, inline: [] },
  jrunscript: E_FLAG,
};

/** PowerShell spells options with one dash, case-insensitively, and accepts prefixes. */
export const POWERSHELL = new Set(['pwsh', 'powershell', 'pwsh-preview']);
export const POWERSHELL_INLINE = /^[-/](c|co|com|comm|comma|comman|command|cwa|commandwithargs|e|ec|en|enc|enco|encod|encode|encoded|encodedc\w*)$/i;

/** awk programs are inline code; only those that run commands matter. */
export const AWKS = new Set(['awk', 'gawk', 'mawk', 'nawk', 'busybox-awk']);
export const AWK_EXEC = /\bsystem\s*\(|\|\s*getline|\|&|print[^;}]*\|\s*"/;

/** Programs that fetch remote content. */
export const DOWNLOADERS = new Set(['curl', 'wget', 'fetch', 'aria2c', 'http', 'https', 'xh', 'httpie', 'lwp-request', 'get', 'lynx', 'links', 'w3m', 'nc', 'ncat', 'netcat', 'socat', 'ftp', 'tftp', 'invoke-webrequest', 'iwr', 'irm', 'invoke-restmethod']);

/**
 * How curl and wget spell their options: which take a value, so that every other word
 * is a URL to them (`curl -m 10 127.1`: `10` is a time, `127.1` a host).
 */
/**
 * less's options taking a value (opttbl.c): `-o`/`-O`/`--log-file` name the file it copies its input to, `-k` and
 * `--lesskey-src`/`--lesskey-content` key bindings and an #env section (LESSOPEN); its options may follow the files.
 */
export const LESS_OPTIONS = {
  short: 'bDhjkoOpPtTxyz#"',
  long: [
    'buffers', 'color', 'max-back-scroll', 'jump-target', 'lesskey-file', 'lesskey-src', 'lesskey-content', 'log-file', 'LOG-FILE', 'pattern', 'prompt', 'tag',
    'tag-file', 'tabs', 'max-forw-scroll', 'window', 'quotes', 'shift', 'rscroll', 'wheel-lines', 'line-num-width', 'status-col-width', 'header', 'search-options',
    'intr', 'match-shift',
  ],
} as const;

export const DOWNLOADER_OPTIONS = {
  curl: {
    short: 'AbcCdDeEFHKmoPQrtTuUwxXyYz',
    long: [
      'abstract-unix-socket', 'alt-svc', 'aws-sigv4', 'cacert', 'capath', 'cert', 'cert-type', 'ciphers', 'config', 'connect-timeout', 'connect-to',
      'continue-at', 'cookie', 'cookie-jar', 'create-file-mode', 'crlfile', 'curves', 'data', 'data-ascii', 'data-binary', 'data-raw', 'data-urlencode',
      'delegation', 'dns-interface', 'dns-ipv4-addr', 'dns-ipv6-addr', 'dns-servers', 'doh-url', 'dump-header', 'ech', 'engine', 'etag-compare',
      'etag-save', 'expect100-timeout', 'form', 'form-string', 'ftp-account', 'ftp-alternative-to-user', 'ftp-method', 'ftp-port', 'ftp-ssl-ccc-mode',
      'happy-eyeballs-timeout-ms', 'haproxy-clientip', 'header', 'hostpubmd5', 'hostpubsha256', 'hsts', 'interface', 'ip-tos', 'ipfs-gateway', 'json',
      'keepalive-time', 'key', 'key-type', 'krb', 'libcurl', 'limit-rate', 'local-port', 'login-options', 'mail-auth', 'mail-from', 'mail-rcpt',
      'max-filesize', 'max-redirs', 'max-time', 'netrc-file', 'noproxy', 'oauth2-bearer', 'output', 'output-dir', 'parallel-max', 'pass', 'pinnedpubkey',
      'preproxy', 'proto', 'proto-default', 'proto-redir', 'proxy', 'proxy-cacert', 'proxy-capath', 'proxy-cert', 'proxy-header', 'proxy-key',
      'proxy-pass', 'proxy-service-name', 'proxy-user', 'proxy1.0', 'pubkey', 'quote', 'random-file', 'range', 'rate', 'referer', 'request',
      'request-target', 'resolve', 'retry', 'retry-delay', 'retry-max-time', 'sasl-authzid', 'service-name', 'socks4', 'socks4a', 'socks5',
      'socks5-gssapi-service', 'socks5-hostname', 'speed-limit', 'speed-time', 'stderr', 'telnet-option', 'tftp-blksize', 'time-cond', 'tls-max',
      'tls13-ciphers', 'tlsauthtype', 'tlspassword', 'tlsuser', 'trace', 'trace-ascii', 'unix-socket', 'upload-file', 'url', 'url-query', 'user',
      'user-agent', 'variable', 'write-out', 'keepalive-cnt', 'vlan-priority', 'ssl-sessions', 'proxy-ciphers', 'proxy-crlfile', 'proxy-key-type',
      'proxy-cert-type', 'proxy-pinnedpubkey', 'proxy-tls13-ciphers', 'proxy-tlsauthtype', 'proxy-tlspassword', 'proxy-tlsuser', 'upload-flags',
      'knownhosts', 'sigalgs',
    ],
    flags: [
      'anyauth', 'append', 'basic', 'ca-native', 'cert-status', 'compressed', 'compressed-ssh', 'create-dirs', 'crlf', 'digest', 'disable',
      'disable-eprt', 'disable-epsv', 'disallow-username-in-url', 'doh-cert-status', 'doh-insecure', 'fail', 'fail-early', 'fail-with-body',
      'false-start', 'form-escape', 'ftp-create-dirs', 'ftp-pasv', 'ftp-pret', 'ftp-skip-pasv-ip', 'ftp-ssl', 'ftp-ssl-ccc', 'ftp-ssl-control',
      'get', 'globoff', 'haproxy-protocol', 'head', 'http0.9', 'http1.0', 'http1.1', 'http2', 'http2-prior-knowledge', 'http3', 'http3-only',
      'ignore-content-length', 'include', 'insecure', 'ipv4', 'ipv6', 'junk-session-cookies', 'list-only', 'location', 'location-trusted',
      'mail-rcpt-allowfails', 'manual', 'metalink', 'mptcp', 'negotiate', 'netrc', 'netrc-optional', 'next', 'no-alpn', 'no-buffer', 'no-clobber',
      'no-keepalive', 'no-npn', 'no-progress-meter', 'no-sessionid', 'ntlm', 'ntlm-wb', 'parallel', 'parallel-immediate', 'path-as-is', 'post301',
      'post302', 'post303', 'progress-bar', 'proxy-anyauth', 'proxy-basic', 'proxy-ca-native', 'proxy-digest', 'proxy-http2', 'proxy-insecure',
      'proxy-negotiate', 'proxy-ntlm', 'proxy-ssl-allow-beast', 'proxy-ssl-auto-client-cert', 'proxy-tlsv1', 'proxytunnel', 'raw',
      'remote-header-name', 'remote-name', 'remote-name-all', 'remote-time', 'remove-on-error', 'retry-all-errors', 'retry-connrefused', 'sasl-ir',
      'show-error', 'show-headers', 'silent', 'skip-existing', 'socks5-basic', 'socks5-gssapi', 'socks5-gssapi-nec', 'ssl', 'ssl-allow-beast', 'ssl-auto-client-cert',
      'ssl-no-revoke', 'ssl-reqd', 'ssl-revoke-best-effort', 'sslv2', 'sslv3', 'styled-output', 'suppress-connect-headers', 'tcp-fastopen',
      'tcp-nodelay', 'tftp-no-options', 'tls-earlydata', 'tlsv1', 'tlsv1.0', 'tlsv1.1', 'tlsv1.2', 'tlsv1.3', 'tr-encoding', 'trace-time', 'use-ascii',
      'verbose', 'version', 'xattr', 'help', 'keepalive', 'buffer', 'sessionid', 'alpn', 'npn', 'progress-meter', 'clobber',
    ],
  },
  wget: {
    // `-nv`, `-nd`, `-np`: -n takes the letter after it (`-np` is --no-parent, not -n -p)
    short: 'oaeOPtTwQlARDXIUBin',
    long: [
      'output-file', 'append-output', 'execute', 'input-file', 'base', 'config', 'bind-address', 'bind-dns-address', 'tries', 'output-document', 'wait',
      'waitretry', 'timeout', 'dns-timeout', 'connect-timeout', 'read-timeout', 'limit-rate', 'quota', 'directory-prefix', 'cut-dirs', 'default-page',
      'user', 'password', 'http-user', 'http-password', 'ftp-user', 'ftp-password', 'header', 'max-redirect', 'proxy-user', 'proxy-password', 'referer',
      'save-cookies', 'load-cookies', 'post-data', 'post-file', 'method', 'body-data', 'body-file', 'user-agent', 'level', 'accept', 'reject',
      'accept-regex', 'reject-regex', 'domains', 'exclude-domains', 'include-directories', 'exclude-directories', 'ca-certificate', 'ca-directory',
      'certificate', 'certificate-type', 'private-key', 'private-key-type', 'secure-protocol', 'ciphers', 'crl-file', 'pinnedpubkey', 'random-file',
      'egd-file', 'hsts-file', 'warc-file', 'warc-header', 'warc-max-size', 'warc-dedup', 'warc-tempdir', 'restrict-file-names',
      'prefer-family', 'local-encoding', 'remote-encoding', 'report-speed', 'retry-on-http-error', 'compression', 'use-askpass', 'backups',
      'start-pos', 'progress', 'rejected-log',
    ],
    flags: [
      'quiet', 'verbose', 'no-verbose', 'debug', 'background', 'continue', 'timestamping', 'server-response', 'spider', 'recursive', 'mirror',
      'page-requisites', 'convert-links', 'convert-file-only', 'adjust-extension', 'no-parent', 'no-clobber', 'no-check-certificate', 'https-only',
      'inet4-only', 'inet6-only', 'no-dns-cache', 'ignore-case', 'no-proxy', 'no-cookies', 'keep-session-cookies', 'ignore-length', 'save-headers',
      'content-disposition', 'content-on-error', 'trust-server-names', 'auth-no-challenge', 'no-http-keep-alive', 'no-cache', 'retry-connrefused',
      'unlink', 'force-directories', 'no-directories', 'no-host-directories', 'protocol-directories', 'delete-after', 'backup-converted',
      'span-hosts', 'relative', 'follow-ftp', 'no-glob', 'no-passive-ftp', 'preserve-permissions', 'retr-symlinks', 'hsts', 'no-hsts', 'warc-cdx',
      'no-warc-compression', 'no-warc-digests', 'no-warc-keep-log', 'ask-password', 'no-iri', 'random-wait', 'strict-comments', 'xattr', 'no-netrc',
      'show-progress', 'no-config', 'force-html', 'keep-badhash', 'no-if-modified-since', 'no-use-server-timestamps', 'ftps-implicit',
      'ftps-resume-ssl', 'ftps-clear-data-connection', 'ftps-fallback-to-ftp', 'version', 'help',
    ],
  },
} as const satisfies Readonly<Record<string, OptionSpec>>;

/** Decoders that turn opaque text into code: [program, options meaning decode]. */
export const DECODERS: Readonly<Record<string, readonly string[] | 'always'>> = {
  base64: ['d', 'decode', 'D'], base32: ['d', 'decode'], basenc: ['d', 'decode'], xxd: ['r', 'revert'], uudecode: 'always',
  openssl: ['d'], gpg: ['d', 'decrypt'], gunzip: 'always', zcat: 'always', rev: 'always',
};

/** Commands that read and run a script file in the current shell. */
export const SOURCERS = new Set(['source', '.']);

/** Database clients: their arguments and stdin are SQL (or the store's commands). */
export const SQL_CLIENTS = new Set([
  'psql', 'mysql', 'mariadb', 'sqlite3', 'sqlite', 'sqlcmd', 'clickhouse-client', 'clickhouse', 'cockroach', 'duckdb', 'mssql-cli', 'pgcli', 'mycli',
  'litecli', 'usql', 'bq', 'snowsql', 'trino', 'presto', 'cqlsh', 'redis-cli', 'valkey-cli', 'keydb-cli', 'mongo', 'mongosh', 'isql', 'db2', 'sqlplus',
]);

/** Programs that only look at metadata or print their arguments: a secret path there is not read. */
export const NON_READERS = new Set(['ls', 'stat', 'test', '[', '[[', 'du', 'realpath', 'readlink', 'dirname', 'basename', 'namei', 'lsattr', 'getfacl', 'echo', 'printf', 'which', 'type', 'command', 'git']);

/** Programs whose first operand is a pattern, not a file. */
export const PATTERN_FIRST = new Set(['grep', 'egrep', 'fgrep', 'rgrep', 'rg', 'ag', 'ack', 'pt', 'ugrep', 'ug', 'ugrep+', 'ug+', 'sed', 'awk', 'gawk', 'mawk', 'nawk', 'zgrep']);

/** Programs that read files named by operands (a secret operand is read even when quoted). */
export const READERS = new Set([
  'cat', 'tac', 'less', 'more', 'most', 'head', 'tail', 'nl', 'od', 'xxd', 'hexdump', 'hd', 'strings', 'base64', 'base32', 'cp', 'scp', 'rsync', 'dd',
  'tar', 'zip', '7z', 'gzip', 'bzip2', 'xz', 'zstd', 'grep', 'egrep', 'fgrep', 'rgrep', 'rg', 'ag', 'ack', 'pt', 'ugrep', 'ug', 'ugrep+', 'ug+', 'sed', 'awk', 'gawk', 'cut', 'sort', 'uniq', 'wc', 'diff',
  'cmp', 'comm', 'paste', 'join', 'fold', 'fmt', 'pr', 'column', 'vi', 'vim', 'nvim', 'view', 'nano', 'emacs', 'ed', 'code', 'openssl', 'curl', 'wget',
  'md5sum', 'sha1sum', 'sha256sum', 'sha512sum', 'file', 'iconv', 'jq', 'yq', 'install', 'mv', 'ln', 'unshadow', 'john', 'bat', 'batcat', 'mcedit',
  'zcat', 'zless', 'xargs', 'docker', 'kubectl', 'sftp', 'nc', 'ncat', 'socat', 'python', 'python3', 'perl', 'ruby', 'node', 'source', '.',
  'rev', 'shuf', 'split', 'csplit', 'expand', 'unexpand', 'cksum', 'sum', 'b2sum', 'sha224sum', 'sha384sum', 'look', 'ptx', 'tsort', 'uuencode',
  'lz4', 'lzma', 'pv', 'mail', 'mailx',
]);

/** A program that copies, archives or searches whole directory trees: which operands it reads, and when recursively. */
export interface TreeCopySpec {
  readonly spec: OptionSpec;
  /** Options that make it descend into directories ('always' when it does by default); `name=value` wants that value (`-d recurse`). */
  readonly recursive: readonly string[] | 'always';
  /** Options that stop it descending (`tar --no-recursion`). */
  readonly flat?: readonly string[];
  /** Options that make it read its operands at all (tar's create, append and update modes). */
  readonly modes?: readonly string[];
  /** Its first operand must be one of these verbs (`7z a`). */
  readonly verbs?: readonly string[];
  /** Operands before the sources (zip's archive; 7z's verb and archive). */
  readonly skip?: number;
  /** The last operand is the destination (unless a target-directory option names it). */
  readonly dest?: boolean;
  /** Options naming the directory later operands are relative to (`tar -C DIR`). */
  readonly chdir?: readonly string[];
  /** A searcher: the first operand is its pattern unless one of these options gives it (`grep -e`). */
  readonly pattern?: readonly string[];
  /** Options with which it lists file names and reads no file (`rg --files`, `ag -g`). */
  readonly namesOnly?: readonly string[];
  /** Of those, the ones listing the files below its operands (`rg --files`, `ag -g RE`, `ack -f`): a lister, see listers.ts. */
  readonly lists?: readonly string[];
  /** Options whose values narrow the files it searches or lists (`-g GLOB`, `-t TYPE`); match-all and `!`-negated values do not. */
  readonly narrow?: readonly string[];
  /** With no source operand it reads the working directory, or ('unless-stdin') its stdin when that is fed. */
  readonly cwd?: 'always' | 'unless-stdin';
}

const SEVEN_ZIP: TreeCopySpec = { spec: {}, recursive: 'always', verbs: ['a', 'u'], skip: 2 };
const TAR: TreeCopySpec = { spec: TAR_OPTIONS, recursive: 'always', flat: ['no-recursion'], modes: ['c', 'create', 'r', 'append', 'u', 'update'], chdir: ['C', 'directory'] };

/**
 * Searchers' options taking a value (the pattern ones matter most: with them the first operand is a path), and
 * flags sharing a prefix with them (`--rec` is grep's --recursive, not --regexp). A value option left out reads as
 * a flag, which only makes more words paths.
 */
const GREP_OPTIONS: OptionSpec = {
  short: 'efmABCdD',
  long: ['regexp', 'file', 'max-count', 'after-context', 'before-context', 'context', 'directories', 'devices', 'label', 'include', 'exclude', 'exclude-from', 'exclude-dir', 'binary-files', 'group-separator'],
  flags: ['recursive', 'dereference-recursive', 'files-with-matches', 'files-without-match', 'fixed-strings', 'extended-regexp', 'basic-regexp', 'ignore-case', 'line-number', 'line-regexp', 'line-buffered', 'count', 'color', 'colour', 'null', 'null-data'],
};
const RG_OPTIONS: OptionSpec = {
  short: 'ABCEMTdefgjmrt',
  long: [
    'after-context', 'before-context', 'context', 'encoding', 'max-columns', 'type-not', 'max-depth', 'maxdepth', 'regexp', 'file', 'glob', 'iglob', 'threads',
    'max-count', 'replace', 'type', 'type-add', 'type-clear', 'color', 'colors', 'context-separator', 'path-separator', 'engine', 'sort', 'sortr', 'ignore-file',
    'max-filesize', 'pre', 'pre-glob',
  ],
  flags: ['files', 'files-with-matches', 'files-without-match', 'type-list', 'follow', 'fixed-strings', 'hidden', 'no-ignore', 'count', 'count-matches', 'no-pre'],
};
const GREP: TreeCopySpec = { spec: GREP_OPTIONS, recursive: ['r', 'R', 'recursive', 'dereference-recursive', 'd=recurse', 'directories=recurse'], pattern: ['e', 'f', 'regexp', 'file'], cwd: 'always' };
/**
 * ugrep (`ug` is ugrep with its config file; `+` adds document filters): grep's options and more. A directory operand
 * is searched one level deep even without -r (that reaches /etc/shadow, ~/.git-credentials), so every directory counts;
 * with no operand it recurses from the working directory unless stdin is fed. `-Q` (query) takes the pattern itself.
 */
const UGREP: TreeCopySpec = {
  spec: {
    short: 'ABCefNtgmdDOMKJ', attached: 'Z',
    long: [
      'regexp', 'file', 'neg-regexp', 'after-context', 'before-context', 'context', 'max-count', 'directories', 'devices', 'file-type', 'glob', 'iglob',
      'include', 'include-dir', 'include-from', 'exclude', 'exclude-dir', 'exclude-from', 'include-fs', 'exclude-fs', 'file-extension', 'file-magic',
      'range', 'jobs', 'label', 'filter', 'filter-magic-label', 'format', 'format-begin', 'format-end', 'format-open', 'format-close', 'group-separator',
      'encoding', 'replace', 'max-files', 'min-count', 'min-line', 'max-line',
    ],
    flags: ['recursive', 'dereference-recursive', 'files', 'files-with-matches', 'files-without-match', 'fixed-strings', 'ignore-case', 'smart-case', 'line-number', 'count', 'color', 'colour', 'hidden', 'pretty', 'sort', 'query', 'config', 'pager', 'ignore-files', 'index'],
  },
  recursive: 'always', pattern: ['e', 'f', 'regexp', 'file', 'Q', 'query'], cwd: 'unless-stdin',
};
const GIT_GREP_OPTIONS: OptionSpec = { short: 'ABCefm', attached: 'O', long: ['max-depth', 'threads', 'after-context', 'before-context', 'context', 'max-count'], flags: ['no-index', 'open-files-in-pager'] };

/** Recursive copies, archives and searches: a source that holds a secret reads it (`cp -r /root x`, `tar czf x.tgz ~/.ssh`, `grep -r x /root`). */
export const TREE_COPIES: Readonly<Record<string, TreeCopySpec>> = {
  cp: { spec: TRANSFER_OPTIONS.cp, recursive: ['r', 'R', 'recursive', 'a', 'archive'], dest: true },
  scp: { spec: TRANSFER_OPTIONS.scp, recursive: ['r'], dest: true },
  rsync: { spec: TRANSFER_OPTIONS.rsync, recursive: ['r', 'recursive', 'a', 'archive'], dest: true },
  ditto: { spec: {}, recursive: 'always', dest: true },
  tar: TAR, gtar: TAR, bsdtar: TAR,
  zip: { spec: ZIP_OPTIONS, recursive: ['r', 'R'], skip: 1 },
  '7z': SEVEN_ZIP, '7za': SEVEN_ZIP, '7zz': SEVEN_ZIP, '7zr': SEVEN_ZIP,
  grep: GREP, egrep: GREP, fgrep: GREP,
  rgrep: { ...GREP, recursive: 'always' },
  // these descend by default and read stdin instead when it is fed and no path is given
  rg: { spec: RG_OPTIONS, recursive: 'always', pattern: ['e', 'f', 'regexp', 'file'], namesOnly: ['files', 'type-list'], lists: ['files'], narrow: ['pre-glob', 'g', 'glob', 'iglob', 't', 'type'], cwd: 'unless-stdin' },
  ag: { spec: { short: 'GgmpW', long: ['file-search-regex', 'max-count', 'depth', 'ignore', 'ignore-dir', 'path-to-ignore', 'pager', 'width', 'workers'], flags: ['list-file-types'] }, recursive: 'always', pattern: [], namesOnly: ['g', 'list-file-types'], lists: ['g'], narrow: ['g', 'G', 'file-search-regex'], cwd: 'unless-stdin' },
  ack: { spec: { short: 'gmt', long: ['match', 'ignore-dir', 'noignore-dir', 'ignore-file', 'type', 'type-add', 'type-set', 'type-del', 'output', 'pager', 'max-count'] }, recursive: 'always', pattern: ['match'], namesOnly: ['f', 'g', 'help-types'], lists: ['f', 'g'], narrow: ['g', 't', 'type'], cwd: 'unless-stdin' },
  ugrep: UGREP, ug: UGREP, 'ugrep+': UGREP, 'ug+': UGREP,
  pt: { spec: { short: 'Gg', long: ['file-search-regexp', 'depth', 'ignore', 'output-encode'] }, recursive: 'always', pattern: [], namesOnly: ['g'], lists: ['g'], narrow: ['g', 'G', 'file-search-regexp'], cwd: 'unless-stdin' },
  // `git [-C DIR] grep --no-index …`, seen as this program (see treeSources)
  'git grep': { spec: GIT_GREP_OPTIONS, recursive: 'always', modes: ['no-index'], pattern: ['e', 'f'], cwd: 'always' },
};
