import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/log/logger.ts';
import { startEmbedded } from '../../src/store/embedded.ts';
import { rotateServerLogInPlace, SERVER_LOG_LIMIT_BYTES } from '../../src/store/embedded-log.ts';
import { freeServerPort } from '../support/ports.ts';

const dirs: string[] = [];
afterAll(async () => {
  for (const d of dirs) await fs.rm(d, { recursive: true, force: true });
});

async function tempDir(prefix: string): Promise<string> {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), prefix));
  dirs.push(dir);
  return dir;
}

function capture() {
  const lines: Record<string, unknown>[] = [];
  const stream = new Writable({ write(chunk, _enc, cb) { for (const l of String(chunk).split('\n').filter(Boolean)) lines.push(JSON.parse(l)); cb(); } });
  return { logger: createLogger('debug', stream), lines };
}

describe('the embedded server\'s log (rule embedded.server_log_bound) and the data dir it is given', () => {
  it('a log past the limit is set aside at start (one older file kept), and an error\'s statement text is not logged', async () => {
    const dataDir = await tempDir('echo-srvlog-');
    const logFile = path.join(dataDir, 'pg-server.log');
    await fs.writeFile(logFile, Buffer.alloc(SERVER_LOG_LIMIT_BYTES + 1, 'x'));
    const log = capture();
    const server = await startEmbedded({ dataDir, port: await freeServerPort(), logger: log.logger });
    try {
      expect((await fs.stat(`${logFile}.1`)).size).toBe(SERVER_LOG_LIMIT_BYTES + 1);
      expect((await fs.stat(logFile)).size).toBeLessThan(SERVER_LOG_LIMIT_BYTES);
      const client = new pg.Client({ connectionString: server.url });
      await client.connect();
      try {
        await client.query('create table t (id int primary key)');
        await client.query('insert into t values (1)');
        await expect(client.query('insert into t values (1) /* the statement */')).rejects.toThrow(/duplicate key/);
      } finally {
        await client.end();
      }
      await expect.poll(async () => fs.readFile(logFile, 'utf8')).toContain('duplicate key value violates unique constraint');
      expect(await fs.readFile(logFile, 'utf8')).not.toContain('the statement');
      // rule embedded.data_dir_group: as root, the data dir's new group (for OS user postgres) is said once, with old and new
      if (process.getuid?.() === 0) {
        expect(log.lines.find((l) => l.rule === 'embedded.data_dir_group')).toMatchObject({ level: 'warn', path: dataDir, old: 'root:root 0700', new: 'root:postgres 0710' });
      }
    } finally {
      await server.stop();
    }
    // the next start finds the group given: nothing changes, nothing is said
    const again = capture();
    const second = await startEmbedded({ dataDir, port: await freeServerPort(), logger: again.logger });
    await second.stop();
    expect(again.lines.filter((l) => l.rule === 'embedded.data_dir_group')).toEqual([]);
  }, 120_000);

  it('a log past the limit while the server writes it is copied to the older file and emptied in place', async () => {
    const dir = await tempDir('echo-srvlog-live-');
    const logFile = path.join(dir, 'pg-server.log');
    await fs.writeFile(logFile, 'a'.repeat(100));
    const writer = await fs.open(logFile, 'a'); // the server's append-mode descriptor
    try {
      expect(await rotateServerLogInPlace(logFile, 50)).toBe(true);
      await writer.write('next line\n');
      expect(await fs.readFile(`${logFile}.1`, 'utf8')).toBe('a'.repeat(100));
      expect(await fs.readFile(logFile, 'utf8')).toBe('next line\n');
      expect(await rotateServerLogInPlace(logFile, 50)).toBe(false);
    } finally {
      await writer.close();
    }
  });
});
