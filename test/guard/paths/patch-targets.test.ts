import { mkdtempSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { defaultConfig } from '../../../src/config/schema.ts';
import { createGuard } from '../../../src/guard/index.ts';
import { systemGuardDeps } from '../../../src/util/system-ports.ts';
import { buildContext } from '../../../src/tools/context.ts';

const root = mkdtempSync(join(tmpdir(), 'echo-patch-guard-'));
const workspace = join(root, 'ws');
mkdirSync(workspace);
const diffFor = (path: string) => `--- a/${path}\n+++ b/${path}\n@@ -1 +1 @@\n-a\n+b\n`;

describe('the guard sees the files a patch would change', () => {
  const guard = (restrict: boolean) => createGuard(defaultConfig({ tools: { workspace, restrict_to_workspace: restrict } }), systemGuardDeps({ dns: false }));

  it('flags a diff whose file lies outside the workspace', async () => {
    const v = await guard(true).inspect({ tool: 'patch', args: { diff: diffFor('sub/../../outside.txt') } }, buildContext());
    expect(v.findings.map((f) => [f.rule, f.severity])).toContainEqual(['path.diff_unchecked', 'deny']);
    const viaSymlinkFree = await guard(true).inspect({ tool: 'patch', args: { diff: diffFor('x.txt'), root: '/etc' } }, buildContext());
    expect(viaSymlinkFree.findings.map((f) => f.rule)).toContain('path.outside_workspace');
  });

  it('passes a diff that stays inside', async () => {
    const v = await guard(true).inspect({ tool: 'patch', args: { diff: diffFor('src/a.ts') } }, buildContext());
    expect(v.findings).toEqual([]);
  });

  it('resolves the diff paths against root', async () => {
    const v = await guard(true).inspect({ tool: 'patch', args: { diff: diffFor('a.txt'), root: '..' } }, buildContext());
    expect(v.findings.map((f) => f.rule)).toContain('path.outside_workspace');
  });

  it('counts the diff paths for unattended allow_safe (writes must stay in the workspace)', async () => {
    expect(await guard(false).writeScope({ tool: 'patch', args: { diff: diffFor('../escape.txt') } })).toBe('outside');
    expect(await guard(false).writeScope({ tool: 'patch', args: { diff: diffFor('a.txt'), root: root } })).toBe('outside');
    expect(await guard(false).writeScope({ tool: 'patch', args: { diff: diffFor('inside.txt') } })).toBe('workspace');
  });
});
