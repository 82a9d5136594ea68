import { describe, expect, it } from 'vitest';
import { unattendedRunContext, newRunIds } from '../../src/daemon/run-context.ts';
import { buildContext, nestedContext, NO_TOOLS, type ToolExecutionContext } from '../../src/tools/context.ts';
import { harness } from '../support/gate-harness.ts';

/**
 * I5: a nested execution inherits unattended and cron_authorized from its parent and can never raise
 * them, nor the parent's tool set; it is a nested execution (parent_execution_id) all the way down.
 */
function parents(): ToolExecutionContext[] {
  const out: ToolExecutionContext[] = [];
  for (const unattended of [false, true]) {
    for (const cron_authorized of [false, true]) {
      for (const approval_source of ['auto', 'human'] as const) {
        for (const allowed_tools of [[], ['read_file'], ['read_file', 'write_file']]) {
          for (const channel of ['cli', 'telegram', 'cron']) {
            out.push(buildContext({ unattended, cron_authorized, approval_source, allowed_tools, channel, user_id: 'alice', tool: 'delegate_task', params: { prompt: 'p' } }));
          }
        }
      }
    }
  }
  return out;
}

describe('I5: a nested context never raises what its parent has', () => {
  it('unattended and cron_authorized are exactly the parent\'s, whoever approved the call that nested it', () => {
    for (const parent of parents()) {
      for (const requested of [undefined, ['read_file'], ['exec', 'cronjob'], ['write_file', 'exec']]) {
        const child = nestedContext(parent, requested ? { allowed_tools: requested } : {});
        const grandchild = nestedContext(child, { allowed_tools: ['exec', 'write_file', 'read_file'] });
        for (const [c, above] of [[child, parent], [grandchild, child]] as const) {
          const where = JSON.stringify({ unattended: parent.unattended, cron: parent.cron_authorized, src: parent.approval_source, tools: parent.allowed_tools, requested });
          expect(c.unattended, where).toBe(above.unattended);
          expect(c.cron_authorized, where).toBe(above.cron_authorized);
          // a person's answer covered the parent's call, not what the sub-agent will do
          expect(c.approval_source, where).toBe('auto');
          expect(c.parent_execution_id, where).toBe(above.execution_id);
          expect(c.execution_id, where).not.toBe(above.execution_id);
          // never more tools than the parent: a restricted parent's child is restricted to a subset of them
          if (above.allowed_tools.length > 0) {
            expect(c.allowed_tools.length, where).toBeGreaterThan(0);
            for (const t of c.allowed_tools) expect([...above.allowed_tools, NO_TOOLS], where).toContain(t);
          }
        }
      }
    }
  });

  it('a sub-agent of an attended, human-approved delegate_task stays unauthorised and cannot reach a human', async () => {
    const parent = buildContext({ channel: 'cli', user_id: 'alice', approval_source: 'human' });
    const child = nestedContext(parent);
    expect(child.cron_authorized).toBe(false);
    for (const mode of ['off', 'smart', 'strict'] as const) {
      const h = harness({ permissions: { approval: { mode } } });
      for (const tool of ['exec', 'cronjob']) {
        const d = await h.gate.check({ tool, args: { command: 'ls', action: 'list' } }, child);
        if (d.outcome === 'allow') expect(d.approval_source).toBe('auto');
        expect(h.approver.asked).toHaveLength(0);
      }
      const cron = await h.gate.check({ tool: 'cronjob', args: { action: 'list' } }, child);
      expect(cron).toMatchObject({ outcome: 'deny', step: 11, rule: 'approval.nested' });
    }
  });
});

describe('I5: a child job\'s run (task, workflow, spawn_task) is a nested, unattended execution', () => {
  it('carries the creating execution as its parent, and only the cron_authorized its grant check gave it', () => {
    for (const cronAuthorized of [false, true]) {
      const job = { id: 'job_child1', owner: 'alice', tools: ['read_file'], parent_execution_id: 'exec-of-the-creating-run' };
      const ctx = unattendedRunContext(job, cronAuthorized, 1, newRunIds('run_child1'));
      expect(ctx).toMatchObject({
        unattended: true, cron_authorized: cronAuthorized, approval_source: 'auto', channel: 'cron',
        parent_execution_id: 'exec-of-the-creating-run', allowed_tools: ['read_file'], session_key: 'cron:job_child1',
      });
    }
    const top = unattendedRunContext({ id: 'job_top', owner: 'alice', tools: [] }, false, 1, newRunIds('run_top'));
    expect(top.parent_execution_id).toBeNull();
  });
});
