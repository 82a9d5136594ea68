import { spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { authorizationFor } from '../../src/store/grants.ts';
import { listJobs } from '../../src/store/jobs.ts';
import { BIN, ROOT } from '../support/cli.ts';
import { useTestDatabase } from '../support/db.ts';

const database = useTestDatabase();

/** Runs the CLI on a pseudo-terminal (util-linux `script`), typing `answer` at the prompt. */
function onTerminal(args: string[], env: NodeJS.ProcessEnv, answer: string): Promise<{ code: number | null; out: string }> {
  const command = [process.execPath, BIN, ...args].map((a) => `'${a.replace(/'/g, `'\\''`)}'`).join(' ');
  return new Promise((resolve) => {
    const child = spawn('script', ['-qec', command, '/dev/null'], { cwd: ROOT, env: { ...process.env, ...env }, stdio: ['pipe', 'pipe', 'pipe'] });
    let out = '';
    let answered = false;
    const onData = (d: Buffer) => {
      out += d;
      if (!answered && /Allow\? /.test(out)) {
        answered = true;
        child.stdin.write(`${answer}\r`);
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.on('close', (code) => resolve({ code, out }));
  });
}

describe('the human step on a terminal', () => {
  it.each([
    ['y', true],
    ['n', false],
  ])('answering "%s" to jobs create: cron_authorized=%s', async (answer, authorised) => {
    const { schema } = database();
    const dir = mkdtempSync(join(tmpdir(), 'echo-tty-'));
    const config = join(dir, 'echo-agent.yaml');
    writeFileSync(config, `database:\n  url: postgres://postgres@127.0.0.1:5432/test?options=-c%20search_path%3D${schema}\n`);
    const name = `tty-${answer}`;
    const r = await onTerminal(['jobs', 'create', '--name', name, '--file', 'jobs/nightly-report.yaml', '--as', 'alice'], { ECHO_AGENT_CONFIG: config }, answer);
    expect(r.out).toContain('Approval needed');
    expect(r.out).toContain('approving makes the job cron_authorized');
    const job = (await listJobs(database().db)).find((j) => j.name === name);
    if (authorised) {
      expect(r.code, r.out).toBe(0);
      expect(job).toBeDefined();
      expect(await authorizationFor(database().db, job!.id)).toMatchObject({ cron_authorized: true, rule: 'grant.valid' });
    } else {
      expect(r.code).not.toBe(0);
      expect(job).toBeUndefined();
      expect(r.out).toMatch(/human refused/i);
    }
  }, 60_000);
});
