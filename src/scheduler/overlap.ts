/**
 * Overlap policy: what a run does when other runs of the same job are running or waiting.
 * `state` counts the job's other runs (not the one being decided): `running` have started,
 * `queued` are waiting to start (queued or retrying).
 */

export type OverlapPolicy = 'skip' | 'buffer_one' | 'allow' | 'cancel_other';
export type OverlapAction = 'start' | 'skip' | 'queue' | 'cancel_running_then_start';

export interface OverlapState {
  readonly running: number;
  readonly queued: number;
}

export interface OverlapRule {
  readonly id: string;
  /** '*' matches every policy. */
  readonly policy: OverlapPolicy | '*';
  /** Inclusive bounds on the other active runs (running + queued). */
  readonly active: readonly [min: number, max: number];
  readonly action: OverlapAction;
  readonly reason: string;
}

export interface OverlapDecision {
  readonly action: OverlapAction;
  readonly rule: string;
  readonly reason: string;
}

/** First match wins. */
export const OVERLAP_RULES: readonly OverlapRule[] = [
  { id: 'overlap.allow', policy: 'allow', active: [0, Infinity], action: 'start',
    reason: 'Overlap policy allow: runs of this job may overlap.' },
  { id: 'overlap.idle', policy: '*', active: [0, 0], action: 'start',
    reason: 'No other run of this job is running or waiting.' },
  { id: 'overlap.skip.busy', policy: 'skip', active: [1, Infinity], action: 'skip',
    reason: 'Overlap policy skip: another run of this job is running or waiting, so this one does not run.' },
  { id: 'overlap.buffer_one.wait', policy: 'buffer_one', active: [1, 1], action: 'queue',
    reason: 'Overlap policy buffer_one: this run waits until the current one has finished.' },
  { id: 'overlap.buffer_one.full', policy: 'buffer_one', active: [2, Infinity], action: 'skip',
    reason: 'Overlap policy buffer_one: a run is already waiting, so this one does not run.' },
  { id: 'overlap.cancel_other.replace', policy: 'cancel_other', active: [1, Infinity], action: 'cancel_running_then_start',
    reason: 'Overlap policy cancel_other: the other runs of this job are cancelled and this one starts.' },
];

function count(name: string, v: number): void {
  if (!Number.isInteger(v) || v < 0) throw new RangeError(`overlap state ${name} must be a non-negative integer, got ${v}`);
}

export const OVERLAP_POLICIES: readonly OverlapPolicy[] = ['skip', 'buffer_one', 'allow', 'cancel_other'];

export function decideOverlap(policy: OverlapPolicy, state: OverlapState): OverlapDecision {
  if (!OVERLAP_POLICIES.includes(policy)) throw new RangeError(`unknown overlap policy ${JSON.stringify(policy)}`);
  count('running', state.running);
  count('queued', state.queued);
  const active = state.running + state.queued;
  const rule = OVERLAP_RULES.find((r) => (r.policy === '*' || r.policy === policy) && active >= r.active[0] && active <= r.active[1]);
  if (!rule) throw new Error(`no overlap rule for ${policy} with ${active} active runs`); // the table covers every case
  return { action: rule.action, rule: rule.id, reason: rule.reason };
}
