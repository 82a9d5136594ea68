import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { appendAudits } from '../../src/store/audit.ts';
import { createJob } from '../../src/store/jobs.ts';
import { insertRun } from '../../src/store/runs.ts';
import type { RunRow } from '../../src/store/schema.ts';
import { runCli } from '../support/cli.ts';
import { useTestDatabase } from '../support/db.ts';
import { aJob } from '../store/fixtures.ts';

const database = useTestDatabase();
const dir = mkdtempSync(join(tmpdir(), 'echo-audit-columns-'));
let env: NodeJS.ProcessEnv;
let run: RunRow;
const long = `${'why '.repeat(40)}END`;

beforeAll(async () => {
  const { db, schema } = database();
  const job = await createJob(db, aJob({ name: 'columns' }));
  run = (await insertRun(db, { job_id: job.id, nominal_at: new Date('2026-01-01T03:00:00Z') }))!;
  await appendAudits(db, [
    // the shapes decision-sink.ts and store/approvals.ts write
    { kind: 'gate.decision', actor: 'daemon', job_id: job.id, run_id: run.id, step: 7, outcome: 'deny', rule: 'r.deny', reason: long, data: { tool: 'write_file', approval_id: null } },
    { kind: 'approval.requested', actor: 'alice', risk: 'dangerous', data: { approval_id: 'apr_req1', tool: 'exec', call_hash: 'h' } },
    { kind: 'approval.answered', actor: 'bob', outcome: 'once', data: { approval_id: 'apr_req1', tool: 'exec', call_hash: 'h' } },
    { kind: 'approval.answer_refused', actor: 'eve', outcome: 'not_found', reason: 'No approval request has this id.', data: { approval_id: 'apr_none', call_hash: 'h' } },
  ]);
  const config = join(dir, 'echo-agent.yaml');
  writeFileSync(config, `database:\n  url: postgres://postgres@127.0.0.1:5432/test?options=-c%20search_path%3D${schema}\n`);
  env = { ECHO_AGENT_CONFIG: config };
});

/** The table's rows as cells, cut where the header's columns start (printTable pads every cell to its column). */
function table(stdout: string): Record<string, string>[] {
  const [header, ...rows] = stdout.trimEnd().split('\n');
  const names = [...header!.matchAll(/\S+/g)].map((m) => ({ name: m[0], at: m.index }));
  return rows.map((row) => Object.fromEntries(names.map((c, i) => [c.name, row.slice(c.at, names[i + 1]?.at ?? undefined).trim()])));
}

describe('audit list (text)', () => {
  it('names the run, the tool and the approval request of each record', async () => {
    const r = await runCli(['audit', 'list'], { env });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout.split('\n')[0]).toMatch(/^SEQ\s+AT\s+KIND\s+ACTOR\s+JOB\s+RUN\s+STEP\s+OUTCOME\s+TOOL\s+RULE\s+AUTHORITY\s+REASON$/);
    const rows = table(r.stdout);
    expect(rows.find((x) => x.KIND === 'gate.decision')).toMatchObject({ RUN: run.id, STEP: '7', TOOL: 'write_file', RULE: 'r.deny' });
    expect(rows.find((x) => x.KIND === 'approval.requested')).toMatchObject({ RUN: '', TOOL: 'exec (apr_req1)' });
    expect(rows.find((x) => x.KIND === 'approval.answered')).toMatchObject({ TOOL: 'exec (apr_req1)', OUTCOME: 'once' });
    expect(rows.find((x) => x.KIND === 'approval.answer_refused')).toMatchObject({ TOOL: '(apr_none)' });
  });

  it('marks a REASON cut at 100 characters with …, and leaves a short one whole', async () => {
    const rows = table((await runCli(['audit', 'list'], { env })).stdout);
    const cut = rows.find((x) => x.KIND === 'gate.decision')!.REASON!;
    expect(cut).toHaveLength(100);
    expect(cut.endsWith('…')).toBe(true);
    expect(long.startsWith(cut.slice(0, -1).trimEnd())).toBe(true);
    expect(rows.find((x) => x.KIND === 'approval.answer_refused')!.REASON).toBe('No approval request has this id.');
  });

  it('keeps the whole reason in --json', async () => {
    const r = await runCli(['audit', 'list', '--kind', 'gate.decision', '--json'], { env });
    expect((JSON.parse(r.stdout) as { reason: string }[])[0]!.reason).toBe(long);
  });
});

describe('runs show (text)', () => {
  it('names the tool of each audit record and marks a cut reason', async () => {
    const r = await runCli(['runs', 'show', run.id], { env });
    expect(r.code, r.stderr).toBe(0);
    const audit = r.stdout.slice(r.stdout.indexOf('audit:\n') + 'audit:\n'.length);
    const [row] = table(audit);
    expect(row).toMatchObject({ KIND: 'gate.decision', TOOL: 'write_file' });
    expect(row!.REASON!.endsWith('…')).toBe(true);
  });
});
