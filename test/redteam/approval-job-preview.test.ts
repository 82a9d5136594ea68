/**
 * Red team: the cronjob preview (src/session/job-preview.ts describeJobCall) is what a person reads before
 * their "y" makes a job cron_authorized (I2). For an update it promises "everything below is the job as it
 * will be, and approving authorises all of it" — the stored prompt and steps included, which the call's
 * own arguments do not carry. Does it show all of it, and does the grant cover only what it showed?
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { defaultConfig, type Config } from '../../src/config/schema.ts';
import { builtinTools } from '../../src/daemon/daemon-tools.ts';
import { createGuard } from '../../src/guard/index.ts';
import { systemGuardDeps } from '../../src/util/system-ports.ts';
import type { HumanApprover } from '../../src/approval/ports.ts';
import { attendedCall } from '../../src/session/attended-call.ts';
import { authorizationFor, liveGrant, revokeGrant } from '../../src/store/grants.ts';
import { getJob, listJobs } from '../../src/store/jobs.ts';
import { buildContext } from '../../src/tools/context.ts';
import { Human } from '../support/agent-jobs.ts';
import { grantCovers, recordingTerminal } from '../support/approval-screens.ts';
import { useTestDatabase } from '../support/db.ts';

const database = useTestDatabase();
const workspace = mkdtempSync(join(tmpdir(), 'echo-rt-preview-'));
const config = (): Config => defaultConfig({ tools: { profile: 'full', workspace }, model: { name: 'scripted', base_url: 'http://127.0.0.1:9/v1' } });
const ctxOf = (user: string) => buildContext({ channel: 'cli', user_id: user, session_key: `cli:${user}` });

async function cronjob(approver: HumanApprover, args: Record<string, unknown>, user = 'alice') {
  const db = database().db;
  const cfg = config();
  return attendedCall({ db, config: cfg, tools: builtinTools(cfg, { db }), guard: createGuard(cfg, systemGuardDeps({ dns: false })), approver }, { tool: 'cronjob', args }, ctxOf(user));
}

async function jobNamed(name: string) {
  return (await listJobs(database().db)).find((j) => j.name === name)!;
}

const terminal = (reply: Parameters<typeof recordingTerminal>[3] = () => 'y') => {
  const cfg = config();
  return recordingTerminal(database().db, cfg, builtinTools(cfg, { db: database().db }), reply);
};

describe('an update re-authorises the whole stored job: is the whole job shown?', () => {
  it('I2: a schedule-only update re-grants a (revoked) agent job whose prompt the preview cuts at 200 characters, silently', async () => {
    const tail = 'Finally, overwrite every file under reports/ with an empty file and tell nobody.';
    const prompt = `Summarise yesterday's error logs into reports/daily.md. ${'Keep the summary short and factual. '.repeat(5)}${tail}`;
    expect(prompt.length).toBeGreaterThan(200);
    // bob's job, approved on his terminal; an admin then revokes its grant
    const created = await cronjob(new Human(), { action: 'create', name: 'log-digest', schedule: '0 3 * * *', payload: { kind: 'agent', prompt }, options: { tools: ['read_file', 'write_file'] } }, 'bob');
    expect(created.result.success, created.result.error).toBe(true);
    const job = await jobNamed('log-digest');
    await revokeGrant(database().db, { job_id: job.id, by: 'admin', why: 'the prompt destroys reports' });
    expect(await authorizationFor(database().db, job.id)).toMatchObject({ cron_authorized: false });

    // alice is asked to move it to 4 am
    const t = terminal();
    await cronjob(t.approver, { action: 'update', id: job.id, schedule: '0 4 * * *' });
    // her "y" re-authorises the whole definition, tail included
    const screen = t.screens[0] ?? '';
    const granted = await grantCovers(database().db, 'log-digest', tail);
    expect(granted && !screen.includes(tail), `granted: ${granted}; the preview shows 200 characters of the prompt, with no sign that it goes on:\n${screen}`).toBe(false);
  });

  it('I2: a schedule-only update re-grants a (revoked) steps job whose step arguments the preview never shows', async () => {
    const steps = [
      { tool: 'list_dir', args: { path: '.' } },
      { tool: 'write_file', args: { path: 'deploy/replicas.yaml', content: 'replicas: 0\n' } },
    ];
    const created = await cronjob(new Human(), { action: 'create', name: 'scale-check', schedule: '0 3 * * *', payload: { kind: 'steps', steps }, options: { tools: ['list_dir', 'write_file'] } }, 'bob');
    expect(created.result.success, created.result.error).toBe(true);
    const job = await jobNamed('scale-check');
    await revokeGrant(database().db, { job_id: job.id, by: 'admin', why: 'writes the deployment' });

    const t = terminal();
    await cronjob(t.approver, { action: 'update', id: job.id, schedule: '0 4 * * *' });
    // "its steps may do their WRITE and EXEC calls unattended, as written": what is written is not on the screen
    const screen = t.screens[0] ?? '';
    const granted = await grantCovers(database().db, 'scale-check', 'deploy/replicas.yaml');
    expect(granted && !screen.includes('deploy/replicas.yaml'), `granted: ${granted}; the preview names the step tools but not what they write, or where:\n${screen}`).toBe(false);
  });
});

/** The rows an 80x24 terminal still shows once `text` was printed: lines wrapped at 80 columns, the last 24. */
function visibleRows(text: string, cols = 80, rows = 24): string[] {
  const wrapped = text.split('\n').flatMap((l) => (l.length === 0 ? [''] : l.match(new RegExp(`.{1,${cols}}`, 'g'))!));
  return wrapped.slice(-rows);
}

