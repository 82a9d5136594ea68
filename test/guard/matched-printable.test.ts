import { describe, expect, it } from 'vitest';
import { defaultConfig } from '../../src/config/schema.ts';
import { createGuard } from '../../src/guard/index.ts';
import { systemGuardDeps } from '../../src/util/system-ports.ts';
import { buildContext } from '../../src/tools/context.ts';

const UNPRINTABLE = /[\u0000-\u001f\u007f-\u009f\u2028-\u202e]/;
const FORGED = '\u001b[2K\rFORGED\u202e';

describe('what a finding quotes of the call', () => {
  it('has control, separator and bidi characters escaped, whichever guard found it', async () => {
    const guard = createGuard(defaultConfig(), systemGuardDeps({ dns: false }));
    const ctx = buildContext({ channel: 'cli' });
    const verdicts = await Promise.all([
      guard.inspect({ tool: 'patch', args: { diff: `--- /etc/x\n+++ /etc/x${FORGED}\n` } }, ctx),
      guard.inspect({ tool: 'exec', args: { command: `rm -rf / ${FORGED}` } }, ctx),
      guard.inspect({ tool: 'web_fetch', args: { url: `http://169.254.169.254/${FORGED}` } }, ctx),
    ]);
    for (const v of verdicts) {
      expect(v.findings.length).toBeGreaterThan(0);
      for (const f of v.findings) expect(f.matched).not.toMatch(UNPRINTABLE);
    }
    expect(verdicts[0]!.findings[0]!.matched).toContain('\\u001b[2K\\u000dFORGED');
  });
});
