import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

/**
 * The code an asking session shows only where it asks (its terminal, its error output), needed to answer its
 * request from another shell. A tool process of that session can run `approvals approve` too, even detached
 * from the session's process tree (setsid), but it is not shown what the session printed (I3). The OS account
 * stays the boundary: one that may read the session's memory or its error output's file can find the code.
 */
export interface AnswerCode {
  /** As shown: 20 characters in groups of four (100 bits). */
  readonly text: string;
  /** What the request row keeps: enough to tell a wrong code at once, useless to find the code. */
  readonly hash: string;
}

// Crockford's base32: no I, L, O or U to misread
const ALPHABET = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

export function newAnswerCode(): AnswerCode {
  const chars = [...randomBytes(20)].map((b) => ALPHABET[b & 31]!).join('');
  const text = chars.match(/.{4}/g)!.join('-');
  return { text, hash: answerCodeHash(text) };
}

/** Case, spaces and dashes do not matter, and O, I and L read as 0, 1 and 1: a person copies the code by hand as often as by pasting it. */
const normal = (code: string): string => code.toUpperCase().replace(/[\s-]/g, '').replace(/O/g, '0').replace(/[IL]/g, '1');

export function answerCodeHash(code: string): string {
  return createHash('sha256').update(`echo-agent answer code\n${normal(code)}`).digest('hex');
}

export const codeMatches = (code: string, hash: string): boolean => sameText(answerCodeHash(code), hash);

/** The answer as recorded, keyed by the code: only someone who had the code can write one the asking session accepts. */
export interface ProvenAnswer {
  readonly id: string;
  readonly call_hash: string;
  readonly answer: string;
  readonly answered_by: string;
}

export function answerProof(code: string, a: ProvenAnswer): string {
  return createHmac('sha256', normal(code)).update([a.id, a.call_hash, a.answer, a.answered_by].join('\n')).digest('hex');
}

export const proofHolds = (code: string, a: ProvenAnswer, proof: string | null): boolean => proof !== null && sameText(answerProof(code, a), proof);

function sameText(a: string, b: string): boolean {
  const [x, y] = [Buffer.from(a), Buffer.from(b)];
  return x.length === y.length && timingSafeEqual(x, y);
}
