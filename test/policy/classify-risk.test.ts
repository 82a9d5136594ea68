import { describe, expect, it } from 'vitest';
import { classifyRisk } from '../../src/policy/classify-risk.ts';
import { RISK_LEVELS, severity, strictest, type RiskLevel } from '../../src/policy/risk.ts';
import { CATALOG } from '../../src/tools/catalog-table.ts';

describe('risk classification (I7)', () => {
  it('orders risk levels read_only < write < exec < dangerous', () => {
    expect(RISK_LEVELS.map(severity)).toEqual([0, 1, 2, 3]);
    expect(strictest('write', 'read_only', 'exec')).toBe('exec');
  });

  it('treats a tool declaring exec that the static map lists as write as EXEC', () => {
    expect(classifyRisk({ name: 'write_file', riskLevel: 'exec' })).toBe('exec');
  });

  it('treats an unknown (MCP) tool declaring exec as EXEC, not the write default', () => {
    expect(classifyRisk({ name: 'mcp__shell', riskLevel: 'exec', capabilities: ['mcp.call'] })).toBe('exec');
  });

  it('takes an unknown (MCP) tool at its declared read_only: the write default is only for no declaration', () => {
    expect(classifyRisk({ name: 'mcp__weather', riskLevel: 'read_only', capabilities: ['mcp.call'] })).toBe('read_only');
  });

  it('gives an unknown tool without declaration the write default', () => {
    expect(classifyRisk({ name: 'mcp__thing' })).toBe('write');
  });

  it.each(CATALOG.map((t) => [t.name, t.risk] as [string, RiskLevel]))('never lowers %s below its static %s', (name, risk) => {
    for (const declared of RISK_LEVELS) {
      expect(severity(classifyRisk({ name, riskLevel: declared }))).toBeGreaterThanOrEqual(severity(risk));
    }
  });

  it.each([
    ['process.exec', 'exec'], ['code.exec', 'exec'], ['process.manage', 'exec'],
    ['scheduler.write', 'dangerous'], ['skill.install', 'dangerous'],
  ] as const)('raises a tool declaring %s to at least %s', (cap, floor) => {
    expect(classifyRisk({ name: 'custom', riskLevel: 'read_only', capabilities: [cap] })).toBe(floor);
  });

  it('raises delegate_task to dangerous when the sub-agent is handed cronjob', () => {
    expect(classifyRisk({ name: 'delegate_task' }, { tools: ['read_file'] })).toBe('exec');
    expect(classifyRisk({ name: 'delegate_task' }, { tools: ['read_file', 'cronjob'] })).toBe('dangerous');
  });
});
