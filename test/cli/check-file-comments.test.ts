import { describe, expect, it } from 'vitest';
import { offlineCli, runCli } from '../support/cli.ts';

const { env, file } = offlineCli('echo-check-comments-');

describe('check --file skips blank and # comment lines, commands and URLs alike', () => {
  it('check url: a comment is neither judged nor printed as `?…`', async () => {
    const urls = file('urls.txt', '# public sites\nhttps://example.com/\n\n  # indented comment\nhttps://example.org/a\n');
    const r = await runCli(['check', 'url', '--no-dns', '--file', urls], { env });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout.trim().split('\n').map((l) => l.split('\t').at(-1))).toEqual(['https://example.com/', 'https://example.org/a']);
    expect(r.stdout).not.toContain('?…');
  });

  it('check command: the same lines are skipped', async () => {
    const commands = file('commands.txt', '# listing\nls -la\n\n  # indented comment\necho hi # trailing words are part of the command\n');
    const r = await runCli(['check', 'command', '--file', commands], { env });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout.trim().split('\n').map((l) => l.split('\t').at(-1))).toEqual(['ls -la', 'echo hi # trailing words are part of the command']);
  });

  it('--json lines carry the input line number, so each answer is matched to its line', async () => {
    const urls = file('urls-json.txt', '# c\nhttps://example.com/?token=x\n\nhttps://example.com/?token=y\n');
    const r = await runCli(['check', 'url', '--no-dns', '--file', urls, '--json'], { env });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout.trim().split('\n').map((l) => (JSON.parse(l) as { line: number }).line)).toEqual([2, 4]);
    const commands = file('commands-json.txt', '# c\nls\n');
    const c = await runCli(['check', 'command', '--file', commands, '--json'], { env });
    expect(JSON.parse(c.stdout.trim())).toMatchObject({ line: 2, command: 'ls', decision: 'allow' });
  });

  it.each([['command', 'commands'], ['url', 'URLs']])('check %s: a file of comments holds no inputs (65), as an empty one', async (what, plural) => {
    const only = file(`only-comments-${what}.txt`, '# one\n\n# two\n');
    const r = await runCli(what === 'url' ? ['check', 'url', '--no-dns', '--file', only] : ['check', 'command', '--file', only], { env });
    expect(r.code).toBe(65);
    expect(r.stderr).toContain(`holds no ${plural} (only blank lines, # comments or nothing)`);
  });

  it('says so in --help', async () => {
    for (const what of ['command', 'url']) {
      const r = await runCli(['check', what, '--help'], { env });
      expect(r.stdout.replace(/\s+/g, ' ')).toContain('blank lines and lines starting with # are skipped');
    }
  });
});
