// The network adapter (undici sockets, the system resolver) with the SSRF guard's pure rules it builds on:
// network tools import both from here.
export * from '../../guard/ssrf/index.ts';
export { guardedFetch, DEFAULT_MAX_BYTES, DEFAULT_MAX_REDIRECTS, DEFAULT_TIMEOUT_MS, type GuardedFetchInit, type GuardedResponse } from './guarded-fetch.ts';
export { SOCKET_RULES, checkRemoteAddress, pinnedConnector, undiciTransport, type HopResponse, type PinnedRequest, type Transport } from './transport.ts';
export { systemLookup } from '../../util/system-ports.ts';
