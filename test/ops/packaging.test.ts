import { CATALOG_BY_NAME } from '../../src/tools/catalog-table.ts';
import { execFile } from 'node:child_process';
import { readFileSync, readdirSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { promisify } from 'node:util';
import { parse } from 'yaml';
import { createRequire } from 'node:module';
import type { Ignore } from '@balena/dockerignore';
import { describe, expect, it } from 'vitest';
import { parseDefinition } from '../../src/jobs/service.ts';
import { cronjobArgs } from '../../src/cli/commands/jobs.ts';
import { ROOT } from '../support/cli.ts';
import { parseConfigText } from '../../src/config/load.ts';

const run = promisify(execFile);
// a CommonJS module whose types claim a default export; require gives the factory itself
const dockerignore = createRequire(import.meta.url)('@balena/dockerignore') as () => Ignore;

describe('packaging', () => {
  it('the Dockerfile passes dockerfile-utils lint', async () => {
    const { stdout, stderr } = await run('npx', ['dockerfile-utils', 'lint', 'Dockerfile'], { cwd: ROOT });
    expect(`${stdout}${stderr}`.trim()).toBe('');
  });

  it('the Dockerfile is multi-stage, non-root, with an init, a healthcheck and an exec-form CMD', () => {
    const text = readFileSync(`${ROOT}/Dockerfile`, 'utf8');
    expect(text.match(/^FROM /gm)?.length).toBeGreaterThanOrEqual(2);
    expect(text).toMatch(/^RUN npm ci/m);
    expect(text).toMatch(/^USER (?!root)\S+/m);
    expect(text).toMatch(/^ENTRYPOINT \["\/usr\/bin\/tini"/m);
    expect(text).toMatch(/^HEALTHCHECK /m);
    expect(text).toMatch(/^CMD \[/m);
  });

  it('the HEALTHCHECK asks the port the example config serves on, as the image sets it and as an operator changes it', async () => {
    const text = readFileSync(`${ROOT}/Dockerfile`, 'utf8');
    const command = JSON.parse(/^HEALTHCHECK .*\\\n\s+CMD (\[.*\])$/m.exec(text)![1]!) as string[];
    const imageEnv = /ECHO_AGENT_HTTP_PORT=(\d+)/.exec(text)![1]!;
    expect(parseConfigText(example(), 'example', { ECHO_AGENT_HTTP_PORT: imageEnv }).config.daemon.http.port).toBe(Number(imageEnv));
    const server = createServer((req, res) => { res.statusCode = req.url === '/healthz' && healthy ? 200 : 503; res.end(); });
    let healthy = true;
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const port = String((server.address() as AddressInfo).port);
    try {
      expect(parseConfigText(example(), 'example', { ECHO_AGENT_HTTP_PORT: port }).config.daemon.http.port).toBe(Number(port));
      const check = () => run(command[0]!, command.slice(1), { env: { ...process.env, ECHO_AGENT_HTTP_PORT: port } }).then(() => 0, (e: { code: number }) => e.code);
      expect(await check()).toBe(0);
      healthy = false;
      expect(await check()).toBe(1);
    } finally {
      server.close();
    }
  });

  it('the build context leaves out local state and local configs, which may hold credentials', () => {
    const ignored = dockerignore().add(readFileSync(`${ROOT}/.dockerignore`, 'utf8').split('\n'));
    for (const p of ['config/echo-agent.yaml', 'config/prod.yaml', 'data/pg-password', '.env', '.env.local', 'node_modules/x/index.js', '.echo-agent/state']) {
      expect(ignored.ignores(p), p).toBe(true);
    }
    for (const p of ['config/echo-agent.example.yaml', 'src/cli/main.ts', 'drizzle/0000_init.sql', 'jobs/nightly-report.yaml', 'package-lock.json']) {
      expect(ignored.ignores(p), p).toBe(false);
    }
  });

  it('the systemd unit verifies clean and scores at most 1.5 in systemd-analyze security', async () => {
    const unit = `${ROOT}/systemd/echo-agent.service`;
    const verify = await run('systemd-analyze', ['verify', unit]).catch((e: { stdout: string; stderr: string }) => e);
    expect(`${verify.stdout}${verify.stderr}`.trim()).toBe('');
    const { stdout } = await run('systemd-analyze', ['security', '--offline=true', unit]);
    const score = Number(/Overall exposure level for \S+: ([\d.]+)/.exec(stdout)?.[1]);
    expect(score).toBeLessThanOrEqual(1.5);
    const text = readFileSync(unit, 'utf8');
    expect(text).not.toMatch(/^MemoryDenyWriteExecute=yes/m);
    expect(text).toMatch(/^EnvironmentFile=/m);
    expect(text).not.toMatch(/^IPAddressDeny=/m);
    // it hides /proc/sys: the boot id in the worker id, by which a restarted daemon knows a killed one is gone
    expect(text).not.toMatch(/^ProcSubset=pid/m);
  });

  it('the unit restarts the daemon after a SIGHUP stop (exit 129) and after a lost dependency (69), never after a bad config (78)', () => {
    const text = readFileSync(`${ROOT}/systemd/echo-agent.service`, 'utf8');
    const values = (key: string) => [...text.matchAll(new RegExp(`^${key}=(.*)$`, 'gm'))].flatMap((m) => m[1]!.trim().split(/\s+/));
    expect(values('Restart')).toEqual(['on-failure']);
    // on-failure restarts any non-zero exit that SuccessExitStatus= and RestartPreventExitStatus= do not list
    for (const code of ['129', '69']) {
      expect(values('SuccessExitStatus'), code).not.toContain(code);
      expect(values('RestartPreventExitStatus'), code).not.toContain(code);
    }
    expect(values('RestartPreventExitStatus')).toContain('78');
  });

  // the example config as each deployment loads it: state and workspace must land where that deployment lets it write
  const example = () => readFileSync(`${ROOT}/config/echo-agent.example.yaml`, 'utf8');
  it('in the image, the example config keeps its data and workspace in the volume, not in root-owned /app', () => {
    const text = readFileSync(`${ROOT}/Dockerfile`, 'utf8');
    const envBlock = /^ENV ((?:.*\\\n)*.*)$/m.exec(text)![1]!;
    const env = Object.fromEntries([...envBlock.matchAll(/([A-Z_]+)=(\S+)/g)].map((m) => [m[1]!, m[2]!]));
    const volume = /^VOLUME \["([^"]+)"\]/m.exec(text)![1]!;
    const { config } = parseConfigText(example(), 'example', env);
    expect(config.daemon.data_dir).toBe(volume);
    expect(config.tools.workspace.startsWith(`${volume}/`)).toBe(true);
  });

  it('under systemd, the example config keeps its data and workspace inside ReadWritePaths', () => {
    const unit = readFileSync(`${ROOT}/systemd/echo-agent.service`, 'utf8');
    const env: Record<string, string> = { STATE_DIRECTORY: `/var/lib/${/^StateDirectory=(\S+)/m.exec(unit)![1]}` };
    for (const m of unit.matchAll(/^Environment=([A-Z_]+)=(\S+)$/gm)) env[m[1]!] = m[2]!;
    const writable = /^ReadWritePaths=(\S+)/m.exec(unit)![1]!;
    const { config } = parseConfigText(example(), 'example', env);
    expect(config.daemon.data_dir).toBe(writable);
    expect(config.tools.workspace.startsWith(`${writable}/`)).toBe(true);
  });

  it.each(readdirSync(`${ROOT}/jobs`).filter((f) => f.endsWith('.yaml')))('jobs/%s is a valid job definition for jobs create --file', (file) => {
    const args = cronjobArgs('create', { file: `${ROOT}/jobs/${file}` });
    const def = parseDefinition({ name: args.name, schedule: args.schedule, timezone: args.timezone, payload: args.payload, ...(args.options as object) }, { knownTool: (n) => CATALOG_BY_NAME.has(n), notifyTargets: [] });
    expect(def.name).toBe((parse(readFileSync(`${ROOT}/jobs/${file}`, 'utf8')) as { name: string }).name);
  });
});
