import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listApprovals } from '../../src/store/approvals.ts';
import { listAudit } from '../../src/store/audit.ts';
import { transcripts } from '../../src/store/catalog-schema.ts';
import { BIN, ROOT, runCli, scriptedSessionConfig, waitingApproval } from '../support/cli.ts';
import { useTestDatabase } from '../support/db.ts';
import { startFakeModel } from '../support/fake-model.ts';

const database = useTestDatabase();
let model: Awaited<ReturnType<typeof startFakeModel>>;
let env: NodeJS.ProcessEnv;
beforeAll(async () => {
  model = await startFakeModel((body) => (body.messages.some((m) => m.role === 'tool') ? { content: 'finished' } : { tool_calls: [{ name: 'exec', arguments: { command: 'echo one' } }] }));
  const dir = mkdtempSync(join(tmpdir(), 'echo-run-interrupted-'));
  const cfg = scriptedSessionConfig(dir, database().schema, model.url);
  env = { ECHO_AGENT_CONFIG: cfg };
});
afterAll(() => model.close());

/** `echo-agent run` with no terminal, once its exec call waits in the database for `approvals approve`. */
async function waitingRun(prompt: string) {
  const child = spawn(process.execPath, [BIN, 'run', prompt], { cwd: ROOT, env: { ...process.env, ...env }, stdio: ['pipe', 'pipe', 'pipe'] });
  child.stdin.end();
  let stderr = '';
  const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
  const { id } = await new Promise<{ id: string }>((resolve) => child.stderr.on('data', (d) => {
    stderr += d;
    const w = waitingApproval(stderr);
    if (w) resolve(w);
  }));
  return { child, id, exited, stderr: () => stderr };
}

describe('echo-agent run stopped while a call waits for a person', () => {
  it.each(['SIGTERM', 'SIGHUP'] as const)('%s (a closed terminal, a stop) withdraws the request, records the refusal and keeps the transcript, as Ctrl-C does', async (signal) => {
    const prompt = `stopped by ${signal}`;
    const w = await waitingRun(prompt);
    w.child.kill(signal);
    expect(await w.exited, w.stderr()).toBe({ SIGHUP: 129, SIGTERM: 143 }[signal]);
    const [row] = (await listApprovals(database().db, { limit: 100 })).filter((a) => a.id === w.id);
    expect(row?.state).toBe('withdrawn');
    const decisions = await listAudit(database().db, { kind: 'gate.decision', limit: 50 });
    expect(decisions.find((d) => (d.data as { approval_id?: string } | null)?.approval_id === w.id)).toMatchObject({ outcome: 'deny', step: 11, rule: 'approval.human.cancelled' });
    const kept = (await database().db.select().from(transcripts)).filter((t) => t.prompt === prompt);
    expect(kept).toHaveLength(1);
    const late = await runCli(['approvals', 'approve', w.id], { env });
    expect(late.code).toBe(1);
  }, 60_000);
});
