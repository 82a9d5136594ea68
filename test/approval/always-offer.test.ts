import { describe, expect, it } from 'vitest';
import { ALWAYS_RULES, alwaysOffer, noAlwaysReason } from '../../src/approval/scopes.ts';
import { approvalPromptLines } from '../../src/session/tty-approver.ts';
import { RISK_LEVELS } from '../../src/policy/risk.ts';
import { buildContext } from '../../src/tools/context.ts';
import { ASK, harness } from '../support/gate-harness.ts';

describe('alwaysOffer', () => {
  // every combination, the precedence spelled out once: dangerous, then flagged, then no scope
  const cases = RISK_LEVELS.flatMap((risk) => [[], [ASK]].flatMap((flags) => [[], ['npm test']].map((scopes) => ({ risk, flags, scopes }))));
  it.each(cases)('%j', ({ risk, flags, scopes }) => {
    const offer = alwaysOffer(risk, flags, scopes);
    const expected = risk === 'dangerous' ? 'always.dangerous' : flags.length > 0 ? 'always.flagged' : scopes.length === 0 ? 'always.no_scope' : null;
    if (expected === null) expect(offer).toEqual({ offered: true });
    else expect(offer).toEqual({ offered: false, rule: expected, reason: ALWAYS_RULES[expected] });
  });
});

describe('the gate offers "always" exactly when alwaysOffer does, and the screen says alwaysOffer\'s reason', () => {
  const attended = buildContext({ channel: 'telegram', user_id: 'u1' });
  const scenarios: { name: string; call: { tool: string; args: Record<string, unknown> }; commands?: { program: string; subcommand?: string }[]; flagged?: boolean }[] = [
    { name: 'a scoped command', call: { tool: 'exec', args: { command: 'npm test' } }, commands: [{ program: 'npm', subcommand: 'test' }] },
    { name: 'a flagged command', call: { tool: 'exec', args: { command: 'rm -r build' } }, commands: [{ program: 'rm' }], flagged: true },
    { name: 'a line with no parsed command', call: { tool: 'exec', args: { command: '$(computed)' } }, commands: [] },
    { name: 'a dangerous tool', call: { tool: 'cronjob', args: { action: 'list' } } },
  ];
  type Scenario = (typeof scenarios)[number];
  /** The request the gate put to the person for this call, and alwaysOffer's verdict on what it carries. */
  async function asked({ call, commands, flagged }: Scenario) {
    const h = harness();
    if (commands) h.guard.commands = commands;
    if (flagged) h.guard.findings = [ASK];
    await h.gate.check(call, attended);
    const req = h.approver.asked[0]!;
    return { req, offer: alwaysOffer(req.risk, req.flags, req.scopes) };
  }

  it.each(scenarios)('$name', async (scenario) => {
    const { req, offer } = await asked(scenario);
    expect(req.allow_always).toBe(offer.offered);
    const shown = (await approvalPromptLines(req)).join('\n');
    if (offer.offered) expect(shown).toContain('"always" would also allow');
    else {
      expect(shown).toContain(`"always" is not offered: ${offer.reason}`);
      expect(noAlwaysReason(req)).toBe(offer.reason);
    }
  });

  it('the scenarios reach every reason', async () => {
    const rules = await Promise.all(scenarios.map(async (s) => {
      const { offer } = await asked(s);
      return offer.offered ? 'offered' : offer.rule;
    }));
    expect([...new Set(rules)].sort()).toEqual(['offered', ...Object.keys(ALWAYS_RULES)].sort());
  });
});
