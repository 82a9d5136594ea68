export { IPV4_RULES, IPV6_RULES, blockedAddress, canonicalAddress, judgeAddress, sameAddress, UNPARSEABLE_ADDRESS, type AddressBlock, type RangeRule } from './address-rules.ts';
export { checkUrl, HAS_SCHEME, normaliseHost, resolveAll, URL_RULES, type CheckUrlOptions, type Lookup, type UrlVerdict } from './check-url.ts';
export { FETCH_LIMIT_RULES, FetchLimitError, SsrfBlockedError } from './errors.ts';
export { NAME_RULES, blockedName, type NameRule } from './name-rules.ts';
export { redactUrl } from './redact.ts';
export { CROSS_ORIGIN_HEADERS, normaliseHeaders, planRedirect, type HopRequest, type RedirectPlan } from './redirect.ts';
