import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { defaultConfig } from '../../src/config/schema.ts';
import { builtinTools } from '../../src/daemon/daemon-tools.ts';
import { describeJobCall } from '../../src/session/job-preview.ts';
import { createJob } from '../../src/store/jobs.ts';
import type { JobRow } from '../../src/store/schema.ts';
import { runCli, waitingApproval } from '../support/cli.ts';
import { useTestDatabase } from '../support/db.ts';
import { until } from '../support/until.ts';

// What the approver in another shell reads (`approvals show`): where each file step writes, resolved against the
// workspace; that the name is taken already; no promise of EXEC calls the daemon never makes. And what a script
// reads with --json: the request's id while it waits, a problems document when the job is refused, and a person's
// refusal in words meant for people (never the model's "do not retry").
const database = useTestDatabase();
const dir = mkdtempSync(join(tmpdir(), 'echo-approval-screen-'));
const ws = join(dir, 'ws');
let env: NodeJS.ProcessEnv;
let taken: JobRow;
const file = (name: string, lines: readonly string[]) => {
  const path = join(dir, name);
  writeFileSync(path, `${lines.join('\n')}\n`);
  return path;
};

beforeAll(async () => {
  mkdirSync(ws);
  const config = file('echo-agent.yaml', [
    'database:', `  url: postgres://postgres@127.0.0.1:5432/test?options=-c%20search_path%3D${database().schema}`,
    'tools:', `  workspace: ${ws}`, 'permissions:', '  approval:', '    wait_timeout_seconds: 120',
  ]);
  env = { ECHO_AGENT_CONFIG: config };
  taken = await createJob(database().db, {
    name: 'nightly', owner: 'alice', created_by: 'alice', schedule: '0 3 * * *', timezone: 'UTC', tools: [], paused: false, payload: { kind: 'agent', prompt: 'hello' },
  });
});

describe('a steps job that writes outside the workspace, named as a live job is, asked with --json and refused by a person', () => {
  const seen: { stderr: string; show?: string; audit?: string; created?: { code: number | null; stdout: string; stderr: string } } = { stderr: '' };

  beforeAll(async () => {
    const path = file('outside.yaml', [
      'name: nightly', 'schedule: "0 3 * * *"', 'tools: [write_file]', 'payload:', '  kind: steps', '  steps:',
      '    - tool: write_file', '      args: { path: ../../etc/evil.txt, content: hi }',
    ]);
    const creating = runCli(['jobs', 'create', '--file', path, '--json', '--as', 'alice'], { env, timeoutMs: 120_000, onStderr: (t) => { seen.stderr = t; } });
    // the ceiling is generous for a loaded machine
    await until('the request to wait', () => waitingApproval(seen.stderr) !== null, 60_000);
    const { id, code } = waitingApproval(seen.stderr)!;
    seen.show = (await runCli(['approvals', 'show', id], { env })).stdout;
    const denied = await runCli(['approvals', 'deny', id, '--as', 'bob'], { env, input: `${code}\n` });
    expect(denied.code, denied.stderr).toBe(0);
    seen.created = await creating;
    seen.audit = (await runCli(['audit', 'list', '--kind', 'gate.decision'], { env })).stdout;
  }, 150_000);

  it('approvals show gives the step\'s resolved path, outside the workspace, and why it is allowed', () => {
    expect(seen.show).toContain(`    1. write_file {"path":"../../etc/evil.txt","content":"hi"}\n       writes ${resolve(ws, '../../etc/evil.txt')}  OUTSIDE the workspace ${ws} (allowed: tools.restrict_to_workspace is off)\n`);
  });

  it('approvals show warns that a live job has the name, as the asking terminal does', () => {
    expect(seen.show).toContain(`  warning: a live job is named "nightly" already (${taken.id}); commands given that name will ask for the id instead`);
    expect(seen.stderr).toContain(`warning: a live job is named "nightly" already (${taken.id})`);
  });

  it('approvals show does not say the runs may make EXEC calls: daemon runs are never offered exec', () => {
    expect(seen.show).toContain('approving makes the job cron_authorized: its steps may make their calls, writes included, unattended, as written, with:');
    expect(seen.show).not.toContain('EXEC');
  });

  it('with --json the waiting request is announced as a JSON line on stderr, with its id and never the code', () => {
    const { id, code } = waitingApproval(seen.stderr)!;
    const line = seen.stderr.split('\n').find((l) => l.startsWith('{'));
    expect(JSON.parse(line!)).toEqual({ approval_pending: { id, tool: 'cronjob', expires_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/) } });
    expect(line).not.toContain(code);
    expect(seen.stderr.indexOf(line!)).toBeLessThan(seen.stderr.indexOf(`approval ${id} is waiting`));
  });

  it('a person\'s refusal is said in people\'s words: in the --json outcome and in audit list, not the model\'s "do not retry"', () => {
    expect(seen.created!.code).toBe(1);
    const out = JSON.parse(seen.created!.stdout) as { decision: { rule: string; reason: string }; result: { error: string } };
    expect(out.decision).toMatchObject({ rule: 'approval.human.deny', reason: 'A human refused this call.' });
    expect(out.result.error).toBe('A human refused this call.');
    expect(seen.created!.stderr).toContain('A human refused this call (refused by bob); nothing was created');
    expect(seen.audit).toContain('approval.human.deny');
    expect(seen.audit).not.toContain('Do not retry');
  });
});

