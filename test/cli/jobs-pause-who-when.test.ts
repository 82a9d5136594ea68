import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { createJob } from '../../src/store/jobs.ts';
import type { JobRow } from '../../src/store/schema.ts';
import { runCli } from '../support/cli.ts';
import { useTestDatabase } from '../support/db.ts';
import { schemaConfigYaml } from '../support/approval-screens.ts';

// Item 17 of the admin review: a paused job says who paused it and when, shows no next fire time it will not keep,
// and a second pause says it changed nothing (or only the note), as resume does.
const database = useTestDatabase();
const dir = mkdtempSync(join(tmpdir(), 'echo-pause-who-'));
let env: NodeJS.ProcessEnv;
let job: JobRow;
const cli = async (...args: string[]) => {
  const r = await runCli(args, { env });
  expect(r.code, r.stderr).toBe(0);
  return r.stdout;
};

beforeAll(async () => {
  const file = join(dir, 'echo-agent.yaml');
  writeFileSync(file, schemaConfigYaml(database().schema));
  env = { ECHO_AGENT_CONFIG: file };
  job = await createJob(database().db, {
    name: 'nightly', owner: 'alice', created_by: 'alice', schedule: '0 4 * * *', timezone: 'UTC', tools: [], paused: false,
    payload: { kind: 'steps', steps: [{ tool: 'list_dir', args: { path: '.' } }] }, next_fire_at: new Date('2099-01-01T04:00:00Z'),
  });
});

describe('a paused job', () => {
  it('names who paused it and when, shows "paused" for NEXT FIRE, and a second pause says what it did', async () => {
    expect(await cli('jobs', 'pause', job.id, '--note', 'first', '--as', 'erin')).toBe(`pause: ${job.id} ok\n`);
    // the same pause again: nothing to do, as resume of an active job says
    expect(await cli('jobs', 'pause', job.id, '--as', 'frank')).toMatch(new RegExp(`^pause: ${job.id} nothing to do \\(already paused: first\\), paused at \\S+Z by erin\\n$`));
    // a new note is a change, but not a new pause: it says so, and the pause stays erin's
    expect(await cli('jobs', 'pause', job.id, '--note', 'second', '--as', 'frank')).toMatch(new RegExp(`^pause: ${job.id} already paused, paused at \\S+Z by erin; note changed to: second\\n$`));

    const line = (await cli('jobs', 'list')).split('\n').find((l) => l.startsWith(job.id))!;
    const cells = line.split(/ {2,}/);
    expect(cells[4]).toMatch(/^paused: second \(by erin at \S+Z\)$/);
    expect(cells[5]).toBe('paused');
    expect(line).not.toContain('2099-01-01');
    const listed = (JSON.parse(await cli('jobs', 'list', '--json')) as Record<string, unknown>[]).find((j) => j.id === job.id);
    expect(listed).toMatchObject({ paused: true, paused_by: 'erin', paused_at: expect.stringMatching(/Z$/) });
    const shown = JSON.parse(await cli('jobs', 'show', job.id, '--json')) as { job: Record<string, unknown> };
    expect(shown.job).toMatchObject({ paused_by: 'erin', paused_at: listed!.paused_at });
    expect((await cli('jobs', 'show', job.id)).split('\n')[1]).toContain('paused: second (by erin at ');

    expect(await cli('jobs', 'resume', job.id)).toBe(`resume: ${job.id} ok\n`);
    const active = (JSON.parse(await cli('jobs', 'list', '--json')) as Record<string, unknown>[]).find((j) => j.id === job.id);
    expect(active).toMatchObject({ paused: false, paused_by: null, paused_at: null });
    expect((await cli('jobs', 'list')).split('\n').find((l) => l.startsWith(job.id))).toContain('2099-01-01T04:00:00.000Z');
  }, 120_000);
});
