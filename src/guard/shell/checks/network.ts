import { isIP } from 'node:net';
import { judgeAddress } from '../../ssrf/address-rules.ts';
import { normaliseHost } from '../../ssrf/check-url.ts';
import { blockedName, SINGLE_LABEL_RULE } from '../../ssrf/name-rules.ts';
import type { Emit, Invocation } from '../model.ts';
import { DOWNLOADERS } from '../program-tables.ts';

const SCHEME = /^[a-z][a-z0-9+.-]*:\/\//i;
/** A bare operand only counts as a host when it is unmistakably one: option values like `10` or `0.5` are not. */
const BARE_HOST = /^(?:\d{1,3}(?:\.\d{1,3}){3}|\[[0-9a-f:.]+\]|localhost|(?:[a-z0-9-]+\.)+[a-z][a-z0-9-]*)(?::\d+)?(?:\/\S*)?$/i;
/** socat addresses that open a connection: TCP:host:port, TCP4-CONNECT:host:port, OPENSSL:host:port, UDP6:… */
const SOCAT_CONNECT = /^(?:tcp|udp|openssl|sctp)[46]?(?:-connect)?:(\[[^\]]+\]|[^:,]+)/i;

/**
 * A downloader or network client aimed at a non-public target (SPEC §6's ranges and names, judged
 * without DNS): attended, a person sees it instead of a trusted channel letting it through unasked.
 */
export function checkNetworkTarget(inv: Invocation, emit: Emit): void {
  if (!DOWNLOADERS.has(inv.program)) return;
  for (const arg of inv.args) {
    if (arg.v.startsWith('-')) continue;
    const host = targetHost(arg.v, inv.program);
    if (host && nonPublic(host.name, host.fromUrl)) emit('shell.network.private_target', `${inv.program} ${arg.v}`);
  }
}

function targetHost(operand: string, program: string): { name: string; fromUrl: boolean } | null {
  const socat = program === 'socat' ? SOCAT_CONNECT.exec(operand) : null;
  const text = socat ? `http://${socat[1]}` : SCHEME.test(operand) ? operand : BARE_HOST.test(operand) ? `http://${operand}` : null;
  if (!text) return null;
  try {
    const name = normaliseHost(new URL(text).hostname);
    return name ? { name, fromUrl: SCHEME.test(operand) } : null;
  } catch {
    return null;
  }
}

function nonPublic(host: string, fromUrl: boolean): boolean {
  if (isIP(host) !== 0) return judgeAddress(host).blocks.length > 0;
  const named = blockedName(host);
  // a bare single word is more often a file or a value than a host
  return named !== undefined && (fromUrl || named.rule !== SINGLE_LABEL_RULE.rule);
}
