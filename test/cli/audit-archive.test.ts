import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { appendAudits, auditHead } from '../../src/store/audit.ts';
import { BIN, ROOT, runCli } from '../support/cli.ts';
import { useTestDatabase } from '../support/db.ts';

const database = useTestDatabase();
const dir = mkdtempSync(join(tmpdir(), 'echo-audit-archive-'));
let env: NodeJS.ProcessEnv;
const soon = () => new Date(Date.now() + 60_000).toISOString();
const noStack = (stderr: string) => expect(stderr).not.toMatch(/internal error|\n\s+at .*\.(ts|js):\d+/);

beforeAll(async () => {
  await appendAudits(database().db, Array.from({ length: 12 }, (_, i) => ({ kind: 'test.cli', reason: `r${i}` })));
  const config = join(dir, 'echo-agent.yaml');
  writeFileSync(config, `database:\n  url: postgres://postgres@127.0.0.1:5432/test?options=-c%20search_path%3D${database().schema}\n`);
  env = { ECHO_AGENT_CONFIG: config };
});

describe('audit archive (command line)', () => {
  let first: { after_seq: number; after_hash: string; last_seq: number; last_hash: string; file_sha256: string };

  it('writes the records to a file whose hash it records, and tells how to check the file', async () => {
    const out = join(dir, 'one.jsonl');
    const r = await runCli(['audit', 'archive', '--before', soon(), '--out', out, '--as', 'dana', '--json'], { env });
    expect(r.code).toBe(0);
    first = JSON.parse(r.stdout).archive;
    // where it was written, in full: from another directory, a bare name would say nothing
    expect(first).toMatchObject({ first_seq: 1, last_seq: 11, records: 11, file: out, archived_by: 'dana' });
    expect(createHash('sha256').update(readFileSync(out)).digest('hex')).toBe(first.file_sha256);
    expect(existsSync(`${out}.partial`)).toBe(false);
    const v = await runCli(['audit', 'verify', '--file', out, '--head', `${first.last_seq}:${first.last_hash}`], { env });
    expect(v.code).toBe(0);
    // an archive is not an export: the verdict names the file as what it is
    expect(v.stdout).toMatch(new RegExp(`^audit file ${out.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} ok: 11 records`));
    const chain = await runCli(['audit', 'verify'], { env });
    expect(chain.stdout).toMatch(/^audit chain ok: 2 records from 12, head /);
  });

  it('a second archive\'s file checks only with --after, the head of the one before', async () => {
    await appendAudits(database().db, Array.from({ length: 4 }, () => ({ kind: 'test.cli' })));
    const out = join(dir, 'two.jsonl');
    const r = await runCli(['audit', 'archive', '--before', soon(), '--out', out], { env });
    expect(r.code).toBe(0);
    const hint = /check the file: echo-agent audit verify --file \S+ --after (\S+) --head (\S+)/.exec(r.stdout);
    expect(hint?.[1]).toBe(`${first.last_seq}:${first.last_hash}`);
    expect((await runCli(['audit', 'verify', '--file', out, '--after', hint![1]!, '--head', hint![2]!], { env })).code).toBe(0);
    const alone = await runCli(['audit', 'verify', '--file', out], { env });
    expect(alone.code).toBe(1);
    expect(alone.stdout).toContain('give the head of the archive before it: --after SEQ:HASH');
    const list = await runCli(['audit', 'archives', '--json'], { env });
    expect(JSON.parse(list.stdout).map((a: { file: string }) => a.file)).toEqual([join(dir, 'one.jsonl'), out]);
  });

  it('an unfiltered export after an archive starts where the chain does and checks with --after', async () => {
    const out = join(dir, 'export.jsonl');
    const r = await runCli(['audit', 'export'], { env });
    expect(r.code).toBe(0);
    writeFileSync(out, r.stdout);
    const hint = /--after (\S+) --head (\S+)/.exec(r.stderr);
    expect(hint).not.toBeNull();
    expect((await runCli(['audit', 'verify', '--file', out, '--after', hint![1]!, '--head', hint![2]!], { env })).code).toBe(0);
  });

  it('never overwrites a file, exit 73, and archives nothing then', async () => {
    await appendAudits(database().db, [{ kind: 'test.cli' }, { kind: 'test.cli' }]);
    const out = join(dir, 'taken.jsonl');
    writeFileSync(out, 'mine\n');
    const before = await auditHead(database().db);
    const r = await runCli(['audit', 'archive', '--before', soon(), '--out', out], { env });
    expect(r.code).toBe(73);
    expect(r.stderr).toContain(`--out: cannot create ${out}`);
    expect(readFileSync(out, 'utf8')).toBe('mine\n');
    expect(await auditHead(database().db)).toEqual(before);
    noStack(r.stderr);
    // a directory that is not there is named by the file asked for, not by the archive's side file
    const nowhere = join(dir, 'no-such-dir', 'a.jsonl');
    const missing = await runCli(['audit', 'archive', '--before', soon(), '--out', nowhere], { env });
    expect(missing.code).toBe(73);
    expect(missing.stderr).toContain(`--out: cannot create ${nowhere} (`);
    expect(missing.stderr).not.toContain('.partial');
    expect(await auditHead(database().db)).toEqual(before);
  });

  it('a .partial left by a killed archive is named, with what to do, and is not touched', async () => {
    await appendAudits(database().db, [{ kind: 'test.cli' }, { kind: 'test.cli' }]);
    const out = join(dir, 'killed.jsonl');
    writeFileSync(`${out}.partial`, 'half a line');
    const before = await auditHead(database().db);
    const r = await runCli(['audit', 'archive', '--before', soon(), '--out', out], { env });
    expect(r.code).toBe(73);
    expect(r.stderr).toContain(`--out: ${out}.partial already exists: an audit archive to ${out} is running now, or one was interrupted`);
    expect(r.stderr).toContain(`remove ${out}.partial and run again`);
    expect(readFileSync(`${out}.partial`, 'utf8')).toBe('half a line');
    expect(existsSync(out)).toBe(false);
    expect(await auditHead(database().db)).toEqual(before);
    noStack(r.stderr);
  });

  it('says when there is nothing to archive', async () => {
    const r = await runCli(['audit', 'archive', '--before', '2000-01-01', '--out', join(dir, 'none.jsonl')], { env });
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('nothing to archive: no records stamped before 2000-01-01T00:00:00.000Z');
    expect(existsSync(join(dir, 'none.jsonl'))).toBe(false);
  });

  it.each([
    [['--before', 'yesterday', '--out', 'x.jsonl'], '--before: expected an ISO-8601 date or instant'],
    [['--out', 'x.jsonl'], "required option '--before <instant>' not specified"],
    [['--before', '2026-01-01', '--out', ''], '--out: is empty'],
  ])('refuses %j with what is wrong, exit 64', async (args, message) => {
    const r = await runCli(['audit', 'archive', ...args], { env });
    expect(r.code).toBe(64);
    expect(r.stderr).toContain(message);
    noStack(r.stderr);
  });

  it('--after without --file is refused', async () => {
    const r = await runCli(['audit', 'verify', '--after', `1:${'0'.repeat(64)}`], { env });
    expect(r.code).toBe(64);
    expect(r.stderr).toContain('--after: only with --file');
  });

  it('a file size limit that cuts the file short archives nothing, exit 73 (the file is read back)', async () => {
    await appendAudits(database().db, Array.from({ length: 30 }, (_, i) => ({ kind: 'test.cli', reason: 'x'.repeat(200) + i })));
    const before = await auditHead(database().db);
    const archivesBefore = JSON.parse((await runCli(['audit', 'archives', '--json'], { env })).stdout).length;
    const out = join(dir, 'limited.jsonl');
    const r = spawnSync('bash', ['-c', `ulimit -f 4; exec "${process.execPath}" "${BIN}" audit archive --before ${soon()} --out ${out}`], { env: { ...process.env, ...env }, encoding: 'utf8', cwd: ROOT });
    expect(r.status, r.stderr).toBe(73);
    expect(r.stderr).toMatch(/--out: cannot write .*limited\.jsonl\.partial|holds \d+ of \d+ bytes/);
    expect(existsSync(out)).toBe(false);
    expect(existsSync(`${out}.partial`)).toBe(false);
    expect(JSON.parse((await runCli(['audit', 'archives', '--json'], { env })).stdout)).toHaveLength(archivesBefore);
    expect(await auditHead(database().db)).toEqual(before);
  });

  it('verify --file --head checks the record seen before even when the file goes past it', async () => {
    const out = join(dir, 'export-all.jsonl');
    const r = await runCli(['audit', 'export'], { env });
    writeFileSync(out, r.stdout);
    const after = /--after (\S+)/.exec(r.stderr)![1]!;
    const rows = r.stdout.trim().split('\n').map((l) => JSON.parse(l) as { seq: number; hash: string });
    const mid = rows[1]!;
    expect((await runCli(['audit', 'verify', '--file', out, '--after', after, '--head', `${mid.seq}:${mid.hash}`], { env })).code).toBe(0);
    const wrong = await runCli(['audit', 'verify', '--file', out, '--after', after, '--head', `${mid.seq}:${'e'.repeat(64)}`], { env });
    expect(wrong.code).toBe(1);
    expect(wrong.stdout).toContain(`record ${mid.seq} no longer has the hash seen before`);
  });
});
