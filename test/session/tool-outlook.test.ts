import { describe, expect, it } from 'vitest';
import { defaultConfig } from '../../src/config/schema.ts';
import { toolOutlook } from '../../src/session/job-preview.ts';

const tools = [
  { name: 'read_file', risk: 'read_only' as const },
  { name: 'write_file', risk: 'write' as const },
  { name: 'notify', risk: 'write' as const },
];
const outlook = async (policy: 'deny' | 'allow_safe', authorised: boolean, scope: readonly string[] | null = null) =>
  Object.fromEntries((await toolOutlook(defaultConfig({ permissions: { approval: { unattended_policy: policy } } }), tools, authorised, scope)).map((t) => [t.name, [t.tonight, t.rule]]));

describe('what a job may do tonight, per tool (grants show)', () => {
  it('under a human grant: reads and writes', async () => {
    expect(await outlook('deny', true)).toEqual({
      read_file: ['allowed', 'unattended.read_only'], write_file: ['allowed', 'unattended.cron_authorized'], notify: ['allowed', 'unattended.cron_authorized'],
    });
  });

  it('without a grant, policy deny: reads only', async () => {
    expect(await outlook('deny', false)).toEqual({
      read_file: ['allowed', 'unattended.read_only'], write_file: ['refused', 'unattended.policy_deny'], notify: ['refused', 'unattended.policy_deny'],
    });
  });

  it('without a grant, policy allow_safe: file writes inside the workspace, no other writes', async () => {
    expect(await outlook('allow_safe', false)).toEqual({
      read_file: ['allowed', 'unattended.read_only'], write_file: ['allowed inside the workspace', 'unattended.allow_safe.write'], notify: ['refused', 'unattended.allow_safe.not_file'],
    });
  });

  it('under a human grant, a tool its approval did not list is judged as without the grant', async () => {
    expect(await outlook('deny', true, ['read_file', 'write_file'])).toEqual({
      read_file: ['allowed', 'unattended.read_only'], write_file: ['allowed', 'unattended.cron_authorized'], notify: ['refused', 'unattended.outside_grant'],
    });
    expect(await outlook('allow_safe', true, ['notify'])).toEqual({
      read_file: ['allowed', 'unattended.read_only'], write_file: ['allowed inside the workspace', 'unattended.outside_grant.allow_safe'], notify: ['allowed', 'unattended.cron_authorized'],
    });
  });
});
