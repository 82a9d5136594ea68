import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { Decision } from '../../src/approval/decision.ts';
import { createApprovalGate, type ApprovalGate } from '../../src/approval/gate.ts';
import { emptyAllowlist } from '../../src/approval/ports.ts';
import { checkGuard } from '../../src/cli/commands/check-guard.ts';
import { defaultConfig, type Config } from '../../src/config/schema.ts';
import { createGuard, type StaticGuard } from '../../src/guard/index.ts';
import type { GuardVerdict } from '../../src/guard/types.ts';
import { buildContext } from '../../src/tools/context.ts';
import { catalogLookup } from '../../src/tools/facts.ts';
import { systemGatePorts, systemGuardDeps } from '../../src/util/system-ports.ts';
import { runCli } from '../support/cli.ts';
import { SHELL_CASE_TABLES } from '../guard/shell/cases.ts';

// `check command` and `check url` print the gate's own step 1: the same secrets (a config file reached through a
// symlink is a secret under both names), the same start directory and the same DNS limit.
const root = mkdtempSync(join(tmpdir(), 'check-parity-'));
const realConfig = join(root, 'real', 'echo.yaml');
const linkedConfig = join(root, 'etc', 'echo.yaml');
mkdirSync(join(root, 'real'));
mkdirSync(join(root, 'etc'));
mkdirSync(join(root, 'ws'));
writeFileSync(realConfig, `tools:\n  workspace: ${join(root, 'ws')}\ndaemon:\n  data_dir: ${join(root, 'data')}\ndatabase:\n  url: postgres://postgres@127.0.0.1:1/none\n`);
symlinkSync(realConfig, linkedConfig);
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** As the CLI loads it: read through the symlink, so `loaded_from` names the link. */
const config = (extra: Parameters<typeof defaultConfig>[0] = {}): Config => ({
  ...defaultConfig({ tools: { workspace: join(root, 'ws') }, daemon: { data_dir: join(root, 'data') }, ...extra }),
  loaded_from: linkedConfig,
});

function gateOf(cfg: Config): ApprovalGate {
  return createApprovalGate(cfg, {
    ...systemGatePorts, guard: createGuard(cfg, systemGuardDeps({ dns: false })), allowlist: emptyAllowlist, lookupTool: catalogLookup(cfg),
  }, { dryRun: true });
}

/** Step 1 of the gate as a verdict: refused there (deny), or passed on with its findings (ask) or none (allow). */
function stepOne(d: Decision): { decision: string; rules: string[] } {
  const rules = d.flagged.map((f) => f.rule);
  if (d.step === 0) throw new Error(`step 0 refused the call: ${d.rule}`);
  return { decision: d.step === 1 && d.outcome === 'deny' ? 'deny' : rules.length > 0 ? 'ask' : 'allow', rules };
}

const printed = (v: GuardVerdict) => ({ decision: v.decision, rules: v.findings.map((f) => f.rule) });
const attended = () => buildContext({ channel: 'cli', user_id: 'alice' });

describe('check command gives the gate\'s step-1 verdict', () => {
  const cfg = config();
  const gate = gateOf(cfg);
  let cli: StaticGuard;
  const same = async (command: string) => {
    cli ??= await checkGuard(cfg, { dns: false });
    const d = await gate.check({ tool: 'exec', args: { command } }, attended());
    return { cli: printed(await cli.inspectCommand(command)), gate: stepOne(d) };
  };

  it('a config file reached through a symlink is a secret under its real path too (the reproduction)', async () => {
    for (const command of [`cat ${realConfig}`, `cat ${linkedConfig}`, `cp ${realConfig} /tmp/x`]) {
      const { cli: c, gate: g } = await same(command);
      expect(c, command).toEqual(g);
      expect(c.decision, command).toBe('deny');
    }
  });

  for (const [table, cases] of Object.entries(SHELL_CASE_TABLES)) {
    it(`every case of ${table}`, async () => {
      expect(cases.length).toBeGreaterThan(0);
      const differ: string[] = [];
      for (const [command] of cases) {
        const { cli: c, gate: g } = await same(command);
        if (JSON.stringify(c) !== JSON.stringify(g)) differ.push(`${command}: check ${JSON.stringify(c)} gate ${JSON.stringify(g)}`);
      }
      expect(differ).toEqual([]);
    });
  }

  it('the CLI itself prints the gate\'s verdict for the symlinked config', async () => {
    const env = { ECHO_AGENT_CONFIG: linkedConfig };
    for (const command of [`cat ${realConfig}`, 'ls -la']) {
      const r = await runCli(['check', 'command', '--json', '--', command], { env });
      const out = JSON.parse(r.stdout) as { decision: string; findings: { rule: string }[] };
      const g = stepOne(await gate.check({ tool: 'exec', args: { command } }, attended()));
      expect({ decision: out.decision, rules: out.findings.map((f) => f.rule) }, `${command}: ${r.stderr}`).toEqual(g);
    }
  }, 60_000);
});

describe('check url gives the gate\'s step-1 verdict', () => {
  const URLS = [
    'http://127.0.0.1/', 'http://169.254.169.254/latest/meta-data/', 'http://[::1]:8080/', 'http://10.0.0.5/', 'http://0x7f.1/',
    'https://93.184.216.34/', 'http://localhost/', 'http://metadata.google.internal/', 'https://example.com/page',
    'ftp://example.com/', 'http://user:pw@example.com/', 'not a url', 'http://[fd00::1]/', 'http://100.64.0.1/',
  ];
  // deny: web_fetch is not offered at all (step 0)
  for (const policy of ['allow', 'restricted'] as const) {
    it(`a sample of URLs, network_policy ${policy}`, async () => {
      const cfg = config({ execution: { network_policy: policy, network_allowlist: ['example.com'] } });
      const gate = gateOf(cfg);
      const cli = await checkGuard(cfg, { dns: false });
      for (const url of URLS) {
        const c = await cli.inspectUrl(url);
        const g = stepOne(await gate.check({ tool: 'web_fetch', args: { url } }, attended()));
        expect({ decision: c.decision, rules: c.findings.map((f) => f.rule) }, url).toEqual(g);
      }
    });
  }

  it('waits for a name no longer than the gate does: the guard\'s deadline ends the lookup', async () => {
    const cfg = config();
    const never = () => new Promise<never>(() => {});
    const guard = createGuard(cfg, { ...systemGuardDeps(), lookup: never, deadline: () => AbortSignal.abort(new Error('the gate stopped waiting')) });
    const url = 'https://example.com/';
    const v = await guard.inspectUrl(url);
    expect(v.decision).toBe('ask');
    expect(v.rule).toMatch(/^ssrf\.dns\./);
    const inGate = await guard.inspect({ tool: 'web_fetch', args: { url } }, attended());
    expect(inGate.findings).toEqual(v.findings);
  });
});
