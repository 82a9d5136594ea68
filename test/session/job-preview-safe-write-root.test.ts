import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { defaultConfig } from '../../src/config/schema.ts';
import { builtinTools } from '../../src/daemon/daemon-tools.ts';
import { describeJobCall } from '../../src/session/job-preview.ts';
import { useTestDatabase } from '../support/db.ts';

// The approver reads where each file step writes. With tools.safe_write_root set, a write outside it is refused in
// every run whatever the workspace says: the screen must not call it allowed.
const database = useTestDatabase();
const ws = mkdtempSync(join(tmpdir(), 'echo-preview-safe-'));

const shown = (tools: Record<string, unknown>, path: string) => {
  const config = defaultConfig({ tools: { workspace: ws, ...tools } } as Parameters<typeof defaultConfig>[0]);
  return describeJobCall(config, builtinTools(config, { db: database().db }), {
    action: 'create', name: 'w', schedule: 'every 1h', payload: { kind: 'steps', steps: [{ tool: 'write_file', args: { path, content: 'x' } }] },
  }).join('\n');
};

describe('the approval screen of a file step under tools.safe_write_root', () => {
  it('a write outside the safe write root is shown as refused in every run, even inside the workspace', () => {
    expect(shown({ safe_write_root: 'out' }, 'notes/a.txt')).toContain(`writes ${resolve(ws, 'notes/a.txt')}  (refused in every run: outside tools.safe_write_root ${resolve(ws, 'out')})`);
    expect(shown({ safe_write_root: 'out' }, '../../etc/x')).toContain('(refused in every run: outside tools.safe_write_root');
  });

  it('a write below it is shown plainly, and without one the workspace rule applies as before', () => {
    const inside = shown({ safe_write_root: 'out' }, 'out/report.txt');
    expect(inside).toContain(`writes ${resolve(ws, 'out/report.txt')}\n`);
    expect(inside).not.toContain('safe_write_root');
    expect(shown({}, '../../etc/x')).toContain('(allowed: tools.restrict_to_workspace is off)');
  });
});
