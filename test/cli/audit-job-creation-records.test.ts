import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { listJobs } from '../../src/store/jobs.ts';
import { runCli, waitingApproval } from '../support/cli.ts';
import { useTestDatabase } from '../support/db.ts';

// "How did job X come to be?" The creating call's request, answer and gate decision name no job (it had no id
// yet): `audit list --job X` and `audit export --job X` list them with the job's own records.
const database = useTestDatabase();
const dir = mkdtempSync(join(tmpdir(), 'echo-job-creation-'));
let env: NodeJS.ProcessEnv;
const ids: Record<string, string> = {};

/** `jobs create --file` through the gate (no terminal), approved by `as` with `approvals approve` in another shell. */
async function approvedCreate(name: string, as: string): Promise<string> {
  const file = join(dir, `${name}.yaml`);
  writeFileSync(file, [`name: ${name}`, 'schedule: "0 3 * * *"', 'payload:', '  kind: steps', '  steps:', '    - { tool: read_file, args: { path: README.md } }', 'tools: [read_file]', ''].join('\n'));
  const seen: { waiting?: { id: string; code: string } | null } = {};
  const create = runCli(['jobs', 'create', '--file', file, '--as', as], { env, timeoutMs: 60_000, onStderr: (text) => { seen.waiting ??= waitingApproval(text); } });
  let answered = false;
  for (const started = Date.now(); !answered && Date.now() - started < 30_000; await new Promise((r) => setTimeout(r, 100))) {
    if (seen.waiting) answered = (await runCli(['approvals', 'approve', seen.waiting.id, '--as', as], { env, timeoutMs: 60_000, input: `${seen.waiting.code}\n` })).code === 0;
  }
  const r = await create;
  expect(r.code, r.stderr).toBe(0);
  return (await listJobs(database().db)).find((j) => j.name === name)!.id;
}

interface Rec { seq: number; kind: string; job_id: string | null; data: Record<string, unknown> }

beforeAll(async () => {
  const config = join(dir, 'echo-agent.yaml');
  writeFileSync(config, `database:\n  url: postgres://postgres@127.0.0.1:5432/test?options=-c%20search_path%3D${database().schema}\npermissions:\n  approval:\n    wait_timeout_seconds: 60\n`);
  env = { ECHO_AGENT_CONFIG: config };
  ids.first = await approvedCreate('first-job', 'alice');
  ids.second = await approvedCreate('second-job', 'bob');
}, 120_000);

/** The creation records: filed under no job, about the cronjob call or its approval. */
const creation = (rows: Rec[]) => rows.filter((r) => r.job_id === null);

describe('audit list --job and audit export --job: the records of the job\'s creation', () => {
  it('list: the approval request, its answer and the gate decision of the create call, and no other job\'s', async () => {
    const r = await runCli(['audit', 'list', '--job', 'first-job', '--json'], { env });
    expect(r.code, r.stderr).toBe(0);
    const rows = JSON.parse(r.stdout) as Rec[];
    const made = creation(rows);
    expect(made.map((x) => x.kind).sort()).toEqual(['approval.answered', 'approval.requested', 'gate.decision']);
    const approvalId = rows.find((x) => x.kind === 'grant.issued')!.data.approval_id;
    expect(made.every((x) => x.data.approval_id === approvalId)).toBe(true);
    expect(made.find((x) => x.kind === 'gate.decision')!.data).toMatchObject({ tool: 'cronjob', args: { action: 'create', name: 'first-job' } });
    // its own records too, and before them in the chain: how it came to be, then what it is
    expect(rows.map((x) => x.kind)).toEqual(expect.arrayContaining(['job.created', 'grant.issued']));
    expect(Math.max(...made.map((x) => x.seq))).toBeLessThan(rows.find((x) => x.kind === 'job.created')!.seq);
  }, 60_000);

  it('the other job lists its own creation, not this one\'s', async () => {
    const [first, second] = await Promise.all(['first-job', 'second-job'].map(async (j) => creation(JSON.parse((await runCli(['audit', 'list', '--job', j, '--json'], { env })).stdout) as Rec[])));
    expect(second).toHaveLength(3);
    expect(second!.map((x) => x.seq).filter((s) => first!.some((f) => f.seq === s))).toEqual([]);
  }, 60_000);

  it('export: the same records, in chain order, with the other filters still applied', async () => {
    const r = await runCli(['audit', 'export', '--job', ids.first!], { env });
    expect(r.code, r.stderr).toBe(0);
    const rows = r.stdout.trim().split('\n').map((l) => JSON.parse(l) as Rec);
    expect(creation(rows).map((x) => x.kind)).toEqual(['approval.requested', 'approval.answered', 'gate.decision']);
    const decisions = JSON.parse((await runCli(['audit', 'list', '--job', ids.first!, '--kind', 'gate.decision', '--json'], { env })).stdout) as Rec[];
    expect(decisions.map((x) => x.kind)).toEqual(['gate.decision']);
  }, 60_000);
});
