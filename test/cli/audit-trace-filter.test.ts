import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { appendAudits } from '../../src/store/audit.ts';
import { createJob } from '../../src/store/jobs.ts';
import { insertRun } from '../../src/store/runs.ts';
import type { AuditRow } from '../../src/store/schema.ts';
import { runCli } from '../support/cli.ts';
import { useTestDatabase } from '../support/db.ts';
import { aJob } from '../store/fixtures.ts';

// An admin narrowing the log to one call, one run or one kind of record, in `audit list` and in
// an `audit export` handed to someone else: the same filters, checked the same way.
const database = useTestDatabase();
const dir = mkdtempSync(join(tmpdir(), 'echo-audit-trace-'));
let env: NodeJS.ProcessEnv;
let runId: string;

beforeAll(async () => {
  const { db, schema } = database();
  const job = await createJob(db, aJob({ name: 'traced' }));
  runId = (await insertRun(db, { job_id: job.id, nominal_at: new Date('2026-01-01T03:00:00Z') }))!.id;
  await appendAudits(db, [
    // the cronjob call that made a job: its decision and the change share the call's trace
    { kind: 'gate.decision', actor: 'alice', job_id: job.id, execution_id: 'exe_call', trace_id: 'trc_call', step: 11, outcome: 'allow', rule: 'approval.human.once', data: { tool: 'cronjob' } },
    { kind: 'grant.issued', actor: 'alice', job_id: job.id, execution_id: 'exe_call', trace_id: 'trc_call', outcome: 'cron_authorized', data: { grant_id: 'grt_1' } },
    { kind: 'gate.decision', actor: 'bob', execution_id: 'exe_other', trace_id: 'trc_other', step: 5, outcome: 'allow', rule: 'attended.low_risk', data: { tool: 'read_file' } },
    // a run: its trace is its id
    { kind: 'run.started', actor: 'daemon', job_id: job.id, run_id: runId, trace_id: runId, data: {} },
    { kind: 'gate.decision', actor: 'daemon', job_id: job.id, run_id: runId, trace_id: runId, step: 4, outcome: 'allow', rule: 'unattended.read_only', data: { tool: 'read_file' } },
    { kind: 'run.state', actor: 'daemon', job_id: job.id, run_id: runId, trace_id: runId, outcome: 'succeeded' },
  ]);
  const config = join(dir, 'echo-agent.yaml');
  writeFileSync(config, `database:\n  url: postgres://postgres@127.0.0.1:5432/test?options=-c%20search_path%3D${schema}\n`);
  env = { ECHO_AGENT_CONFIG: config };
});

const noStack = (stderr: string) => expect(stderr).not.toMatch(/internal error|\n\s+at .*\.(ts|js):\d+/);
const lines = (stdout: string): AuditRow[] => stdout.trim().split('\n').filter(Boolean).map((l) => JSON.parse(l) as AuditRow);

describe('audit list --trace', () => {
  it('lists one call\'s records, newest first: from a grant.issued line to the decision that let the job through', async () => {
    const r = await runCli(['audit', 'list', '--trace', 'trc_call', '--json'], { env });
    expect(r.code, r.stderr).toBe(0);
    expect((JSON.parse(r.stdout) as AuditRow[]).map((x) => [x.kind, x.rule ?? x.outcome])).toEqual([
      ['grant.issued', 'cron_authorized'], ['gate.decision', 'approval.human.once'],
    ]);
  });

  it('refuses a trace no record carries, naming it, with exit 1 and no stack trace', async () => {
    const r = await runCli(['audit', 'list', '--trace', 'trc_typo'], { env });
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain('--trace: no audit record carries trace id "trc_typo"');
    noStack(r.stderr);
  });

  it('refuses an empty --trace instead of listing everything', async () => {
    const r = await runCli(['audit', 'list', '--trace', ' '], { env });
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain('--trace: is empty');
  });
});

describe('audit export takes the same filters as audit list', () => {
  it('--run and --kind: only that run\'s decisions, and stderr names the filters that make it unchecked', async () => {
    const r = await runCli(['audit', 'export', '--run', runId, '--kind', 'gate.decision'], { env });
    expect(r.code, r.stderr).toBe(0);
    expect(lines(r.stdout).map((x) => [x.kind, x.run_id, x.rule])).toEqual([['gate.decision', runId, 'unattended.read_only']]);
    expect(r.stderr).toContain('exported 1 records, unchecked: a filtered export (--run, --kind) is not a contiguous chain');
  });

  it('--trace: one call\'s records in chain order', async () => {
    const r = await runCli(['audit', 'export', '--trace', 'trc_call', '--json'], { env });
    expect(r.code, r.stderr).toBe(0);
    const rows = lines(r.stdout);
    expect(rows.map((x) => x.kind)).toEqual(['gate.decision', 'grant.issued']);
    expect(rows[0]!.seq).toBeLessThan(rows[1]!.seq);
    expect(JSON.parse(r.stderr.trim())).toMatchObject({ exported: 2, checked: false, why_unchecked: 'a filtered export (--trace) is not a contiguous chain' });
  });

  it.each([
    [['--kind', 'gate.decisions'], 64, 'no audit record kind "gate.decisions" (did you mean "gate.decision"?)'],
    [['--run', 'run_typo'], 1, 'no run with id "run_typo"'],
    [['--trace', 'trc_typo'], 1, 'no audit record carries trace id "trc_typo"'],
  ] as const)('%j: a filter nothing matches is refused before anything is written', async (filter, code, message) => {
    const r = await runCli(['audit', 'export', ...filter], { env });
    expect(r.code).toBe(code);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain(message);
    noStack(r.stderr);
  });
});
