import { describe, expect, it } from 'vitest';
import { buildContext, nestedContext } from '../../src/tools/context.ts';
import { HARD, harness, RecordingReviewer } from '../support/gate-harness.ts';

/**
 * I9: a hard-block guard match is refused at step 1 and nothing overrides it: not who the sender is
 * (an admin, an elevated sender), not the mode, not a standing policy, an allowlist record, the smart
 * reviewer, a grant, or a person willing to say "always".
 */
const SENDERS: readonly [string, Parameters<typeof buildContext>[0]][] = [
  ['an ordinary sender at the terminal', { channel: 'cli', user_id: 'bob' }],
  ['an admin user', { channel: 'cli', user_id: 'root-admin' }],
  ['an elevated sender on a trusted channel', { channel: 'telegram', user_id: 'tg:42' }],
  ['an admin user of an unattended, cron_authorized run', { channel: 'cron', user_id: 'root-admin', unattended: true, cron_authorized: true, session_key: 'cron:job_x' }],
];

describe('I9: a hard block is refused at step 1 whoever asks and whatever the configuration says', () => {
  for (const mode of ['off', 'smart', 'strict'] as const) {
    for (const host of ['sandbox', 'local'] as const) {
      it(`mode ${mode}, exec host ${host}`, async () => {
        for (const [who, ctxInput] of SENDERS) {
          for (const nested of [false, true]) {
            const h = harness({
              tools: { exec: { host, security: 'full' } },
              permissions: {
                admin_users: ['root-admin'],
                elevated: { enabled: true, allow_from: { '*': ['*'], telegram: ['tg:42'] } },
                approval: { mode, auto_approve: ['exec'], cli_auto_approve: true, trusted_channels: ['telegram', 'cli', 'cron'], unattended_policy: 'allow_safe' },
              },
            }, { reviewer: new RecordingReviewer('APPROVE') });
            h.approver.answer = 'always';
            h.guard.findings = [HARD];
            h.guard.commands = [{ program: 'rm' }];
            await h.allowlist.add({ tool: 'exec', scope: 'rm', created_by: 'alice', reason: 'always' });
            const base = buildContext(ctxInput);
            const ctx = nested ? nestedContext(base) : base;
            const d = await h.gate.check({ tool: 'exec', args: { command: 'rm -rf /' } }, ctx);
            expect(d, `${who}${nested ? ' (nested)' : ''}`).toMatchObject({ outcome: 'deny', step: 1, rule: HARD.rule });
            expect(h.approver.asked).toHaveLength(0);
            expect(h.reviewer.calls).toBe(0);
          }
        }
      });
    }
  }
});
