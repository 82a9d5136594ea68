import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseInstant } from '../../src/cli/option-values.ts';
import { futureFire } from '../../src/jobs/next-fire.ts';
import { BIN, ROOT, offlineCli, runCli } from '../support/cli.ts';

const { dir, env, file } = offlineCli('echo-empty-input-');

const noStack = (stderr: string) => expect(stderr).not.toMatch(/internal error|\n\s+at .+:\d+:\d+/);

describe('check commands judge exactly what they were given', () => {
  it('refuses words beside --file instead of judging only the file', async () => {
    const ls = file('ls.txt', 'ls\n');
    const r = await runCli(['check', 'command', '--file', ls, '--', 'rm', '-rf', '/'], { env });
    expect(r.code).toBe(64);
    expect(r.stderr).toMatch(/check command: give --file or the command itself, not both/);
    expect(r.stdout).toBe('');
    const u = await runCli(['check', 'url', '--no-dns', '--file', file('urls.txt', 'https://example.com/\n'), 'http://169.254.169.254/'], { env });
    expect(u.code).toBe(64);
    expect(u.stderr).toMatch(/check url: give --file or the url itself, not both/);
  });

  it.each([
    ['an empty file', ['check', 'command', '--file', 'EMPTY'], 65, /holds no commands/],
    ['a file of blank lines', ['check', 'url', '--no-dns', '--file', 'BLANK'], 65, /holds no URLs/],
    ['an empty --file path', ['check', 'command', '--file', ''], 64, /--file: the path is empty/],
    ['an empty command', ['check', 'command', '--', ''], 64, /the command is empty/],
    ['a command of spaces', ['check', 'command', '--', '   '], 64, /the command is empty/],
    ['an empty URL', ['check', 'url', '--no-dns', ' '], 64, /the URL is empty/],
  ])('%s is an error, not "allow"', async (_what, args, code, message) => {
    const paths: Record<string, string> = { EMPTY: file('empty.txt', ''), BLANK: file('blank.txt', '\n  \n\r\n') };
    const r = await runCli(args.map((a) => paths[a] ?? a), { env });
    expect(r.stderr).toMatch(message);
    expect(r.code).toBe(code);
    expect(r.stdout).not.toMatch(/allow/);
  });

  it('fails on a bad --config like every other command', async () => {
    const r = await runCli(['check', 'command', '-c', join(dir, 'nope.yaml'), '--', 'ls'], { env });
    expect(r.code).toBe(78);
    expect(r.stderr).toMatch(/nope\.yaml/);
  });

  it('check call refuses arguments the tool would refuse, rather than judging them', async () => {
    // as a list the URL escapes the SSRF check; the executor would reject it, so no verdict is honest
    const r = await runCli(['check', 'call', '--no-dns', '--no-store', '--tool', 'web_fetch', '--args', '{"url":["http://169.254.169.254/"]}'], { env });
    expect(r.code).toBe(65);
    expect(r.stderr).toMatch(/--args: invalid arguments for web_fetch: url: must be string/);
    const typo = await runCli(['check', 'call', '--no-dns', '--no-store', '--tool', 'exec', '--args', '{"cmd":"rm -rf /"}'], { env });
    expect(typo.code).toBe(65);
    expect(typo.stderr).toMatch(/cmd: is not a known parameter/);
    noStack(typo.stderr);
  });
});

describe('job and listing commands refuse empty text instead of reading it as absent', () => {
  it.each([
    [['jobs', 'create', '--file', '', '--name', 'a'], /--file: is empty/],
    [['jobs', 'create', '--name', 'a', '--schedule', '0 3 * * *', '--prompt', ' '], /--prompt: is empty/],
    [['jobs', 'create', '--name', '', '--schedule', '0 3 * * *', '--prompt', 'x'], /--name: is empty/],
    [['jobs', 'update', 'job_x', '--steps', ''], /--steps: is empty/],
    [['jobs', 'remove', 'job_x', '--why', ''], /--why: is empty/],
    [['jobs', 'pause', 'job_x', '--note', '  '], /--note: is empty/],
    // an empty filter would widen a listing to everything
    [['audit', 'list', '--job', ''], /--job: is empty/],
    [['audit', 'list', '--kind', ' '], /--kind: is empty/],
    [['audit', 'export', '--job', ''], /--job: is empty/],
    [['grants', 'list', '--job', ''], /--job: is empty/],
  ])('%j exits 64 naming the option', async (args, message) => {
    const r = await runCli(args, { env });
    expect(r.stderr).toMatch(message);
    expect(r.code).toBe(64);
  });

  it('refuses --yes, saying that only a person\'s answer approves a job (I3)', async () => {
    for (const args of [['jobs', 'create', '--name', 'n', '--schedule', '0 3 * * *', '--prompt', 'x', '--yes'], ['jobs', 'update', 'job_x', '--schedule', '0 4 * * *', '--yes']]) {
      const r = await runCli(args, { env });
      expect(r.code).toBe(64);
      expect(r.stderr).toMatch(/--yes cannot approve this: .*DANGEROUS and needs a person's answer/);
    }
  });

  it('refuses an unknown YAML tag in a job file instead of warning and going on', async () => {
    const job = file('tagged.yaml', 'name: !foo nightly\nschedule: "0 3 * * *"\npayload: { kind: agent, prompt: x }\n');
    const r = await runCli(['jobs', 'create', '--file', job], { env });
    expect(r.code).toBe(65);
    expect(r.stderr).toMatch(/job file .*tagged\.yaml: not valid YAML\/JSON: line 1, column 7: Unresolved tag: !foo\n/);
    expect(r.stderr).not.toMatch(/YAMLWarning|--trace-warnings/);
  });

  it('names the timezone, not the schedule, when the timezone is wrong', () => {
    expect(() => futureFire('0 3 * * *', 'Mars/Base', new Date())).toThrow(/^timezone "Mars\/Base": not an IANA time zone/);
  });
});

describe('output into a closed pipe', () => {
  it('stops quietly when the reader has gone (| head), without a stack trace', async () => {
    const many = file('many.txt', Array.from({ length: 3000 }, (_, i) => `ls -la /tmp/dir${i}`).join('\n'));
    const child = spawn(process.execPath, [BIN, 'check', 'command', '--file', many], { cwd: ROOT, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d) => (stderr += d));
    child.stdout.once('data', () => child.stdout.destroy()); // what head -1 does after its line
    const code = await new Promise<number | null>((r) => child.on('close', r));
    expect(stderr).not.toMatch(/EPIPE|Unhandled/);
    expect(code).toBe(0);
  });
});

describe('numbers and dates are read exactly', () => {
  it.each(['0x10', ' 7 ', '1e3', '-1', '0', ''])('run --timeout %j is refused', async (value) => {
    const r = await runCli(['run', 'hi', '--timeout', value], { env });
    expect(r.stderr).toMatch(/--timeout: expected a number of seconds/);
    expect(r.code).toBe(64);
  });

  it('reads a year below 100 as that year, not 19xx', () => {
    expect(parseInstant('--since', '0050-01-01')?.toISOString()).toBe('0050-01-01T00:00:00.000Z');
    expect(() => parseInstant('--since', '0050-02-30')).toThrow(/no such calendar date/);
  });
});