describe('jobs create --json for a job that is refused before anyone is asked', () => {
  it('prints {ok: false, file, problems: [{line, path, message}]} on stdout, keeps exit 65 and the text on stderr', async () => {
    const path = file('bad.yaml', ['name: bad', 'schedule: "0 3 * * *"', 'timeout: 30', 'payload: { kind: agent, prompt: x }']);
    const r = await runCli(['jobs', 'create', '--file', path, '--json'], { env });
    expect(r.code).toBe(65);
    expect(JSON.parse(r.stdout)).toEqual({ ok: false, file: path, problems: [{ line: 3, path: 'timeout', message: 'timeout: is not a field of a job (did you mean timeout_seconds?)' }] });
    expect(r.stderr).toBe(`echo-agent: job file ${path}: line 3: timeout: is not a field of a job (did you mean timeout_seconds?)\n`);
  });

  it('the same for problems the tool\'s own checks find (a step\'s arguments), one entry each', async () => {
    const path = file('args.yaml', ['name: args', 'schedule: "0 3 * * *"', 'payload:', '  kind: steps', '  steps:', '    - tool: write_file', '      args: { file: x }']);
    const r = await runCli(['jobs', 'create', '--file', path, '--json'], { env });
    expect(r.code).toBe(65);
    const doc = JSON.parse(r.stdout) as { ok: boolean; file: string; problems: { line: number; path: string; message: string }[] };
    expect(doc).toMatchObject({ ok: false, file: path });
    expect(doc.problems.map((p) => [p.line, p.path])).toEqual([[7, 'payload.steps[0].args.path'], [7, 'payload.steps[0].args.content'], [7, 'payload.steps[0].args.file']]);
  });

  it('a file that is not YAML, or is missing: the parser\'s line and column, or the reason; exit 65 or 66', async () => {
    const path = file('dup.yaml', ['name: a', 'name: b']);
    const dup = await runCli(['jobs', 'create', '--file', path, '--json'], { env });
    expect(dup.code).toBe(65);
    expect(JSON.parse(dup.stdout)).toEqual({ ok: false, file: path, problems: [{ line: 2, column: 1, path: null, message: 'Map keys must be unique' }] });
    const missing = await runCli(['jobs', 'update', 'nightly', '--file', join(dir, 'nope.yaml'), '--json'], { env });
    expect(missing.code).toBe(66);
    expect(JSON.parse(missing.stdout)).toMatchObject({ ok: false, file: join(dir, 'nope.yaml'), problems: [{ line: null, path: null, message: expect.stringContaining('cannot read') }] });
  });
});

describe('the approval screen of a file step (terminal and approvals show)', () => {
  it('resolves each path against this configuration\'s workspace; one inside says where, with no warning', () => {
    const config = defaultConfig({ tools: { workspace: ws } });
    const lines = describeJobCall(config, builtinTools(config, { db: database().db }), {
      action: 'create', name: 'inside', schedule: '0 3 * * *', payload: { kind: 'steps', steps: [{ tool: 'write_file', args: { path: 'out/x.txt', content: 'y' } }] },
    }).join('\n');
    expect(lines).toContain(`    1. write_file {"path":"out/x.txt","content":"y"}\n       writes ${join(ws, 'out/x.txt')}\n`);
    expect(lines).not.toContain('OUTSIDE');
  });
});
