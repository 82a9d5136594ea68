import ipaddr from 'ipaddr.js';
import { printable } from '../util/printable.ts';
import { redactWith, type MaskKind } from '../util/redact.ts';

/** Schemes an Authorization header names before its credential (`Bearer x`): the one word a masked header may add to its token. */
const AUTH_SCHEMES = /^(?:bearer|basic|token|digest|negotiate|ntlm|bot|apikey|api-key|key|oauth|jwt|dpop|hawk|aws4-hmac-sha256|sharedkey|ssws)$/i;
/** One credential: no space, and none of the shell's separators, redirections or substitutions. */
const TOKEN = /^[^\s|;&<>()`$]*$/;
/** A dotted host name followed by a path; base64 and base64url tokens have no dot, and JWTs no slash. */
const HOST_AND_PATH = /(?:^|[^A-Za-z0-9-])[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}(?::\d+)?\//;

/** The last label of a DNS name: letters, or a punycode top-level domain (`xn--p1ai`). */
const TOP_LABEL = /^(?:[a-z]{2,63}|xn--[a-z0-9-]{2,59})$/i;

/**
 * Whether the value names a place: a host name or an IP address in any form a client accepts (a scheme or `//`
 * before it, user info, a port, a path, query or fragment after it, a trailing dot; integer, hex or short IPv4
 * forms), so the reviewer must see where data goes. Read as the WHATWG URL parser reads a host, as clients do.
 */
function namesAHost(v: string): boolean {
  let s = v.replace(/^[a-z][a-z0-9+.-]*:\/\//i, '').replace(/^\/\//, '').replace(/^[^@/?#\s]*@/, '');
  s = s.split(/[/?#]/)[0]!.replace(/\.$/, '');
  if (s === '') return false;
  // a JSON Web Token is dotted too, and its signature may be letters only
  if (/^eyJ[\w-]*\.eyJ/.test(s)) return false;
  if (ipaddr.IPv6.isValid(s)) return true;
  let host: string;
  try {
    host = new URL(`http://${s}`).hostname;
  } catch {
    return false;
  }
  if (host.startsWith('[')) return true;
  if (ipaddr.IPv4.isValidFourPartDecimal(host)) {
    // a number alone (a PIN, a numeric password) reads as an address too: only one past the first /8 is taken as one
    return !/^\d+$/.test(s) || Number(s) >= 2 ** 24;
  }
  return host.includes('.') && host.length <= 253 && TOP_LABEL.test(host.split('.').at(-1)!);
}

/** Whether what redaction hid can be a credential and nothing more; quotes around it are the text's, not the value's. */
function credentialShaped(kind: MaskKind, hidden: string): boolean {
  const v = hidden.trim().replace(/^[\\"']+|[\\"']+$/g, '');
  if (kind === 'cookie') return v.split(/;[ \t]*/).filter((p) => p !== '').every((pair) => /^[^\s=]+=/.test(pair) && TOKEN.test(pair));
  if (kind === 'header') {
    const words = v.split(/[ \t]+/);
    return words.length === 1 ? TOKEN.test(words[0]!) : words.length === 2 && AUTH_SCHEMES.test(words[0]!) && TOKEN.test(words[1]!);
  }
  // a host and a path (`attacker.example/collect?d=`), or a host alone, is an address the reviewer must see, not a key
  return TOKEN.test(v) && !HOST_AND_PATH.test(v) && !namesAHost(v);
}

/**
 * Where a call's arguments hold text that the approval screen (and the stored request, and a smart reviewer's prompt)
 * would show as [REDACTED] although it is more than a credential: words or shell syntax a person could not see and
 * would approve all the same. Null when every hidden part is credential-shaped. `literals`: the context's own credentials,
 * hidden whatever their shape. The hidden text itself is never in the answer (it may be a credential).
 */
export function hiddenFromReviewer(args: unknown, literals: readonly string[]): string | null {
  let found: string | null = null;
  redactWith(args, literals, (kind, where, hidden) => {
    if (found === null && !credentialShaped(kind, hidden)) found = `the text after ${printable(where.trim(), 40)} (${hidden.length} characters)`;
  });
  return found;
}
