import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { defaultConfig } from '../../src/config/schema.ts';
import { DaemonConfigError, startDaemon } from '../../src/daemon/daemon.ts';
import { manualRun } from '../../src/jobs/service.ts';
import { silentLogger } from '../../src/log/logger.ts';
import { getRun } from '../../src/store/runs.ts';
import { crashTestConfig, slowJob } from '../support/crash-config.ts';
import { slowTool } from '../support/slow-tool.ts';
import { runCli } from '../support/cli.ts';
import { useTestDatabase } from '../support/db.ts';

const database = useTestDatabase();

describe('a daemon that cannot finish starting', () => {
  it('exits with 69 and says why, instead of running on without its HTTP port or signal handling', async () => {
    const taken = createServer();
    await new Promise<void>((r) => taken.listen(0, '127.0.0.1', r));
    const port = (taken.address() as AddressInfo).port;
    try {
      const dir = mkdtempSync(join(tmpdir(), 'echo-start-failure-'));
      const config = join(dir, 'echo-agent.yaml');
      writeFileSync(config, [
        'database:', `  url: postgres://postgres@127.0.0.1:5432/test?options=-c%20search_path%3D${database().schema}`,
        'queue:', '  redis_url: redis://127.0.0.1:6379', `  prefix: start-failure-${process.pid}`,
        'daemon:', `  data_dir: ${join(dir, 'data')}`, '  http:', `    port: ${port}`, '',
      ].join('\n'));
      // a daemon that ran on without its port would be killed at runCli's limit, not exit 69
      const r = await runCli(['daemon'], { env: { ECHO_AGENT_CONFIG: config }, timeoutMs: 40_000 });
      expect(r.code, r.stderr).toBe(69);
      expect(r.stderr).toMatch(/daemon: could not start: .*(EADDRINUSE|address already in use)/);
      // the journal's fatal line names the error and its code, and carries no stack, which adds nothing to a port
      const fatal = `${r.stdout}\n${r.stderr}`.split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l) as Record<string, unknown>)
        .find((l) => l.level === 'fatal' || l.level === 60);
      expect(fatal).toMatchObject({ code: 'EADDRINUSE', error: expect.stringMatching(/EADDRINUSE|address already in use/) });
      expect(JSON.stringify(fatal)).not.toMatch(/"stack"/);
    } finally {
      taken.close();
    }
  }, 60_000);

  it('takes no run before the start is complete: a start that fails at its HTTP port has executed nothing', async () => {
    const { db, url, schema } = database();
    const marker = join(mkdtempSync(join(tmpdir(), 'echo-start-norun-')), 'executions');
    const job = await slowJob(db, 'early');
    // queued before the start: the start's first reconcile pass enqueues it
    const run = await manualRun({ db, enqueue: async () => {} }, job.id, 'test');
    const taken = createServer();
    await new Promise<void>((r) => taken.listen(0, '127.0.0.1', r));
    try {
      const config = defaultConfig({ ...crashTestConfig(`start-norun-${randomBytes(3).toString('hex')}`), daemon: { http: { port: (taken.address() as AddressInfo).port } } });
      await expect(startDaemon(config, { logger: silentLogger, database: { url, schema }, queue: { kind: 'postgres', url, schema: `${schema}_qn` }, extraTools: [slowTool(marker)] }))
        .rejects.toThrow(/EADDRINUSE/);
    } finally {
      taken.close();
    }
    expect(existsSync(marker)).toBe(false);
    expect((await getRun(db, run!.id))!).toMatchObject({ state: 'queued', attempt: 0 });
  }, 30_000);

  it('a workspace that cannot be made stops the start and names tools.workspace', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'echo-start-workspace-'));
    writeFileSync(join(dir, 'a-file'), 'not a directory');
    const { url, schema } = database();
    const config = defaultConfig({ tools: { workspace: join(dir, 'a-file', 'ws') }, queue: { prefix: `start-ws-${process.pid}` } });
    await expect(startDaemon(config, { logger: silentLogger, database: { url, schema }, queue: { kind: 'postgres', url, schema: `${schema}_q` }, http: false, work: false }))
      .rejects.toThrow(/tools\.workspace .*a-file\/ws cannot be used: ENOTDIR/);
    await expect(startDaemon(config, { logger: silentLogger, database: { url, schema }, queue: { kind: 'postgres', url, schema: `${schema}_q` }, http: false, work: false }))
      .rejects.toBeInstanceOf(DaemonConfigError);
  });

  it('an unusable workspace is a configuration problem: exit 78, which the unit does not restart, with the path and why', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'echo-start-workspace-'));
    writeFileSync(join(dir, 'a-file'), 'not a directory');
    const config = join(dir, 'echo-agent.yaml');
    writeFileSync(config, [
      'database:', `  url: postgres://postgres@127.0.0.1:5432/test?options=-c%20search_path%3D${database().schema}`,
      'queue:', `  prefix: start-ws-cli-${process.pid}`,
      'tools:', `  workspace: ${join(dir, 'a-file', 'ws')}`,
      'daemon:', `  data_dir: ${join(dir, 'data')}`, '  http:', '    port: 0', '',
    ].join('\n'));
    const r = await runCli(['daemon'], { env: { ECHO_AGENT_CONFIG: config }, timeoutMs: 40_000 });
    expect(r.code, r.stderr).toBe(78);
    expect(r.stderr).toMatch(/daemon: could not start: tools\.workspace .*a-file\/ws cannot be used: ENOTDIR \(a part of the path is a file, not a directory\)/);
    const fatal = r.stdout.split('\n').filter(Boolean).map((l) => JSON.parse(l) as Record<string, unknown>).find((l) => l.level === 'fatal');
    expect(fatal).toMatchObject({ exit_code: 78, msg: expect.stringContaining('fix it, then start the daemon again') });
  }, 60_000);

  it('a data_dir that cannot be made, with the embedded database to run there, is a configuration problem too: exit 78 naming daemon.data_dir', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'echo-start-datadir-'));
    writeFileSync(join(dir, 'a-file'), 'not a directory');
    const config = join(dir, 'echo-agent.yaml');
    writeFileSync(config, [
      'queue:', `  prefix: start-dd-cli-${process.pid}`,
      'tools:', `  workspace: ${join(dir, 'ws')}`,
      'daemon:', `  data_dir: ${join(dir, 'a-file', 'data')}`, '  http:', '    port: 0', '',
    ].join('\n'));
    const r = await runCli(['daemon'], { env: { ECHO_AGENT_CONFIG: config }, timeoutMs: 40_000 });
    expect(r.code, r.stderr).toBe(78);
    expect(r.stderr).toMatch(/daemon: could not start: daemon\.data_dir .*a-file\/data cannot be used: ENOTDIR \(a part of the path is a file, not a directory\)/);
  }, 60_000);

  it('a missing workspace is made at start, so the first run has somewhere to write', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'echo-start-workspace-'));
    const { url, schema } = database();
    const config = defaultConfig({ tools: { workspace: join(dir, 'state', 'workspace') }, queue: { prefix: `start-ws2-${process.pid}` } });
    const daemon = await startDaemon(config, { logger: silentLogger, database: { url, schema }, queue: { kind: 'postgres', url, schema: `${schema}_q` }, http: false, work: false });
    await daemon.stop();
    expect(existsSync(join(dir, 'state', 'workspace'))).toBe(true);
  });
});
