export { IPV4_RULES, IPV6_RULES, blockedAddress, canonicalAddress, judgeAddress, sameAddress, type AddressBlock, type RangeRule } from './address-rules.ts';
export { checkUrl, HAS_SCHEME, normaliseHost, URL_RULES, type CheckUrlOptions, type UrlVerdict } from './check-url.ts';
export { FETCH_LIMIT_RULES, FetchLimitError, SsrfBlockedError } from './errors.ts';
export { guardedFetch, DEFAULT_MAX_BYTES, DEFAULT_MAX_REDIRECTS, DEFAULT_TIMEOUT_MS, type GuardedFetchInit, type GuardedResponse } from './guarded-fetch.ts';
export { NAME_RULES, blockedName, type NameRule } from './name-rules.ts';
export { redactUrl } from './redact.ts';
export { CROSS_ORIGIN_HEADERS, planRedirect, type HopRequest, type RedirectPlan } from './redirect.ts';
export { systemLookup, type Lookup } from './system-lookup.ts';
export { SOCKET_RULES, checkRemoteAddress, pinnedConnector, undiciTransport, type HopResponse, type PinnedRequest, type Transport } from './transport.ts';
