import { describe, expect, it } from 'vitest';
import { liveToolFacts } from '../../src/tools/facts.ts';
import type { Tool } from '../../src/tools/types.ts';
import { CATALOG } from '../../src/tools/catalog-table.ts';

const tool = (name: string, capabilities: Tool['capabilities'] = []): Tool => ({
  name, description: 'x', parameters: { type: 'object' }, timeoutSeconds: 5, maxRetries: 0, streamCapable: false, capabilities, riskLevel: 'write',
  isReady: () => true, readinessDetail: () => [true, 'ready'], execute: async () => ({ success: true, output: null }),
});

describe('policy facts of live tools', () => {
  it('an external (MCP-style) tool gets capability mcp.call beside what it declares (SPEC §3)', () => {
    expect(liveToolFacts(tool('mcp__weather', ['network.outbound'])).capabilities).toEqual(['mcp.call', 'network.outbound']);
  });

  it.each(CATALOG.map((e) => e.name))('catalog tool %s keeps exactly its catalog capabilities, without mcp.call', (name) => {
    const facts = liveToolFacts(tool(name));
    expect(facts.capabilities).toEqual(CATALOG.find((e) => e.name === name)!.capabilities);
    expect(facts.capabilities).not.toContain('mcp.call');
  });
});
