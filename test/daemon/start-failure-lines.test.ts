import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { closedPort } from '../agent/raw-endpoint.ts';
import { runCli } from '../support/cli.ts';

/** The daemon's JSON log lines from what it printed. */
const jsonLines = (text: string) => text.split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l) as Record<string, unknown>);

// What a journal and its alert rules get from a daemon that cannot start: one fatal line whose code is the
// system's (ECONNREFUSED, ENOTFOUND, ENOTDIR), and one stderr line, not one journal entry per line of a cause
describe('the lines a failed daemon start leaves', () => {
  it('the fatal line carries the root cause\'s code (ECONNREFUSED), not the wrapper\'s that names the dependency', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'echo-start-code-'));
    const config = join(dir, 'echo-agent.yaml');
    writeFileSync(config, ['database:', `  url: postgres://postgres@127.0.0.1:${await closedPort()}/test`, 'daemon:', `  data_dir: ${join(dir, 'data')}`, '  http:', '    port: 0', ''].join('\n'));
    const r = await runCli(['daemon'], { env: { ECHO_AGENT_CONFIG: config }, timeoutMs: 40_000 });
    expect(r.code, r.stderr).toBe(69);
    const fatal = jsonLines(r.stdout).find((l) => l.level === 'fatal');
    expect(fatal).toMatchObject({ code: 'ECONNREFUSED', error: expect.stringMatching(/^the database \(database\.url\): .*ECONNREFUSED/) });
  }, 60_000);

  it('the stderr line stays one line when the cause spans several', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'echo-start-lines-'));
    // a file in the workspace's path, whose name holds a line break: the cause's message spans two lines
    writeFileSync(join(dir, 'a\nb'), 'not a directory');
    const config = join(dir, 'echo-agent.yaml');
    writeFileSync(config, [
      'database:', '  url: postgres://postgres@127.0.0.1:5432/test', 'tools:', `  workspace: ${JSON.stringify(join(dir, 'a\nb', 'ws'))}`,
      'daemon:', `  data_dir: ${join(dir, 'data')}`, '  http:', '    port: 0', '',
    ].join('\n'));
    const r = await runCli(['daemon'], { env: { ECHO_AGENT_CONFIG: config }, timeoutMs: 40_000 });
    expect(r.code, r.stderr).toBe(78);
    expect(r.stderr.trimEnd().split('\n')).toEqual([expect.stringMatching(/^echo-agent: daemon: could not start: tools\.workspace .*a \| b.*ENOTDIR/)]);
    // the JSON line keeps the message as it was
    expect(jsonLines(r.stdout).find((l) => l.level === 'fatal')).toMatchObject({ code: 'ENOTDIR', error: expect.stringContaining('a\nb') });
  }, 60_000);
});
