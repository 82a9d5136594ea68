/**
 * Gate step 9 (SPEC §5, I3): an "always" for a program named by a path (`./build.sh`) covers that one file, by
 * its real absolute path, and no other file of the same name; programs found on PATH keep their name as scope.
 * Real shell guard, real allowlist table, terminal approver; nothing executes (gate.check only).
 */
import { chmodSync, mkdirSync, mkdtempSync, realpathSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { createApprovalGate, type ApprovalGate } from '../../src/approval/gate.ts';
import { approvalScopes } from '../../src/approval/scopes.ts';
import { defaultConfig } from '../../src/config/schema.ts';
import { builtinTools } from '../../src/daemon/daemon-tools.ts';
import { createGuard } from '../../src/guard/index.ts';
import { systemGatePorts, systemGuardDeps } from '../../src/util/system-ports.ts';
import { checkCommand } from '../../src/guard/shell/index.ts';
import { allowlistStore, type DbAllowlistStore } from '../../src/store/allowlist.ts';
import { buildContext } from '../../src/tools/context.ts';
import { catalogLookup } from '../../src/tools/facts.ts';
import { recordingTerminal } from '../support/approval-screens.ts';
import { useTestDatabase } from '../support/db.ts';

const database = useTestDatabase();
const root = realpathSync(mkdtempSync(join(tmpdir(), 'echo-always-path-')));
const ws = join(root, 'ws');
const other = join(root, 'other');
const script = (p: string) => { writeFileSync(p, '#!/bin/sh\necho hi\n'); chmodSync(p, 0o755); };
mkdirSync(join(ws, 'out'), { recursive: true });
mkdirSync(join(ws, 'x'));
mkdirSync(join(other, 'sub'), { recursive: true });
script(join(ws, 'build.sh'));
script(join(ws, 'out', 'build.sh'));
script(join(other, 'build.sh'));
symlinkSync(join(ws, 'build.sh'), join(ws, 'alias.sh'));
// `link/..` is `other` to the kernel, though it reads as the workspace
symlinkSync(join(other, 'sub'), join(ws, 'link'));

const alice = () => buildContext({ channel: 'cli', user_id: 'alice', session_key: 'cli:alice' });
/** "always" to the first `./build.sh` and `make test` screens; "no" to everything else. */
const ALWAYS = /"command": "(\.\/build\.sh|make test)"\n/;

let gate: ApprovalGate;
let allowlist: DbAllowlistStore;
let t: ReturnType<typeof recordingTerminal>;

beforeAll(async () => {
  const db = database().db;
  const cfg = defaultConfig({ tools: { profile: 'full', workspace: ws } });
  allowlist = allowlistStore(db);
  t = recordingTerminal(db, cfg, builtinTools(cfg, { db }), (screen) => (ALWAYS.test(screen) ? 'a' : 'n'));
  gate = createApprovalGate(cfg, { ...systemGatePorts, guard: createGuard(cfg, systemGuardDeps({ dns: false })), allowlist, lookupTool: catalogLookup(cfg), humanApprover: t.approver });
  const first = await exec('./build.sh');
  expect(first).toMatchObject({ outcome: 'allow', step: 11, rule: 'approval.human.always', approval_source: 'human' });
});

const exec = (command: string) => gate.check({ tool: 'exec', args: { command } }, alice());

/** Not let through at step 9: a person was asked (and said no). */
async function expectAsked(command: string): Promise<void> {
  const asked = t.screens.length;
  const d = await exec(command);
  expect(d.step, `${command}: ${d.outcome} at step ${d.step} (${d.rule})`).not.toBe(9);
  expect(t.screens.length, `${command}: nobody was asked`).toBe(asked + 1);
}

describe('"always" for `./build.sh`', () => {
  it('is recorded, and shown, as the real path of that file', async () => {
    const scopes = (await allowlist.list({ tool: 'exec' })).map((r) => r.scope);
    expect(scopes).toContain(join(ws, 'build.sh'));
    expect(scopes).not.toContain('build.sh');
    expect(t.screens[0]).toContain(`"always" would also allow, from now on and without asking: every exec command that runs the file \`${join(ws, 'build.sh')}\``);
  });

  it.each([
    './build.sh', './build.sh --fast', `${ws}/build.sh`, './x/../build.sh', 'out/../build.sh', './/./build.sh',
    // a symlink to the same file is the same file
    './alias.sh',
  ])('lets `%s` (the same file) through without asking', async (command) => {
    expect(await exec(command), command).toMatchObject({ outcome: 'allow', step: 9, rule: 'approval.allowlist', approval_source: 'auto' });
  });

  it.each([
    'out/build.sh', `${other}/build.sh`, '/tmp/x/build.sh', 'scripts/build.sh --anything', '~/Downloads/build.sh', 'cd out && ./build.sh',
    // the kernel walks `link/..` to `other`: that is other/build.sh
    './link/../build.sh', 'cd -P link/.. && ./build.sh',
    // a program of that name found on PATH is no file of the workspace
    'build.sh',
    // a wrapper named by a path is that file too, not `env`
    './env ./build.sh',
  ])('still asks a person for `%s` (another file of that name)', async (command) => {
    await expectAsked(command);
  });
});

describe('programs found on PATH keep their name as scope', () => {
  it('"always" for `make test` is recorded as `make test` and covers it again', async () => {
    expect(await exec('make test')).toMatchObject({ outcome: 'allow', step: 11, rule: 'approval.human.always' });
    expect((await allowlist.list({ tool: 'exec' })).map((r) => r.scope)).toContain('make test');
    expect(await exec('make test -j4')).toMatchObject({ outcome: 'allow', step: 9, rule: 'approval.allowlist' });
    await expectAsked('./make test');
  });

  it('a record stored before (a bare name) still matches that name, and no longer any path of that name', async () => {
    await allowlist.add({ tool: 'exec', scope: 'git status', created_by: 'alice', reason: 'earlier always', approval_id: 'apr_earlier1' });
    await allowlist.add({ tool: 'exec', scope: 'deploy.sh', created_by: 'alice', reason: 'earlier always for ./deploy.sh', approval_id: 'apr_earlier2' });
    expect(await exec('git status')).toMatchObject({ outcome: 'allow', step: 9, rule: 'approval.allowlist' });
    expect(await exec('deploy.sh')).toMatchObject({ outcome: 'allow', step: 9, rule: 'approval.allowlist' });
    await expectAsked('./deploy.sh');
    await expectAsked(`${other}/deploy.sh`);
  });
});

describe('a file run from a directory the guard cannot know has no scope (no "always", no record matches)', () => {
  it.each(['cd "$D" && ./build.sh', 'cd - && ./build.sh', 'popd; ./build.sh', 'CDPATH=/tmp; cd out && ./build.sh', 'cd -P link/.. && ./build.sh'])('%s', async (command) => {
    expect(approvalScopes('exec', await checkCommand(command, { cwd: ws }))).toEqual([]);
  });

  it('nor one run without a starting directory (a process\'s input)', async () => {
    expect(approvalScopes('exec', await checkCommand('./build.sh'))).toEqual([]);
    expect(approvalScopes('exec', await checkCommand('git status'))).toEqual(['git status']);
  });
});
