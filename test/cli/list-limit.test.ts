import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { noteIfCut } from '../../src/cli/option-values.ts';
import { appendAudits } from '../../src/store/audit.ts';
import { runCli } from '../support/cli.ts';
import { useTestDatabase } from '../support/db.ts';

describe('noteIfCut', () => {
  afterEach(() => vi.restoreAllMocks());
  const stderr = () => {
    const spy = vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
    return () => spy.mock.calls.map((c) => String(c[0])).join('');
  };

  it('is silent when there are exactly `limit` rows (the caller fetched limit + 1)', () => {
    const said = stderr();
    expect(noteIfCut([1, 2, 3], 3)).toEqual([1, 2, 3]);
    expect(said()).toBe('');
  });

  it('warns when there are more, naming the end shown, and returns the first `limit`', () => {
    const said = stderr();
    expect(noteIfCut([5, 4, 3, 2], 3)).toEqual([5, 4, 3]);
    expect(said()).toBe('warning: showing the newest 3; use --limit for more\n');
    noteIfCut([1, 2], 1, 'oldest');
    expect(said()).toContain('showing the oldest 1; use --limit for more');
  });
});

describe('audit list --limit', () => {
  const database = useTestDatabase();
  const dir = mkdtempSync(join(tmpdir(), 'echo-list-limit-'));
  let env: NodeJS.ProcessEnv;

  beforeAll(async () => {
    const { db, schema } = database();
    await appendAudits(db, [1, 2, 3].map((i) => ({ kind: 'test.event', actor: 'alice', data: { i } })));
    const config = join(dir, 'echo-agent.yaml');
    writeFileSync(config, `database:\n  url: postgres://postgres@127.0.0.1:5432/test?options=-c%20search_path%3D${schema}\n`);
    env = { ECHO_AGENT_CONFIG: config };
  });

  it('says nothing when the log holds exactly --limit records', async () => {
    const r = await runCli(['audit', 'list', '--limit', '3', '--json'], { env });
    expect(r.code, r.stderr).toBe(0);
    expect((JSON.parse(r.stdout) as unknown[]).length).toBe(3);
    expect(r.stderr).toBe('');
  });

  it('shows the newest --limit and says there are more', async () => {
    const r = await runCli(['audit', 'list', '--limit', '2', '--json'], { env });
    expect(r.code, r.stderr).toBe(0);
    expect((JSON.parse(r.stdout) as { seq: number }[]).map((x) => x.seq)).toEqual([3, 2]);
    expect(r.stderr).toBe('warning: showing the newest 2; use --limit for more, --all for every one, or the same command with --before 2 for the older ones\n');
    const text = await runCli(['audit', 'list', '--limit', '2'], { env });
    expect(text.stdout.trim().split('\n')).toHaveLength(3);
  });
});
