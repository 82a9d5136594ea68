import type { SmartVerdict } from '../ports.ts';

/** Exactly one token after trimming and upper-casing; anything else (prose, punctuation, two words) escalates. */
export function parseVerdict(text: string | null | undefined): SmartVerdict {
  const token = (text ?? '').trim().toUpperCase();
  return token === 'APPROVE' || token === 'DENY' ? token : 'ESCALATE';
}
