import type { GuardDecision } from '../types.ts';

/** A URL (first or a redirect hop) or a connected socket failed the SSRF check; nothing was sent to it. */
export class SsrfBlockedError extends Error {
  override readonly name = 'SsrfBlockedError';
  constructor(
    readonly rule: string,
    readonly decision: Exclude<GuardDecision, 'allow'>,
    readonly reason: string,
    /** Redacted URL (no userinfo, no query). */
    readonly url: string,
  ) {
    super(`request to ${url} refused (${rule}): ${reason}`);
  }
}

export const FETCH_LIMIT_RULES = {
  'fetch.too_many_redirects': 'The response redirected more times than allowed.',
  'fetch.too_large': 'The response body is larger than allowed.',
  'fetch.timeout': 'The request did not finish within its time limit.',
  'fetch.redirect_invalid': 'A redirect carried a Location that is not a valid URL.',
} as const;

export type FetchLimitRule = keyof typeof FETCH_LIMIT_RULES;

/** A guarded fetch stopped on one of its limits (size, time, redirects). */
export class FetchLimitError extends Error {
  override readonly name = 'FetchLimitError';
  constructor(
    readonly rule: FetchLimitRule,
    readonly url: string,
    detail = '',
  ) {
    super(`request to ${url} stopped (${rule}): ${FETCH_LIMIT_RULES[rule]}${detail ? ` ${detail}` : ''}`);
  }
}
