import { spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createApproval, getApproval, type AskingProcess } from '../../src/store/approvals.ts';
import { listAudit } from '../../src/store/audit.ts';
import { processIdentity, processStart, thisProcess } from '../../src/util/process-identity.ts';
import { BIN, runCli } from '../support/cli.ts';
import { useTestDatabase } from '../support/db.ts';

const database = useTestDatabase();

function env(): NodeJS.ProcessEnv {
  const file = join(mkdtempSync(join(tmpdir(), 'echo-asking-session-')), 'echo-agent.yaml');
  writeFileSync(file, `database:\n  url: postgres://postgres@127.0.0.1:5432/test?options=-c%20search_path%3D${database().schema}\n`);
  return { ECHO_AGENT_CONFIG: file };
}

const ask = (asked_from: AskingProcess) => createApproval(database().db, {
  call_hash: 'hash-asking', tool: 'cronjob', args: { action: 'create', name: 'self-approved' }, risk: 'dangerous', channel: 'slack', user_id: 'u1',
  flags: [], scopes: [], allow_always: false, expires_at: new Date(Date.now() + 60_000), asked_from,
});

/** A shell this process starts, as a model's `process start` or `exec` would, which runs the CLI in turn. */
function viaShell(args: string[], e: NodeJS.ProcessEnv): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn('sh', ['-c', `"${process.execPath}" "${BIN}" ${args.join(' ')}`], { env: { ...process.env, ...e }, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d) => (stderr += d));
    child.on('close', (code) => resolve({ code, stderr }));
  });
}

describe('an answer from a process the asking session started is not a person\'s (I3)', () => {
  it('approvals approve run from a shell below the waiting process is refused, recorded, and leaves the request pending', async () => {
    const row = await ask({ ...processIdentity(), ...thisProcess()! });
    const r = await viaShell(['approvals', 'approve', row.id, '--as', 'alice'], env());
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('started by the session that asked');
    expect(await getApproval(database().db, row.id)).toMatchObject({ state: 'pending', answer: null });
    const [refused] = await listAudit(database().db, { kind: 'approval.answer_refused', limit: 1 });
    expect(refused).toMatchObject({ outcome: 'from_asking_session', actor: 'alice' });
    expect(refused!.data.approval_id).toBe(row.id);
  });

  it('a denial from there is refused too', async () => {
    const row = await ask({ ...processIdentity(), ...thisProcess()! });
    expect((await runCli(['approvals', 'deny', row.id], { env: env() })).code).toBe(1);
    expect((await getApproval(database().db, row.id))?.state).toBe('pending');
  });

  it('an answer from outside the asking process counts, and records only the account and host it came from', async () => {
    // another process waits: this one (and the CLI it starts) is not below it
    const other = spawn('sleep', ['30']);
    try {
      const started = processStart(other.pid!);
      expect(started).not.toBeNull();
      const row = await ask({ ...processIdentity(), pid: other.pid!, started: started! });
      const r = await runCli(['approvals', 'approve', row.id, '--as', 'alice'], { env: env() });
      expect(r.code, r.stderr).toBe(0);
      const answered = await getApproval(database().db, row.id);
      expect(answered).toMatchObject({ state: 'approved', answer: 'once', answered_by: 'alice' });
      expect(answered!.answered_from).toEqual(processIdentity());
    } finally {
      other.kill();
    }
  });
});
