import { describe, expect, it } from 'vitest';
import { createApprovalGate } from '../../src/approval/gate.ts';
import { approvalScopes } from '../../src/approval/scopes.ts';
import { defaultConfig } from '../../src/config/schema.ts';
import { createGuard } from '../../src/guard/index.ts';
import { checkCommand } from '../../src/guard/shell/index.ts';
import { buildContext } from '../../src/tools/context.ts';
import { catalogLookup } from '../../src/tools/facts.ts';
import { systemGatePorts, systemGuardDeps } from '../../src/util/system-ports.ts';
import { instantClock, MemoryAllowlist, RecordingApprover } from '../support/gate-harness.ts';

/*
 * Guard round 27: an "always" for `git status` covered `git -C /etc status`, `git --git-dir=gd status` and
 * `GIT_DIR=gd git status` (another repository, whose config may run commands). What picks git's repository or
 * configuration is now part of the scope; a value nobody can see leaves no scope at all.
 */
const scopes = async (command: string) => approvalScopes('exec', await checkCommand(command));

describe('git options and variables that pick the repository are part of the scope', () => {
  it.each([
    ['git status', ['git status']],
    ['git -C sub log', ['git -C sub log']],
    ['git -C /etc status', ['git -C /etc status']],
    ['git --git-dir=gd --work-tree=. status', ['git --git-dir=gd --work-tree=. status']],
    ['git -c color.ui=always status', ['git -c color.ui=always status']],
    ['git --bare status', ['git --bare status']],
    ['GIT_DIR=gd git status', ['env GIT_DIR', 'GIT_DIR=gd git status']],
    ['export GIT_DIR=gd; git status', ['export GIT_DIR=gd', 'GIT_DIR=gd git status']],
    ['GIT_CONFIG_GLOBAL=/tmp/x git status', ['env GIT_CONFIG_GLOBAL', 'GIT_CONFIG_GLOBAL=/tmp/x git status']],
    ['git --no-pager log', ['git log']],
  ])('%s → %j', async (command, expected) => {
    expect(await scopes(command)).toEqual(expected);
  });

  it.each(['git -C "$d" status', 'GIT_DIR=$(pwd)/gd git status', 'git --git-dir="$X" status', 'export GIT_DIR; git status'])('%s has no scope', async (command) => {
    expect(await scopes(command)).toEqual([]);
  });

  it('a credential in -c is redacted in the scope (I11)', async () => {
    const [scope] = await scopes("git -c http.extraHeader='Authorization: Bearer sk-abcdefghijklmnopqrstuvwx' fetch");
    expect(scope).toMatch(/^git -c .*fetch$/);
    expect(scope).not.toContain('sk-abcdefghijklmnopqrstuvwx');
  });
});

describe('gate step 9 with a stored "always" for `git status`', () => {
  const config = defaultConfig({ tools: { profile: 'full' } });
  const allowlist = new MemoryAllowlist();
  const gate = createApprovalGate(config, {
    ...systemGatePorts, guard: createGuard(config, systemGuardDeps({ dns: false })), allowlist, lookupTool: catalogLookup(config),
    smartReviewer: null, humanApprover: new RecordingApprover('deny'), clock: instantClock,
  });
  const exec = (command: string) => gate.check({ tool: 'exec', args: { command } }, buildContext({ channel: 'cli', user_id: 'alice', session_key: 'cli:alice' }));

  it('passes git status, and no other repository', async () => {
    await allowlist.add({ tool: 'exec', scope: 'git status', created_by: 'alice', reason: 'r' });
    expect(await exec('git status')).toMatchObject({ outcome: 'allow', step: 9, approval_source: 'auto' });
    for (const command of [
      'git -C /etc status', 'git -C sub status', 'git --git-dir=gd --work-tree=. status', 'git --git-dir=gd status', 'git -c core.pager=cat status',
      'GIT_DIR=gd git status', 'export GIT_DIR=gd; git status', 'GIT_CONFIG_GLOBAL=/tmp/x git status', 'git -C "$d" status',
    ]) {
      const d = await exec(command);
      expect(d.step, command).not.toBe(9);
      expect(d.outcome, command).not.toBe('allow');
    }
  });

  it('an "always" for `git -C sub log` covers that, not another directory', async () => {
    await allowlist.add({ tool: 'exec', scope: 'git -C sub log', created_by: 'alice', reason: 'r' });
    expect(await exec('git -C sub log --oneline')).toMatchObject({ outcome: 'allow', step: 9 });
    expect((await exec('git -C /etc log')).step).not.toBe(9);
    expect((await exec('git log')).step).not.toBe(9);
  });
});
