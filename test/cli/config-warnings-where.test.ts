import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Command } from 'commander';
import { beforeAll, describe, expect, it } from 'vitest';
import { commandPath } from '../../src/cli/config-option.ts';
import { runCli } from '../support/cli.ts';
import { useTestDatabase } from '../support/db.ts';

// A config warning (a notify target the guarded fetch refuses) is said where it matters: config validate, and the
// commands that act on what it is about (jobs create/update/run, run, check, tools list). Commands that only read
// the store (jobs list, runs list, approvals list, …) stay quiet; a config problem still stops every one.
const database = useTestDatabase();
const dir = mkdtempSync(join(tmpdir(), 'echo-config-warn-'));
const WARNING = 'warning: notify.targets.ops.url: 127.0.0.1 is loopback (ssrf.ip.loopback)';
let env: NodeJS.ProcessEnv;
let config: string;

beforeAll(() => {
  config = join(dir, 'echo-agent.yaml');
  writeFileSync(config, [
    'database:', `  url: postgres://postgres@127.0.0.1:5432/test?options=-c%20search_path%3D${database().schema}`, 'tools:', `  workspace: ${dir}`,
    'notify:', '  targets:', '    ops: { url: "http://127.0.0.1:18081/hook" }', '',
  ].join('\n'));
  env = { ECHO_AGENT_CONFIG: config };
});

describe('where a config warning is printed', () => {
  it.each([
    [['jobs', 'list']], [['runs', 'list']], [['approvals', 'list']], [['grants', 'list']],
  ])('%j, which only reads the store, says nothing of it', async (args) => {
    const r = await runCli(args, { env });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).not.toContain('loopback');
  });

  it('config validate prints it at its line', async () => {
    const r = await runCli(['config', 'validate', config]);
    expect(r.stdout).toContain(`${config}:7:17: ${WARNING}`);
  });

  it.each([
    [['check', 'url', 'https://example.com/']], [['tools', 'list']],
    // refused (no such job, a file that is not YAML): the warning came first, as the config was loaded
    [['jobs', 'run', 'nosuchjob']], [['jobs', 'create', '--file', join(dir, 'missing.yaml')]],
  ])('%j, which acts on the config, prints it', async (args) => {
    const r = await runCli(args, { env });
    expect(r.stderr).toContain(`${config}:7:17: ${WARNING}`);
  });

  it('a config problem still stops a reading command', async () => {
    const bad = join(dir, 'bad.yaml');
    writeFileSync(bad, 'notify:\n  targets:\n    ops: { url: 5 }\n');
    const r = await runCli(['jobs', 'list', '--config', bad]);
    expect(r.code).toBe(78);
    expect(r.stderr).toContain('notify.targets.ops.url');
  });
});

describe('commandPath', () => {
  it('is the command\'s words below the program', () => {
    const program = new Command('echo-agent');
    const always = program.command('approvals').command('always');
    expect(commandPath(always.command('list'))).toBe('approvals always list');
    expect(commandPath(program.command('run'))).toBe('run');
  });
});
