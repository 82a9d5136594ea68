import { describe, expect, it } from 'vitest';
import { SHELL_RULE_BY_ID, checkCommand } from '../../../src/guard/shell/index.ts';
import { SHELL_CASE_TABLES } from './cases.ts';

describe.each(Object.entries(SHELL_CASE_TABLES))('shell guard verdicts: %s', (_theme, cases) => {
  it.each(cases.map((c) => [JSON.stringify(c[0]), ...c] as const))('%s → %s', async (_label, command, decision, rule) => {
    const verdict = await checkCommand(command);
    expect(verdict.decision, JSON.stringify(verdict.findings)).toBe(decision);
    if (rule) expect(verdict.findings.map((f) => f.rule)).toContain(rule);
    else expect(verdict.findings).toEqual([]);
    for (const f of verdict.findings) {
      expect(SHELL_RULE_BY_ID.get(f.rule)?.severity).toBe(f.severity);
      expect(f.matched.length).toBeGreaterThan(0);
    }
  });
});
