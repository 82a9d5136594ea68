import type { WriteScope } from '../guard/types.ts';
import type { RiskLevel } from '../policy/risk.ts';
import type { RuleId } from '../policy/rules.ts';

export interface UnattendedFacts {
  readonly risk: RiskLevel;
  readonly flagged: boolean;
  readonly cronAuthorized: boolean;
  /** Whether the authorisation the run started with is still in force; asked only when a call relies on it. */
  readonly grantInForce?: () => Promise<boolean>;
  /** Whether the human approval behind the grant listed this tool; a grant covers only what the person was shown. */
  readonly coveredByGrant?: boolean;
  readonly policy: 'deny' | 'allow_safe';
  /** Where the call writes; asked only when the answer turns on it (allow_safe, a write). */
  readonly writeScope: () => Promise<WriteScope>;
}

export interface UnattendedVerdict {
  readonly outcome: 'allow' | 'deny';
  readonly rule: RuleId;
  /** The verdict turned on the run's grant (relied on it, or found it not covering the call): its record names the grant. */
  readonly grantJudged?: true;
}

/**
 * Gate step 4 (SPEC §5): every unattended call ends here (I12). Pure but for
 * the write scope, which the caller supplies; the gate and `grants show` share it.
 */
export async function unattendedVerdict(f: UnattendedFacts): Promise<UnattendedVerdict> {
  if (f.risk === 'read_only' && !f.flagged) return { outcome: 'allow', rule: 'unattended.read_only' };
  if (f.risk === 'dangerous') return { outcome: 'deny', rule: 'unattended.dangerous' };
  if (f.flagged) return { outcome: 'deny', rule: 'unattended.flagged' };
  // a tool the configuration offers only since the approval (or never listed in it): the person did not authorise it
  if (f.cronAuthorized && f.coveredByGrant === false) return judgedWithoutGrant(f, 'unattended.outside_grant');
  if (f.cronAuthorized) {
    // a revocation reaches a run already under way at its next call, not only the next run:
    // from then on the run is judged as one without a grant, and a refusal says why
    if (!f.grantInForce || await f.grantInForce()) return { outcome: 'allow', rule: 'unattended.cron_authorized', grantJudged: true };
    return judgedWithoutGrant(f, 'unattended.grant_withdrawn');
  }
  if (f.policy === 'deny') return { outcome: 'deny', rule: 'unattended.policy_deny' };
  if (f.risk === 'exec') return { outcome: 'deny', rule: 'unattended.allow_safe.exec' };
  const scope = await f.writeScope();
  if (scope === 'not_files') return { outcome: 'deny', rule: 'unattended.allow_safe.not_file' };
  return scope === 'workspace' ? { outcome: 'allow', rule: 'unattended.allow_safe.write' } : { outcome: 'deny', rule: 'unattended.allow_safe.path' };
}

/**
 * Step 4 for the friendliest call of a tool with this (argument-free) risk: no finding and, for a tool that
 * writes files, a write inside the workspace. Arguments only raise a risk (I7), and findings and other targets
 * only refuse, so a tool refused here is refused whatever it is asked: `grants show` lists it as refused
 * tonight, and an unattended run's model is not offered it.
 */
export function friendliestVerdict(f: Pick<UnattendedFacts, 'risk' | 'cronAuthorized' | 'coveredByGrant' | 'policy'> & { readonly writesFiles: boolean }): Promise<UnattendedVerdict> {
  const { writesFiles, ...facts } = f;
  return unattendedVerdict({ ...facts, flagged: false, writeScope: async () => (writesFiles ? 'workspace' : 'not_files') });
}

/**
 * The call judged as one without a grant, under a rule that says why the grant does not count:
 * either way the record names it, so an admin reading it does not think the grant still counts.
 */
async function judgedWithoutGrant(f: UnattendedFacts, why: 'unattended.outside_grant' | 'unattended.grant_withdrawn'): Promise<UnattendedVerdict> {
  const without = await unattendedVerdict({ ...f, cronAuthorized: false });
  return without.outcome === 'allow' ? { outcome: 'allow', rule: `${why}.allow_safe`, grantJudged: true } : { outcome: 'deny', rule: why, grantJudged: true };
}
