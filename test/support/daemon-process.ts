import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BIN, ROOT } from './cli.ts';
import { until } from './until.ts';

/** A config file for the real daemon on a test schema and a Redis queue, its data dir in a fresh temporary directory. */
export function daemonConfigFile(schema: string, queue: { redisUrl: string; prefix: string }, daemonLines: readonly string[] = []): string {
  const dir = mkdtempSync(join(tmpdir(), 'echo-daemon-'));
  const file = join(dir, 'echo-agent.yaml');
  writeFileSync(file, [
    'database:', `  url: postgres://postgres@127.0.0.1:5432/test?options=-c%20search_path%3D${schema}`,
    'queue:', `  redis_url: ${queue.redisUrl}`, `  prefix: ${queue.prefix}`,
    'daemon:', `  data_dir: ${join(dir, 'data')}`, ...daemonLines.map((l) => `  ${l}`), '  http:', '    port: 0', '',
  ].join('\n'));
  return file;
}

export interface DaemonProcess {
  readonly child: ChildProcess;
  /** Everything it wrote, stdout and stderr. */
  log(): string;
  /** Its JSON log lines. */
  lines(): Record<string, unknown>[];
  /** Its exit code (null after a signal). */
  readonly exited: Promise<number | null>;
  /** Resolves once its output holds `text`; throws with the output when it exits first or `ms` pass. */
  until(text: string, ms?: number): Promise<void>;
}

/** The daemon command (`node bin/echo-agent.js daemon` unless `command` says otherwise), with `configFile`. */
export function spawnDaemon(configFile: string, command: readonly string[] = [process.execPath, BIN, 'daemon'], opts: { detached?: boolean } = {}): DaemonProcess {
  const child = spawn(command[0]!, command.slice(1), {
    cwd: ROOT, env: { ...process.env, ECHO_AGENT_CONFIG: configFile }, stdio: ['ignore', 'pipe', 'pipe'], detached: opts.detached ?? false,
  });
  let log = '';
  child.stdout!.on('data', (d) => (log += d));
  child.stderr!.on('data', (d) => (log += d));
  const exited = new Promise<number | null>((r) => child.once('exit', (c) => r(c)));
  return {
    child, exited, log: () => log,
    lines: () => log.split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l) as Record<string, unknown>),
    async until(text, ms = 60_000) {
      try {
        await until(`"${text}" appearing in the daemon's output`, () => {
          if (child.exitCode !== null || child.signalCode !== null) throw new Error(`the daemon exited before "${text}" appeared in its output`);
          return log.includes(text);
        }, ms, 100);
      } catch (err) {
        child.kill('SIGKILL');
        throw new Error(`${(err as Error).message}:\n${log.slice(-3000)}`);
      }
    },
  };
}
