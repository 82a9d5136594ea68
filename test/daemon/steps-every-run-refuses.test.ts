import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ApprovalAnswer, ApprovalRequest, HumanApprover } from '../../src/approval/ports.ts';
import { defaultConfig } from '../../src/config/schema.ts';
import { builtinTools } from '../../src/daemon/daemon-tools.ts';
import { createGuard } from '../../src/guard/index.ts';
import { systemGuardDeps } from '../../src/util/system-ports.ts';
import { attendedCall } from '../../src/session/attended-call.ts';
import { listJobs } from '../../src/store/jobs.ts';
import { buildContext } from '../../src/tools/context.ts';
import { useTestDatabase } from '../support/db.ts';

const database = useTestDatabase();
const workspace = mkdtempSync(join(tmpdir(), 'echo-never-'));
const config = defaultConfig({
  tools: { workspace, restrict_to_workspace: true },
  notify: { targets: { ops: { url: 'https://hooks.example.com/ops' } } },
});

class HumanAtTerminal implements HumanApprover {
  asked: ApprovalRequest[] = [];
  async ask(req: ApprovalRequest): Promise<ApprovalAnswer> {
    this.asked.push(req);
    return { answer: 'once', approver: 'alice', request_id: req.request_id, call_hash: req.call_hash };
  }
}

type Step = { tool: string; args: Record<string, unknown> };

async function create(name: string, payload: Record<string, unknown>, options: Record<string, unknown> = {}) {
  const db = database().db;
  const human = new HumanAtTerminal();
  const deps = { db, config, tools: builtinTools(config, { db }), guard: createGuard(config, systemGuardDeps({ dns: false })), approver: human };
  const out = await attendedCall(deps, { tool: 'cronjob', args: { action: 'create', name, schedule: '0 3 * * *', payload, options } },
    buildContext({ channel: 'cli', user_id: 'alice', session_key: 'cli:alice' }));
  return { out, human };
}

const ok: Step = { tool: 'list_dir', args: { path: '.' } };

describe('a job whose steps every unattended run would refuse is refused before anyone is asked', () => {
  const cases: [string, Step, RegExp][] = [
    ['a hard block of the guard (step 1 in every context)', { tool: 'read_file', args: { path: '/etc/shadow' } },
      /payload\.steps\[1\] \(read_file\): refused by the guard in every context \(path\.[a-z_.]+: /],
    ['a write outside the workspace under restrict_to_workspace', { tool: 'write_file', args: { path: '../../outside.txt', content: 'x' } },
      /payload\.steps\[1\] \(write_file\): refused by the guard in every context \(path\.outside_workspace: /],
    ['a flagged URL, which no run can have approved', { tool: 'web_fetch', args: { url: 'http://169.254.169.254/latest' } },
      /payload\.steps\[1\] \(web_fetch\): (flagged by the guard \(ssrf\.[a-z_.]+\), and a flagged call cannot run unattended|refused by the guard in every context \(ssrf\.)/],
    ['a notify target that is not configured', { tool: 'notify', args: { target: 'nope', text: 'hi' } },
      /payload\.steps\[1\]\.args\.target: "nope" is not a configured notify target \(known: ops\)/],
  ];
  for (const [what, step, message] of cases) {
    it(what, async () => {
      const name = `never-${step.tool}`;
      const { out, human } = await create(name, { kind: 'steps', steps: [ok, step] });
      expect(out.result.success).toBe(false);
      expect(out.result.error).toMatch(message);
      expect(human.asked).toHaveLength(0);
      expect((await listJobs(database().db)).some((j) => j.name === name)).toBe(false);
    });
  }

  it('a tools list naming a tool no daemon run can use, on an agent job too', async () => {
    const { out, human } = await create('agent-with-exec', { kind: 'agent', prompt: 'tidy up' }, { tools: ['read_file', 'exec', 'cronjob'] });
    expect(out.result.success).toBe(false);
    expect(out.result.error).toMatch(/tools\[1\] \(exec\): no daemon run can use this tool \(security\.daemon\.capability: .*\); remove it from tools/);
    expect(out.result.error).toMatch(/tools\[2\] \(cronjob\): no daemon run can use this tool \(unattended\.dangerous: /);
    expect(human.asked).toHaveLength(0);
  });

  it('steps the guard finds nothing in, and a configured target, are asked about as before', async () => {
    const { out, human } = await create('fine', { kind: 'steps', steps: [ok, { tool: 'write_file', args: { path: 'out/report.txt', content: 'x' } }, { tool: 'notify', args: { target: 'ops', text: 'done' } }] });
    expect(out.result.success, out.result.error).toBe(true);
    expect(human.asked).toHaveLength(1);
  });

  it('a URL whose name is not resolved now is not refused: its addresses tonight are not known at creation', async () => {
    const { out, human } = await create('named-host', { kind: 'steps', steps: [{ tool: 'web_fetch', args: { url: 'https://example.invalid/feed' } }] });
    expect(out.result.success, out.result.error).toBe(true);
    expect(human.asked).toHaveLength(1);
  });
});
