import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { listApprovals } from '../../src/store/approvals.ts';
import { runCli } from '../support/cli.ts';
import { useTestDatabase } from '../support/db.ts';

// What a valid job does that its writer most likely did not mean, said at the file's line before anyone is asked:
// a file step that reaches outside the workspace (tools.restrict_to_workspace is off by default, so it runs), a zone
// an `every` schedule ignores, jitter as long as the gap, a 6-field cron that fires every second, a flag that replaces
// the file's field. And what is refused outright: a blank name, a name with control or bidi characters. Nobody answers.
const database = useTestDatabase();
const dir = mkdtempSync(join(tmpdir(), 'echo-create-definition-'));
const ws = join(dir, 'ws');
let env: NodeJS.ProcessEnv;
const file = (name: string, lines: readonly string[]) => {
  const path = join(dir, name);
  writeFileSync(path, `${lines.join('\n')}\n`);
  return path;
};
const agent = ['payload:', '  kind: agent', '  prompt: summarise the day'];
const create = (...args: string[]) => runCli(['jobs', 'create', ...args], { env });

beforeAll(() => {
  mkdirSync(ws);
  const config = file('echo-agent.yaml', [
    'database:', `  url: postgres://postgres@127.0.0.1:5432/test?options=-c%20search_path%3D${database().schema}`,
    'tools:', `  workspace: ${ws}`, 'permissions:', '  approval:', '    wait_timeout_seconds: 1',
  ]);
  env = { ECHO_AGENT_CONFIG: config };
});

describe('a file step whose path resolves outside the workspace', () => {
  it('is warned of with the resolved path and the workspace, at the argument\'s line, before the request is asked', async () => {
    const path = file('outside.yaml', [
      'name: outside', 'schedule: "0 3 * * *"', 'tools: [write_file, read_file]', 'payload:', '  kind: steps', '  steps:',
      '    - tool: write_file', '      args: { path: ../../etc/evil.txt, content: hi }',
      '    - tool: read_file', '      args:', '        path: ../notes.txt',
    ]);
    const r = await create('--file', path);
    const evil = resolve(ws, '../../etc/evil.txt');
    expect(r.stderr).toContain(`echo-agent: warning: job file ${path}: line 8: payload.steps[0] (write_file) writes ${evil}, outside the workspace ${ws}: `
      + 'tools.restrict_to_workspace is off, so its runs write there; set it to keep file steps in the workspace\n');
    expect(r.stderr).toContain(`line 11: payload.steps[1] (read_file) reads ${join(dir, 'notes.txt')}, outside the workspace ${ws}`);
    // said before the request waits, while the person can still change the file
    expect(r.stderr.indexOf('writes')).toBeLessThan(r.stderr.indexOf('is waiting'));
  });

  it('a step inside the workspace draws no such warning', async () => {
    const r = await create('--file', file('inside.yaml', [
      'name: inside', 'schedule: "0 3 * * *"', 'payload:', '  kind: steps', '  steps:', '    - tool: write_file', '      args: { path: reports/out.txt, content: hi }',
    ]));
    expect(r.stderr).toContain('is waiting');
    expect(r.stderr).not.toContain('outside the workspace');
  });
});

describe('schedules that do not do what they seem to', () => {
  it('a timezone on an "every" schedule has no effect; jitter as long as the interval is said too', async () => {
    const path = file('every-tz.yaml', ['name: every-tz', 'schedule: every 1m', 'timezone: Europe/Berlin', 'jitter_seconds: 3600', ...agent]);
    const r = await create('--file', path);
    expect(r.stderr).toContain(`warning: job file ${path}: line 3: timezone: has no effect on an "every" schedule`);
    expect(r.stderr).toContain(`warning: job file ${path}: line 4: jitter_seconds: 3600 s is longer than the 60 s between the schedule's instants`);
  });

  it('a 6-field cron that fires every second', async () => {
    const path = file('seconds.yaml', ['name: seconds', 'schedule: "* * * * * *"', ...agent]);
    const r = await create('--file', path);
    expect(r.stderr).toContain(`warning: job file ${path}: line 2: schedule: "* * * * * *" has 6 fields, the first of them seconds: it fires every 1 s (86400 runs a day)`);
  });

  it('none of them for an ordinary cron job in a zone', async () => {
    const r = await create('--file', file('plain.yaml', ['name: plain', 'schedule: "30 2 * * *"', 'timezone: Europe/Berlin', 'jitter_seconds: 600', ...agent]));
    expect(r.stderr).toContain('is waiting');
    expect(r.stderr).not.toMatch(/warning: job file/);
  });

  it('a zone written in another case is asked for, and stored, as the runtime names it', async () => {
    await create('--name', 'lower-zone', '--schedule', '0 3 * * *', '--timezone', 'europe/berlin', '--prompt', 'x');
    const asked = (await listApprovals(database().db, {})).find((a) => a.args.name === 'lower-zone');
    expect(asked?.args.timezone).toBe('Europe/Berlin');
  });
});

describe('a flag beside a job file that gives the same field', () => {
  it('is used, and the file\'s field is said to be replaced, at its line', async () => {
    const path = file('template.yaml', ['name: template', 'schedule: "0 3 * * *"', ...agent]);
    const r = await create('--file', path, '--schedule', '0 4 * * *');
    expect(r.stderr).toContain(`warning: job file ${path} (with the options given beside it): line 2: schedule: replaced by --schedule; the file's schedule is not used`);
    expect((await listApprovals(database().db, {})).find((a) => a.args.name === 'template')?.args.schedule).toBe('0 4 * * *');
  });
});

describe('a name people cannot type or read', () => {
  it.each([
    ['blank', '"   "', 'name: must not be blank'],
    ['a line break and a bidi override', '"report\\u202e\\nrm -rf"', 'name: "report\\u202e\\nrm -rf" holds a control or formatting character'],
    ['a tab', '"a\\tb"', 'name: "a\\tb" holds a control or formatting character'],
  ])('%s is refused (65), before anyone is asked', async (_what, written, said) => {
    const path = file(`name-${Math.random().toString(36).slice(2, 8)}.yaml`, [`name: ${written}`, 'schedule: "0 3 * * *"', ...agent]);
    const r = await create('--file', path);
    expect(r.code).toBe(65);
    expect(r.stderr).toContain(`line 1: ${said}`);
    // the text printed holds none of them raw
    expect(r.stderr).not.toMatch(/[\u202e\t]/);
    expect((await listApprovals(database().db, {})).filter((a) => typeof a.args.name === 'string' && /[\u202e\t]|^\s+$/.test(a.args.name))).toEqual([]);
  });
});
