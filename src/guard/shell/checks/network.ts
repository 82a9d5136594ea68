import { isIP } from '../../../util/ip-syntax.ts';
import { judgeAddress } from '../../ssrf/address-rules.ts';
import { normaliseHost } from '../../ssrf/check-url.ts';
import { blockedName, SINGLE_LABEL_RULE } from '../../ssrf/name-rules.ts';
import { parseOptions, valuesOf } from '../flags.ts';
import type { Arg, Emit, Invocation } from '../model.ts';
import { DOWNLOADER_OPTIONS, DOWNLOADERS } from '../program-tables.ts';

const SCHEME = /^[a-z][a-z0-9+.-]*:\/\//i;
/** A bare operand only counts as a host when it is unmistakably one: option values like `10` or `0.5` are not. */
const BARE_HOST = /^(?:\d{1,3}(?:\.\d{1,3}){3}|\[[0-9a-f:.]+\]|localhost|(?:[a-z0-9-]+\.)+[a-z][a-z0-9-]*)(?::\d+)?(?:\/\S*)?$/i;
/** IPv4 in hex, as the URL parser and inet_aton read it (`0x7f000001`, `0x7f.0.0.1`): never an option value. */
const HEX_HOST = /^0x[0-9a-f]+(?:\.(?:0x[0-9a-f]+|\d+)){0,3}(?::\d+)?(?:\/\S*)?$/i;
/** curl options naming a host the request goes through: proxies and the DNS-over-HTTPS server. */
const VIA_OPTIONS = ['x', 'proxy', 'proxy1.0', 'preproxy', 'socks4', 'socks4a', 'socks5', 'socks5-hostname', 'doh-url'];
/** socat addresses that open a connection: TCP:host:port, TCP4-CONNECT:host:port, OPENSSL:host:port, UDP6:… */
const SOCAT_CONNECT = /^(?:tcp|udp|openssl|sctp)[46]?(?:-connect)?:(\[[^\]]+\]|[^:,]+)/i;

/**
 * A downloader or network client aimed at a non-public target (SPEC §6's ranges and names, judged
 * without DNS): attended, a person sees it instead of a trusted channel letting it through unasked.
 */
export function checkNetworkTarget(inv: Invocation, emit: Emit): void {
  if (!DOWNLOADERS.has(inv.program)) return;
  const flag = (arg: Arg) => emit('shell.network.private_target', `${inv.program} ${arg.v}`);
  if (inv.program === 'curl' || inv.program === 'wget') {
    checkUrlClient(inv.program, inv.args, flag);
    return;
  }
  for (const arg of inv.args) {
    // `--url=http://127.0.0.1/`: a value with a scheme is a target whatever the option
    const value = arg.v.startsWith('-') ? /^--?[a-z0-9-]+=(.+)$/is.exec(arg.v)?.[1] : arg.v;
    if (value === undefined || (arg.v.startsWith('-') && !SCHEME.test(value))) continue;
    const host = targetHost(value, inv.program);
    if (host && nonPublic(host.name, host.fromUrl)) flag(arg);
  }
}

/**
 * curl and wget take every operand as a URL, in whatever form their URL parser accepts
 * (`127.1`, `2130706433`, `0x7f000001`); their option values are told apart by the option table.
 */
function checkUrlClient(program: 'curl' | 'wget', args: readonly Arg[], flag: (arg: Arg) => void): void {
  const p = parseOptions(args, DOWNLOADER_OPTIONS[program]);
  // a proxy or DNS-over-HTTPS server is where the request really goes first
  for (const arg of [...p.operands, ...valuesOf(p, 'url', ...(program === 'curl' ? VIA_OPTIONS : []))]) {
    const fromUrl = SCHEME.test(arg.v);
    const host = urlHost(fromUrl ? arg.v : `http://${arg.v}`);
    if (host && nonPublic(host, fromUrl)) flag(arg);
  }
  // --resolve HOST:PORT:ADDR[,ADDR] and --connect-to H1:P1:H2:P2 send a public name to another address
  for (const arg of valuesOf(p, 'resolve')) {
    const addrs = /^[^:]*:[^:]*:(.+)$/.exec(arg.v)?.[1]?.split(',') ?? [];
    if (addrs.some((a) => nonPublicAddress(a))) flag(arg);
  }
  for (const arg of valuesOf(p, 'connect-to')) {
    const to = /^[^:]*:[^:]*:(\[[^\]]*\]|[^:]*):/.exec(arg.v)?.[1];
    if (to && nonPublicAddress(to)) flag(arg);
  }
}

function nonPublicAddress(text: string): boolean {
  const host = urlHost(`http://${text.startsWith('[') || !text.includes(':') ? text : `[${text}]`}/`);
  return host !== null && nonPublic(host, true);
}

function urlHost(text: string): string | null {
  try {
    return normaliseHost(new URL(text).hostname) || null;
  } catch {
    return null;
  }
}

function targetHost(operand: string, program: string): { name: string; fromUrl: boolean } | null {
  const socat = program === 'socat' ? SOCAT_CONNECT.exec(operand) : null;
  const bare = BARE_HOST.test(operand) || HEX_HOST.test(operand);
  const text = socat ? `http://${socat[1]}` : SCHEME.test(operand) ? operand : bare ? `http://${operand}` : null;
  if (!text) return null;
  const name = urlHost(text);
  return name ? { name, fromUrl: SCHEME.test(operand) } : null;
}

function nonPublic(host: string, fromUrl: boolean): boolean {
  if (isIP(host) !== 0) return judgeAddress(host).blocks.length > 0;
  const named = blockedName(host);
  // a bare single word is more often a file or a value than a host
  return named !== undefined && (fromUrl || named.rule !== SINGLE_LABEL_RULE.rule);
}
