import { describe, expect, it } from 'vitest';
import type { Decision } from '../../src/approval/decision.ts';
import { createApprovalGate } from '../../src/approval/gate.ts';
import { systemGatePorts } from '../../src/util/system-ports.ts';
import { defaultConfig } from '../../src/config/schema.ts';
import type { SecurityProfile } from '../../src/policy/security-profiles.ts';
import { gatedCall } from '../../src/session/gated-call.ts';
import { execTool } from '../../src/tools/catalog/exec.ts';
import { buildContext } from '../../src/tools/context.ts';
import { catalogLookup } from '../../src/tools/facts.ts';
import { ToolRegistry } from '../../src/tools/registry.ts';
import { instantClock, MemoryAllowlist, RecordingApprover, ScriptedGuard } from '../support/gate-harness.ts';

function setup(securityProfile: SecurityProfile) {
  const config = defaultConfig();
  const recorded: Decision[] = [];
  const approver = new RecordingApprover();
  const gate = createApprovalGate(config, {
    ...systemGatePorts,
    guard: new ScriptedGuard(), allowlist: new MemoryAllowlist(), lookupTool: catalogLookup(config), smartReviewer: null,
    humanApprover: approver, clock: instantClock, sink: { record: async (d) => { recorded.push(d); } },
  }, { securityProfile });
  return { gate, recorded, approver, tools: new ToolRegistry([execTool(config)]) };
}

describe('a call with invalid arguments', () => {
  it('to a tool that is not available here is refused as unavailable, on the record, without describing its schema (I10)', async () => {
    const { gate, tools, recorded } = setup('daemon');
    const out = await gatedCall(gate, tools, { tool: 'exec', args: { command: 42 } }, buildContext({ channel: 'cli' }), 0);
    expect(out.decision).toMatchObject({ outcome: 'deny', step: 0, rule: 'security.daemon.capability' });
    expect(out.result).toMatchObject({ success: false, errorKind: 'denied' });
    expect(out.result.error).not.toMatch(/command/);
    expect(recorded).toEqual([out.decision]);
  });

  it('to an available tool is a validation error, recorded at step 0, that reaches neither the rest of the gate nor a person (I8)', async () => {
    const { gate, tools, recorded, approver } = setup('personal_cli');
    const out = await gatedCall(gate, tools, { tool: 'exec', args: { command: 42 } }, buildContext({ channel: 'cli' }), 0);
    expect(out.decision).toMatchObject({ outcome: 'deny', step: 0, rule: 'args.invalid', risk: 'exec', reason: expect.stringMatching(/^invalid arguments for exec: .*command/) });
    // the caller can put it right: no advice never to retry
    expect(out.decision.reason).not.toMatch(/retry/i);
    expect(out.result).toMatchObject({ success: false, errorKind: 'validation', error: out.decision.reason });
    expect(recorded).toEqual([out.decision]);
    expect(approver.asked).toEqual([]);
  });

  it('a tool\'s own pre-check runs only where a person could be asked: unattended, the gate refuses first and audits it', async () => {
    const config = defaultConfig();
    const recorded: Decision[] = [];
    const gate = createApprovalGate(config, {
      ...systemGatePorts,
      guard: new ScriptedGuard(), allowlist: new MemoryAllowlist(), lookupTool: catalogLookup(config), smartReviewer: null,
      humanApprover: new RecordingApprover(), clock: instantClock, sink: { record: async (d) => { recorded.push(d); } },
    }, { securityProfile: 'personal_cli' });
    let prechecked = 0;
    const tool = { ...execTool(config), precheck: async () => { prechecked++; return 'id: no job with id job_x'; } };
    const tools = new ToolRegistry([tool]);
    const out = await gatedCall(gate, tools, { tool: 'exec', args: { command: 'ls' } }, buildContext({ channel: 'cron', unattended: true }), 0);
    expect(prechecked).toBe(0);
    expect(out.decision).toMatchObject({ outcome: 'deny' });
    expect(recorded).toEqual([out.decision]);
    const attended = await gatedCall(gate, tools, { tool: 'exec', args: { command: 'ls' } }, buildContext({ channel: 'cli' }), 0);
    expect(prechecked).toBe(1);
    expect(attended.result).toMatchObject({ errorKind: 'validation', error: 'invalid arguments for exec: id: no job with id job_x' });
  });
});
