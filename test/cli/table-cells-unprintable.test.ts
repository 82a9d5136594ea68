import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { appendAudit } from '../../src/store/audit.ts';
import { runCli } from '../support/cli.ts';
import { useTestDatabase } from '../support/db.ts';

const database = useTestDatabase();

describe('a table on the terminal', () => {
  it('shows a line break, a terminal escape or a bidi override in a cell as its escape, so no record forges a row', async () => {
    const forged = 'exec\n999  2026-01-01T00:00:00.000Z  gate.decision  daemon  allow  cronjob\u001b[2K\r\u202e';
    await appendAudit(database().db, { kind: 'gate.decision', actor: 'daemon', step: 0, rule: 'tools.unknown', outcome: 'deny', reason: `No tool named "${forged}" exists.`, data: { tool: forged } });
    const config = join(mkdtempSync(join(tmpdir(), 'echo-cells-')), 'echo-agent.yaml');
    writeFileSync(config, `database:\n  url: postgres://postgres@127.0.0.1:5432/test?options=-c%20search_path%3D${database().schema}\n`);
    const r = await runCli(['audit', 'list'], { env: { ECHO_AGENT_CONFIG: config } });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('exec\\u000a999');
    expect(r.stdout.split('\n').filter((l) => l.startsWith('999'))).toEqual([]);
    expect(r.stdout).not.toMatch(/[\u001b\r\u202e]/);
  });
});
