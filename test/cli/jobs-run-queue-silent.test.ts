import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createJob } from '../../src/store/jobs.ts';
import { getRun } from '../../src/store/runs.ts';
import { runCli } from '../support/cli.ts';
import { useTestDatabase } from '../support/db.ts';
import { closedPort } from '../support/ports.ts';
import { useOwnRedis } from '../support/redis.ts';
import { aJob } from '../store/fixtures.ts';

// `jobs run` with a queue that does not answer (Redis down, a wrong password) waited for ever and printed nothing,
// though the run was committed: a Ctrl-C made it look as if nothing was queued, and the next try was refused as busy.
const database = useTestDatabase();
const ownRedis = useOwnRedis();

function configWith(schema: string, redisUrl: string): NodeJS.ProcessEnv {
  const file = join(mkdtempSync(join(tmpdir(), 'echo-run-silent-')), 'echo-agent.yaml');
  writeFileSync(file, `database:\n  url: postgres://postgres@127.0.0.1:5432/test?options=-c%20search_path%3D${schema}\nqueue:\n  prefix: silent-${schema}\n  redis_url: ${redisUrl}\n`);
  return { ECHO_AGENT_CONFIG: file };
}

describe('jobs run when the queue does not answer', () => {
  it.each([
    ['Redis is down', async () => ({ url: `redis://:planted-pw-1@127.0.0.1:${await closedPort()}`, why: /ECONNREFUSED/ })],
    ['the password is wrong', async () => {
      const { url } = await ownRedis(['--requirepass', 'right-pw']);
      return { url: url.replace('redis://', 'redis://:planted-pw-2@'), why: /WRONGPASS/ };
    }],
  ] as const)('%s: returns, exits 0, and says the run is queued in the database and which queue did not answer', async (_what, redis) => {
    const { db, schema } = database();
    const { url, why } = await redis();
    const job = await createJob(db, aJob({ name: `silent-${randomName()}` }));
    const address = new URL(url).host;
    // generous: the wait is a few seconds; before the fix the command never returned
    const out = await runCli(['jobs', 'run', job.id], { env: configWith(schema, url), timeoutMs: 60_000 });
    expect(out.code, `${out.stdout}${out.stderr}`).toBe(0);
    const runId = /^run (run_\S+) of /.exec(out.stdout)?.[1];
    expect(runId, out.stdout).toBeDefined();
    expect(out.stdout).toContain('queued (in the database only: the queue did not answer)');
    expect(out.stderr).toContain(`run ${runId} is queued in the database, but not handed to the queue: the queue (queue.redis_url ${address}) did not answer`);
    expect(out.stderr).toMatch(why);
    expect(out.stderr).toContain('daemon\'s reconciler hands it to the queue once the queue answers');
    expect(out.stderr).toContain('the run waits in the database until one starts');
    expect(`${out.stdout}${out.stderr}`).not.toContain('planted-pw');
    expect((await getRun(db, runId!))!).toMatchObject({ state: 'queued', trigger: 'manual', job_id: job.id });
  }, 90_000);
});

function randomName(): string {
  return Math.random().toString(36).slice(2, 8);
}
