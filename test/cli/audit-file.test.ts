import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { appendAudits } from '../../src/store/audit.ts';
import { runCli } from '../support/cli.ts';
import { useTestDatabase } from '../support/db.ts';

const database = useTestDatabase();
const dir = mkdtempSync(join(tmpdir(), 'echo-audit-file-'));
let env: NodeJS.ProcessEnv;
let lines: string[];

beforeAll(async () => {
  const { db, schema } = database();
  await appendAudits(db, Array.from({ length: 6 }, (_, i) => ({ kind: 'test.event', actor: 'alice', reason: `event ${i + 1}`, data: { i: i + 1 } })));
  const config = join(dir, 'echo-agent.yaml');
  writeFileSync(config, `database:\n  url: postgres://postgres@127.0.0.1:5432/test?options=-c%20search_path%3D${schema}\n`);
  env = { ECHO_AGENT_CONFIG: config };
  const exported = await runCli(['audit', 'export'], { env });
  expect(exported.code, exported.stderr).toBe(0);
  expect(exported.stderr).toMatch(/exported 6 records, chain ok, head 6:[0-9a-f]{64}/);
  lines = exported.stdout.trim().split('\n');
});

// no database: the file is all a later reader has
const offline = { ECHO_AGENT_CONFIG: '' };
const write = (name: string, content: string[]) => {
  const file = join(dir, name);
  writeFileSync(file, `${content.join('\n')}\n`);
  return file;
};

describe('an audit export checked offline (audit verify --file)', () => {
  it('passes as exported and names its head, which --head then pins', async () => {
    const file = write('whole.jsonl', lines);
    const r = await runCli(['audit', 'verify', '--file', file], { env: offline });
    expect(r.code, r.stderr).toBe(0);
    const head = /head (6:[0-9a-f]{64})/.exec(r.stdout)![1]!;
    expect((await runCli(['audit', 'verify', '--file', file, '--head', head], { env: offline })).code).toBe(0);
  });

  it.each([
    ['an edited record', (l: string[]) => l.map((x, i) => (i === 2 ? x.replace('event 3', 'nothing to see') : x)), 3, 'edited'],
    ['a removed record', (l: string[]) => l.filter((_, i) => i !== 3), 4, 'removed'],
    // read in order, record 2 is missing where it belongs
    ['two records swapped', (l: string[]) => [l[0]!, l[2]!, l[1]!, ...l.slice(3)], 2, 'removed'],
    ['the first records removed', (l: string[]) => l.slice(2), 1, 'removed'],
    ['every record removed', () => [], 1, 'removed'],
  ])('detects %s', async (name, change, seq, problem) => {
    const file = write(`${name.replace(/\s/g, '-')}.jsonl`, change(lines));
    const r = await runCli(['audit', 'verify', '--file', file], { env: offline });
    expect(r.code).toBe(1);
    expect(r.stdout).toContain(`BROKEN at record ${seq}: ${problem}`);
  });

  it('detects a cut tail against a head seen before', async () => {
    const whole = await runCli(['audit', 'verify', '--file', write('all.jsonl', lines)], { env: offline });
    const head = /head (6:[0-9a-f]{64})/.exec(whole.stdout)![1]!;
    const r = await runCli(['audit', 'verify', '--file', write('cut.jsonl', lines.slice(0, 4)), '--head', head], { env: offline });
    expect(r.code).toBe(1);
    expect(r.stdout).toContain('BROKEN at record 5: removed (the export ends at 4, but record 6 was seen before)');
  });

  it('an empty file passes only against a head of 0 seen before (the export of an empty chain)', async () => {
    const empty = write('empty.jsonl', []);
    expect((await runCli(['audit', 'verify', '--file', empty], { env: offline })).code).toBe(1);
    const r = await runCli(['audit', 'verify', '--file', empty, '--head', `0:${'0'.repeat(64)}`], { env: offline });
    expect(r.code, r.stdout).toBe(0);
  });

  it('a line that is no audit record is a data error (65), a file that cannot be read a missing input (66): neither is a broken chain', async () => {
    const r = await runCli(['audit', 'verify', '--file', write('bad.jsonl', [lines[0]!, '{"seq": "two"}'])], { env: offline });
    expect(r.code).toBe(65);
    expect(r.stderr).toMatch(/--file: .*bad\.jsonl: line 2: not an audit record/);
    const missing = await runCli(['audit', 'verify', '--file', join(dir, 'nope.jsonl')], { env: offline });
    expect(missing.code, 'unreadable is not BROKEN').toBe(66);
    expect(missing.stderr).toMatch(/nope\.jsonl: cannot read \(no such file\)/);
    const directory = await runCli(['audit', 'verify', '--file', dir], { env: offline });
    expect(directory.code).toBe(66);
    expect(directory.stderr).toMatch(/cannot read \(is a directory, not a file\)/);
    expect(directory.stderr).not.toMatch(/internal error|at .*\.ts:/);
    expect(readFileSync(join(dir, 'bad.jsonl'), 'utf8')).toContain('two');
  });
});

describe('audit export --json', () => {
  it('keeps the records as JSON lines on stdout and puts a summary a script can read on stderr', async () => {
    const whole = await runCli(['audit', 'export', '--json'], { env });
    expect(whole.code, whole.stderr).toBe(0);
    expect(whole.stdout.trim().split('\n')).toEqual(lines);
    const summary = JSON.parse(whole.stderr.trim()) as { exported: number; checked: boolean; ok: boolean; head: { seq: number; hash: string }; first_bad: unknown };
    expect(summary).toMatchObject({ exported: 6, checked: true, ok: true, first_bad: null });
    expect(summary.head).toEqual({ seq: 6, hash: (JSON.parse(lines[5]!) as { hash: string }).hash });
  });

  it('says a filtered export was not checked, and why', async () => {
    const r = await runCli(['audit', 'export', '--json', '--since', '2000-01-01'], { env });
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stderr.trim())).toMatchObject({ exported: 6, checked: false, why_unchecked: expect.stringContaining('filtered') });
  });
});
