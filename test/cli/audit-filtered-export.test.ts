import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { appendAudits, listAudit } from '../../src/store/audit.ts';
import { ChainWalk } from '../../src/store/audit-file.ts';
import { createJob } from '../../src/store/jobs.ts';
import type { AuditRow } from '../../src/store/schema.ts';
import { runCli } from '../support/cli.ts';
import { useTestDatabase } from '../support/db.ts';
import { aJob } from '../store/fixtures.ts';

const database = useTestDatabase();
const dir = mkdtempSync(join(tmpdir(), 'echo-audit-filtered-'));
let env: NodeJS.ProcessEnv;
let jobId: string;
const offline = { ECHO_AGENT_CONFIG: '' };

beforeAll(async () => {
  const { db, schema } = database();
  await appendAudits(db, Array.from({ length: 4 }, (_, i) => ({ kind: 'test.event', actor: 'alice', data: { i } })));
  // job.created, then records of no job: the job's records are not contiguous
  jobId = (await createJob(db, aJob({ name: 'filtered' }))).id;
  await appendAudits(db, [{ kind: 'test.event', actor: 'alice' }, { kind: 'test.event', actor: 'alice', job_id: jobId }]);
  const config = join(dir, 'echo-agent.yaml');
  writeFileSync(config, `database:\n  url: postgres://postgres@127.0.0.1:5432/test?options=-c%20search_path%3D${schema}\n`);
  env = { ECHO_AGENT_CONFIG: config };
});

const NOTE = 'is not a contiguous chain, so audit verify --file cannot check it; export unfiltered for that';

describe('a filtered audit export', () => {
  it.each([[['--job', 'filtered']], [['--since', '2000-01-01']]])('%j says on stderr, in text mode too, that it is unchecked and why', async (filter) => {
    const r = await runCli(['audit', 'export', ...filter], { env });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout.trim().split('\n').length).toBeGreaterThan(0);
    expect(r.stderr).toMatch(/^exported \d+ records, unchecked: /);
    expect(r.stderr).toContain(NOTE);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
  });

  it('fails audit verify --file as removed (exit 1), saying it may be a filtered export', async () => {
    const file = join(dir, 'job.jsonl');
    writeFileSync(file, (await runCli(['audit', 'export', '--job', jobId], { env })).stdout);
    const r = await runCli(['audit', 'verify', '--file', file], { env: offline });
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/BROKEN at record 1: removed \(records 1\.\.4 are missing;.*or the file is an export filtered with --job or --since, which is no contiguous chain and cannot be verified/);
  });
});

describe('audit verify --json', () => {
  it('names the first bad record first_bad, in snake_case like every --json output', async () => {
    const file = join(dir, 'job-json.jsonl');
    writeFileSync(file, (await runCli(['audit', 'export', '--job', jobId], { env })).stdout);
    const r = await runCli(['audit', 'verify', '--file', file, '--json'], { env: offline });
    expect(r.code).toBe(1);
    const verdict = JSON.parse(r.stdout) as Record<string, unknown>;
    expect(verdict).toMatchObject({ ok: false, first_bad: { seq: 1, problem: 'removed' } });
    expect(verdict).not.toHaveProperty('firstBad');
    const db = await runCli(['audit', 'verify', '--json'], { env });
    expect(db.code, db.stderr).toBe(0);
    expect(Object.keys(JSON.parse(db.stdout) as object).filter((k) => /[A-Z]/.test(k))).toEqual([]);
  });
});

describe('ChainWalk', () => {
  it('speaks of a filtered export only for a file: the database and an unfiltered export have none', async () => {
    const rows: AuditRow[] = await listAudit(database().db, { order: 'asc', limit: 100 });
    const gap = [rows[0]!, ...rows.slice(2)];
    const db = new ChainWalk();
    const file = new ChainWalk(undefined, { file: true });
    for (const row of gap) { db.push(row); file.push(row); }
    expect(db.firstBad).toMatchObject({ seq: 2, problem: 'removed' });
    expect(db.firstBad!.detail).not.toContain('filtered');
    expect(file.firstBad).toMatchObject({ seq: 2, problem: 'removed', detail: expect.stringContaining('records 2..2 are missing; or the file is an export filtered with --job or --since') });
  });
});
