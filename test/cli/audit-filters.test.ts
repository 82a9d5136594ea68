import { mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { AUDIT_KINDS } from '../../src/cli/commands/audit.ts';
import { appendAudits } from '../../src/store/audit.ts';
import { createJob } from '../../src/store/jobs.ts';
import { insertRun } from '../../src/store/runs.ts';
import type { RunRow } from '../../src/store/schema.ts';
import { ROOT, runCli } from '../support/cli.ts';
import { useTestDatabase } from '../support/db.ts';

const database = useTestDatabase();
const dir = mkdtempSync(join(tmpdir(), 'echo-audit-filters-'));
let env: NodeJS.ProcessEnv;
let run: RunRow;

beforeAll(async () => {
  const { db, schema } = database();
  const job = await createJob(db, {
    name: 'nightly', owner: 'test', created_by: 'test', schedule: '0 3 * * *', timezone: 'UTC', tools: [], paused: false,
    payload: { kind: 'steps', steps: [{ tool: 'list_dir', args: { path: '.' } }] },
  });
  run = (await insertRun(db, { job_id: job.id, nominal_at: new Date('2026-01-01T03:00:00Z') }))!;
  await appendAudits(db, [
    { kind: 'gate.decision', actor: 'daemon', job_id: job.id, run_id: run.id, step: 4, outcome: 'allow', rule: 'r', reason: 'allowed' },
    // a run the runs table no longer has, but the append-only log still names
    { kind: 'run.state', actor: 'daemon', run_id: 'run_onlyinlog', outcome: 'succeeded' },
    // a kind this build does not write (another build's, or a test's): it is in the log, so it is no typo
    { kind: 'test.event', actor: 'alice' },
  ]);
  const config = join(dir, 'echo-agent.yaml');
  writeFileSync(config, `database:\n  url: postgres://postgres@127.0.0.1:5432/test?options=-c%20search_path%3D${schema}\n`);
  env = { ECHO_AGENT_CONFIG: config };
});

const noStack = (stderr: string) => expect(stderr).not.toMatch(/internal error|\n\s+at .*\.(ts|js):\d+/);

describe('audit list --kind', () => {
  it('refuses a kind no record has (a typo) as a usage error, naming it and the known kinds', async () => {
    const r = await runCli(['audit', 'list', '--kind', 'gate.decisions'], { env });
    expect(r.code).toBe(64);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain('--kind: no audit record kind "gate.decisions" (did you mean "gate.decision"?)');
    expect(r.stderr).toMatch(/known kinds: .*gate\.decision.*run\.state/);
    noStack(r.stderr);
    const json = await runCli(['audit', 'list', '--kind', 'nonsense', '--json'], { env });
    expect(json.code).toBe(64);
    expect(json.stdout).toBe('');
    expect(json.stderr).toContain('no audit record kind "nonsense"; known kinds: ');
  });

  it('takes a known kind, even one with no records yet, and a kind the log holds', async () => {
    const known = await runCli(['audit', 'list', '--kind', 'gate.decision', '--json'], { env });
    expect(known.code, known.stderr).toBe(0);
    expect((JSON.parse(known.stdout) as { kind: string }[]).map((x) => x.kind)).toEqual(['gate.decision']);
    const none = await runCli(['audit', 'list', '--kind', 'allowlist.revoked', '--json'], { env });
    expect(none.code, none.stderr).toBe(0);
    expect(JSON.parse(none.stdout)).toEqual([]);
    const logged = await runCli(['audit', 'list', '--kind', 'test.event', '--json'], { env });
    expect(logged.code, logged.stderr).toBe(0);
    expect((JSON.parse(logged.stdout) as unknown[]).length).toBe(1);
  });

  it('knows every kind the source writes', () => {
    const written = new Set<string>();
    const walk = (d: string): void => {
      for (const name of readdirSync(d)) {
        const p = join(d, name);
        if (statSync(p).isDirectory()) walk(p);
        else if (p.endsWith('.ts')) for (const m of readFileSync(p, 'utf8').matchAll(/\bkind: '([a-z_]+\.[a-z_.]+)'/g)) written.add(m[1]!);
      }
    };
    walk(join(ROOT, 'src'));
    expect(written.size).toBeGreaterThan(10);
    expect([...written].filter((k) => !AUDIT_KINDS.includes(k))).toEqual([]);
  });
});

describe('audit list --run', () => {
  it('says plainly when no run has that id, as --job does (exit 1)', async () => {
    const r = await runCli(['audit', 'list', '--run', 'run_nope'], { env });
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain('no run with id "run_nope"');
    noStack(r.stderr);
  });

  it('lists a run the database holds, and one only the log still names', async () => {
    const held = await runCli(['audit', 'list', '--run', run.id, '--json'], { env });
    expect(held.code, held.stderr).toBe(0);
    expect((JSON.parse(held.stdout) as { run_id: string }[]).map((x) => x.run_id)).toEqual([run.id]);
    const logged = await runCli(['audit', 'list', '--run', 'run_onlyinlog', '--json'], { env });
    expect(logged.code, logged.stderr).toBe(0);
    expect((JSON.parse(logged.stdout) as unknown[]).length).toBe(1);
  });
});

describe('audit verify --file that cannot be read', () => {
  // no database: the file is all a later reader has
  const offline = { ECHO_AGENT_CONFIG: '' };

  it('is EX_NOINPUT (66): neither a broken chain (1) nor bad data (65)', async () => {
    const missing = await runCli(['audit', 'verify', '--file', join(dir, 'missing.jsonl')], { env: offline });
    expect(missing.code).toBe(66);
    expect(missing.stdout).toBe('');
    expect(missing.stderr).toMatch(/--file: .*missing\.jsonl: cannot read \(no such file\)/);
    noStack(missing.stderr);
    const directory = await runCli(['audit', 'verify', '--file', dir, '--json'], { env: offline });
    expect(directory.code).toBe(66);
    expect(directory.stderr).toMatch(/cannot read \(is a directory, not a file\)/);
    noStack(directory.stderr);
  });

  it('still tells a line that is no audit record (65) from a missing file', async () => {
    const bad = join(dir, 'bad.jsonl');
    writeFileSync(bad, '{"seq": "one"}\n');
    const r = await runCli(['audit', 'verify', '--file', bad], { env: offline });
    expect(r.code).toBe(65);
    expect(r.stderr).toMatch(/bad\.jsonl: line 1: not an audit record/);
  });
});
