import { describe, expect, it } from 'vitest';
import type { RunGrant } from '../../src/approval/ports.ts';
import { buildContext } from '../../src/tools/context.ts';
import { ASK, harness } from '../support/gate-harness.ts';

// An audit line of a daemon run's decision says whose approval it relied on (or found no longer
// covering the call) by itself: an export read far from the database, or a decision whose run
// history was archived, still leads to the grant and from there to the person.
const unattended = (cronAuthorized: boolean) =>
  buildContext({ unattended: true, channel: 'cron', session_key: 'cron:job_x', user_id: 'owner', cron_authorized: cronAuthorized });
const grant = (over: Partial<RunGrant> = {}): RunGrant => ({ id: 'grt_alice', inForce: async () => true, covers: () => true, ...over });
const write = { tool: 'write_file', args: { path: 'out.txt', content: 'x' } };
const read = { tool: 'read_file', args: { path: 'a.txt' } };

const CASES: readonly { what: string; grant: RunGrant; call: { tool: string; args: Record<string, unknown> }; cronAuthorized?: boolean; policy?: 'deny' | 'allow_safe'; flagged?: boolean; rule: string; names: boolean }[] = [
  { what: 'a write the live grant allows', grant: grant(), call: write, rule: 'unattended.cron_authorized', names: true },
  { what: 'a write refused because the grant was revoked mid-run', grant: grant({ inForce: async () => false }), call: write, rule: 'unattended.grant_withdrawn', names: true },
  { what: 'a write allow_safe passes after the grant was revoked', grant: grant({ inForce: async () => false }), call: write, policy: 'allow_safe', rule: 'unattended.grant_withdrawn.allow_safe', names: true },
  { what: 'a tool the approval did not list', grant: grant({ covers: () => false }), call: write, rule: 'unattended.outside_grant', names: true },
  { what: 'a read, which needs no grant', grant: grant(), call: read, rule: 'unattended.read_only', names: false },
  { what: 'a flagged write, which no grant passes', grant: grant(), call: write, flagged: true, rule: 'unattended.flagged', names: false },
  { what: 'a run without cron_authorized', grant: grant(), call: write, cronAuthorized: false, rule: 'unattended.policy_deny', names: false },
];

describe('step 4 names the grant a decision turned on', () => {
  it.each(CASES)('$what: $rule', async (c) => {
    const h = harness({ permissions: { approval: { unattended_policy: c.policy ?? 'deny' } } }, { grant: c.grant });
    if (c.flagged) h.guard.findings = [ASK];
    const d = await h.gate.check(c.call, unattended(c.cronAuthorized ?? true));
    expect(d).toMatchObject({ step: 4, rule: c.rule });
    if (c.names) expect(d.grant_id).toBe('grt_alice');
    else expect(d).not.toHaveProperty('grant_id');
  });

  it('a run grant without an id (an older caller) still decides, and names nothing', async () => {
    const h = harness({}, { grant: { inForce: async () => true, covers: () => true } });
    const d = await h.gate.check(write, unattended(true));
    expect(d).toMatchObject({ outcome: 'allow', rule: 'unattended.cron_authorized' });
    expect(d).not.toHaveProperty('grant_id');
  });
});
