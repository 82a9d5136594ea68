import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { authorizationFor } from '../../src/store/grants.ts';
import { listJobs } from '../../src/store/jobs.ts';
import { cliOnTerminal } from '../support/cli.ts';
import { useTestDatabase } from '../support/db.ts';

const database = useTestDatabase();


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
    const r = await cliOnTerminal(['jobs', 'create', '--name', name, '--file', 'jobs/nightly-report.yaml', '--as', 'alice'], { ECHO_AGENT_CONFIG: config }, answer);
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
