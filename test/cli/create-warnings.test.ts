import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { createJob } from '../../src/store/jobs.ts';
import { runCli } from '../support/cli.ts';
import { useTestDatabase } from '../support/db.ts';
import { aJob } from '../store/fixtures.ts';

// What bites later, said before anyone is asked to approve: a second job of a name already taken (grants show
// NAME and audit list --job NAME then refuse with "2 jobs are named …"), and an agent job with no model
// configured (every run fails "agent turns need a model"). Nobody answers here: the request times out.
const database = useTestDatabase();
const dir = mkdtempSync(join(tmpdir(), 'echo-create-warn-'));
let env: NodeJS.ProcessEnv;

beforeAll(async () => {
  const { db, schema } = database();
  await createJob(db, aJob({ name: 'nightly-report' }));
  const config = join(dir, 'echo-agent.yaml');
  writeFileSync(config, [
    `database:\n  url: postgres://postgres@127.0.0.1:5432/test?options=-c%20search_path%3D${schema}`,
    `tools:\n  workspace: ${dir}`, 'permissions:\n  approval:\n    wait_timeout_seconds: 1', '',
  ].join('\n'));
  writeFileSync(join(dir, 'steps.yaml'), '- tool: list_dir\n  args: { path: . }\n');
  env = { ECHO_AGENT_CONFIG: config };
});

describe('jobs create warns, before the approval, of what would bite later', () => {
  it('a name a live job has already, and an agent job this configuration has no model for', async () => {
    const r = await runCli(['jobs', 'create', '--name', 'nightly-report', '--schedule', '0 3 * * *', '--prompt', 'summarise the day'], { env });
    expect(r.stderr).toMatch(/warning: a live job is named "nightly-report" already \(job_\S+\); commands given that name will ask for the id instead/);
    expect(r.stderr).toContain('warning: this configuration has no model.base_url or model.name: every run of this job fails ("agent turns need a model")');
  });

  it('neither for a new name with steps that need no model', async () => {
    const r = await runCli(['jobs', 'create', '--name', 'fresh-name', '--schedule', '0 3 * * *', '--steps', join(dir, 'steps.yaml')], { env });
    expect(r.stderr).not.toContain('warning: a live job is named');
    expect(r.stderr).not.toContain('warning: this configuration has no model');
  });
});
