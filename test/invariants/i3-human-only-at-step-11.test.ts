import { describe, expect, it } from 'vitest';
import type { Decision } from '../../src/approval/decision.ts';
import { createApprovalGate } from '../../src/approval/gate.ts';
import { systemGatePorts } from '../../src/util/system-ports.ts';
import { defaultConfig, type ConfigInput } from '../../src/config/schema.ts';
import { gatedCall } from '../../src/session/gated-call.ts';
import { defineTool } from '../../src/tools/define.ts';
import { buildContext, type ToolExecutionContext } from '../../src/tools/context.ts';
import { catalogLookup } from '../../src/tools/facts.ts';
import { ToolRegistry } from '../../src/tools/registry.ts';
import { ok, type ExecuteOptions } from '../../src/tools/types.ts';
import { harness, instantClock, MemoryAllowlist, RecordingApprover, RecordingReviewer, ScriptedGuard } from '../support/gate-harness.ts';

/**
 * I3: approval_source "human" only when a person answered this very call at step 11. Each standing
 * policy (steps 6-10) is "auto", even when the caller's context says a human approved something earlier.
 */
const attended = (over: Parameters<typeof buildContext>[0] = {}) =>
  buildContext({ channel: 'telegram', user_id: 'alice', approval_source: 'human', ...over });

const exec = { tool: 'exec', args: { command: 'git status' } } as const;

describe('I3: every policy pass before step 11 is "auto"', () => {
  const cases: readonly [number, string, ConfigInput, Parameters<typeof buildContext>[0], 'APPROVE' | 'ESCALATE', boolean][] = [
    [6, 'approval.auto_approve', { permissions: { approval: { auto_approve: ['exec'] } } }, {}, 'ESCALATE', false],
    [7, 'approval.cli_auto_approve', { permissions: { approval: { cli_auto_approve: true } } }, { channel: 'cli' }, 'ESCALATE', false],
    [8, 'approval.trusted_channel', { permissions: { approval: { trusted_channels: ['telegram'] } } }, {}, 'ESCALATE', false],
    [9, 'approval.allowlist', {}, {}, 'ESCALATE', true],
    [10, 'approval.mode_off', { permissions: { approval: { mode: 'off' } } }, {}, 'ESCALATE', false],
    [10, 'approval.smart.approve', {}, {}, 'APPROVE', false],
  ];

  it.each(cases)('step %i (%s) allows with approval_source "auto" and asks no one', async (step, rule, cfg, ctxOver, verdict, record) => {
    const h = harness(cfg, { reviewer: new RecordingReviewer(verdict) });
    h.guard.commands = [{ program: 'git', subcommand: 'status' }];
    if (record) await h.allowlist.add({ tool: 'exec', scope: 'git status', created_by: 'alice', reason: 'always' });
    const d = await h.gate.check(exec, attended(ctxOver));
    expect(d).toMatchObject({ outcome: 'allow', step, rule, approval_source: 'auto' });
    expect(h.approver.asked).toHaveLength(0);
  });

  it('only step 11 with a person\'s answer is "human"', async () => {
    const h = harness({}, { reviewer: new RecordingReviewer('ESCALATE') });
    h.guard.commands = [{ program: 'git', subcommand: 'status' }];
    const d = await h.gate.check(exec, attended({ approval_source: 'auto' }));
    expect(d).toMatchObject({ outcome: 'allow', step: 11, approval_source: 'human', approver: 'alice' });
  });
});

describe('I3: what the tool is told about its approval', () => {
  /** An exec stand-in that records the context and approval it was run with (runs nothing). */
  function probe() {
    const config = defaultConfig();
    const seen: { ctx: ToolExecutionContext | undefined; approval: ExecuteOptions['approval'] }[] = [];
    const tool = defineTool('exec', config, {
      async execute(_params, ctx, opts) {
        seen.push({ ctx, approval: opts.approval });
        return ok({});
      },
    });
    return { config, seen, tools: new ToolRegistry([tool]) };
  }

  function gate(config: ReturnType<typeof defaultConfig>, allowlist: MemoryAllowlist, approver: RecordingApprover) {
    const guard = new ScriptedGuard();
    guard.commands = [{ program: 'git', subcommand: 'status' }];
    const recorded: Decision[] = [];
    return {
      recorded,
      gate: createApprovalGate(config, {
        ...systemGatePorts,
        guard, allowlist, lookupTool: catalogLookup(config), smartReviewer: null, humanApprover: approver, clock: instantClock,
        sink: { record: async (d) => { recorded.push(d); } },
      }),
    };
  }

  it('a call passed by a persistent approval record runs as "auto", though the record names the person who made it', async () => {
    const { config, seen, tools } = probe();
    const allowlist = new MemoryAllowlist();
    await allowlist.add({ tool: 'exec', scope: 'git status', created_by: 'alice', reason: 'always' });
    const approver = new RecordingApprover('once');
    const { gate: g } = gate(config, allowlist, approver);
    const out = await gatedCall(g, tools, { ...exec, args: { ...exec.args } }, buildContext({ channel: 'telegram', user_id: 'bob' }), 0);
    expect(out.decision).toMatchObject({ outcome: 'allow', step: 9, approval_source: 'auto', approver: 'alice' });
    expect(approver.asked).toHaveLength(0);
    expect(seen).toHaveLength(1);
    expect(seen[0]!.ctx?.approval_source).toBe('auto');
    expect(seen[0]!.approval?.approval_source).toBe('auto');
  });

  it('a call a person answered "once" runs as "human"', async () => {
    const { config, seen, tools } = probe();
    const { gate: g } = gate(config, new MemoryAllowlist(), new RecordingApprover('once'));
    const out = await gatedCall(g, tools, { ...exec, args: { ...exec.args } }, buildContext({ channel: 'telegram', user_id: 'bob' }), 0);
    expect(out.decision).toMatchObject({ outcome: 'allow', step: 11, approval_source: 'human' });
    expect(seen[0]!.ctx?.approval_source).toBe('human');
    expect(seen[0]!.approval).toMatchObject({ approval_source: 'human', approver: 'alice' });
  });
});