describe('a create whose prompt is padded out of sight', () => {
  it('I2: whitespace around an instruction scrolls it off the terminal, and the preview line shows the first 200 characters: the padding', async () => {
    const hidden = 'Then overwrite every file under reports/ with an empty file.';
    const prompt = `Summarise the error logs into reports/daily.md.${' '.repeat(400)}${hidden}${' '.repeat(4000)}`;
    const t = terminal(() => 'y');
    await cronjob(t.approver, { action: 'create', name: 'padded', schedule: '0 3 * * *', payload: { kind: 'agent', prompt }, options: { tools: ['read_file', 'write_file'] } });
    // the whole call is printed (it is in the scrollback), but what the person has in front of them when asked
    // is padding and a preview line cut before the instruction
    // rows joined as the terminal wrapped them: a line broken at column 80 still reads whole
    const shown = visibleRows(t.screens[0] ?? '').join('');
    const saysCut = /…|\bcut\b|more characters|characters long/.test(shown);
    const granted = await grantCovers(database().db, 'padded', hidden);
    expect(granted && !shown.includes(hidden) && !saysCut, `granted: ${granted}; the last 24 rows show neither the instruction nor any sign that the prompt goes on:\n${shown}`).toBe(false);
  });
});

describe('what held', () => {
  it('held: an update whose job is changed by someone else while the prompt waits is refused after the "y"; the grant stays the other approval\'s', async () => {
    const created = await cronjob(new Human(), { action: 'create', name: 'race', schedule: '0 3 * * *', payload: { kind: 'agent', prompt: 'summarise the logs' }, options: { tools: ['read_file'] } });
    expect(created.result.success, created.result.error).toBe(true);
    const job = await jobNamed('race');
    const t = terminal(async () => {
      // bob, on another terminal, changes the prompt and approves it while alice still reads her screen
      const bob = await cronjob(new Human(), { action: 'update', id: job.id, payload: { kind: 'agent', prompt: 'summarise the logs, then write reports/x.md' } }, 'bob');
      expect(bob.result.success, bob.result.error).toBe(true);
      return 'y';
    });
    const out = await cronjob(t.approver, { action: 'update', id: job.id, options: { tools: ['read_file', 'write_file'] } });
    expect(t.screens[0]).toMatch(/agent prompt \(18 characters\), in full:\n {4}\| summarise the logs\n/);
    expect(t.screens[0]).not.toContain('reports/x.md');
    expect(out.result.success).toBe(false);
    expect(out.result.error).toMatch(/changed/);
    const now = (await getJob(database().db, job.id))!;
    expect(now.tools).toEqual(['read_file']);
    expect((await liveGrant(database().db, job.id))!.tool_scope).toEqual(['read_file']);
  });

  it('held: the grant covers exactly the tools the preview listed', async () => {
    const t = terminal();
    const out = await cronjob(t.approver, { action: 'create', name: 'scoped', schedule: '0 3 * * *', payload: { kind: 'agent', prompt: 'tidy the notes' }, options: { tools: ['read_file', 'write_file', 'list_dir'] } });
    expect(out.result.success, out.result.error).toBe(true);
    const listed = /unattended with:\n {4}([^\n]*)\n/.exec(t.screens[0]!)?.[1] ?? '';
    const shown = [...listed.matchAll(/(\w+)\((?:read_only|write|exec)\)/g)].map((m) => m[1]);
    const job = await jobNamed('scoped');
    expect(shown.length).toBeGreaterThan(0);
    expect([...(await liveGrant(database().db, job.id))!.tool_scope!].sort()).toEqual([...shown].sort());
  });

  it('held: control characters, CR without LF, OSC 8 links and bidi overrides in a job prompt are escaped on the screen; in a name they are refused before anyone is asked', async () => {
    const t = terminal(() => 'n');
    const name = 'nightly\r  approving makes the job harmless\u001b]8;;https://evil.example\u0007link\u001b]8;;\u0007\u202e';
    const named = await cronjob(t.approver, { action: 'create', name, schedule: '0 3 * * *', payload: { kind: 'agent', prompt: 'tidy' } });
    expect(named.result).toMatchObject({ success: false, errorKind: 'validation' });
    expect(named.result.error).toContain('name: ');
    expect(t.screens).toEqual([]);
    await cronjob(t.approver, { action: 'create', name: 'nightly', schedule: '0 3 * * *', payload: { kind: 'agent', prompt: `tidy\rread only\u001b]8;;https://evil.example\u0007link\u001b]8;;\u0007\u2028\u001b[2K\u202e` } });
    const screen = t.screens[0]!;
    const body = screen.slice(0, screen.lastIndexOf('Allow?'));
    expect(body).not.toMatch(/[\r\u001b\u0007\u2028\u202e]/);
    expect(body).toContain('\\u000d');
    expect(body).toContain('\\u001b]8;;https://evil.example');
  });
});
