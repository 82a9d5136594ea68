import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../support/cli.ts';
import { useTestDatabase } from '../support/db.ts';
import { startFakeModel, type ChatBody } from '../support/fake-model.ts';

const database = useTestDatabase();
const HOOK_TOKEN = 'TOKEN123456';
const SECRETS = ['sk-live-ABCDEFGHIJKLMNOPQRSTUV', 'pa55word', 'ghp_abcdefghijklmnopqrstuvwxyz0123'];
const LEAKY = `Done. The api key is ${SECRETS[0]}, the mirror is https://bob:${SECRETS[1]}@host.example/x and the token ${SECRETS[2]}.`;
const PLAIN = 'Done: 3 errors, 2 warnings; see https://example.com/report?page=2 for a basic summary.';

const prompt = (body: ChatBody) => body.messages.find((m) => m.role === 'user')?.content ?? '';
let model: Awaited<ReturnType<typeof startFakeModel>>;
let env: NodeJS.ProcessEnv;
beforeAll(async () => {
  model = await startFakeModel((body, n) => {
    const asked = prompt(body);
    if (asked.includes('read the config')) {
      const path = asked.includes('copy') ? 'copy-of-config.yaml' : 'echo-agent.yaml';
      return body.messages.some((m) => m.role === 'tool') ? { content: 'read it' } : { tool_calls: [{ name: 'read_file', arguments: { path } }] };
    }
    return { content: asked.includes('plain') ? PLAIN : LEAKY, tokens: n };
  });
  const dir = mkdtempSync(join(tmpdir(), 'echo-run-redaction-'));
  const cfg = join(dir, 'echo-agent.yaml');
  const text = [
    'database:', `  url: postgres://postgres@127.0.0.1:5432/test?options=-c%20search_path%3D${database().schema}`,
    'model:', `  base_url: ${model.url}`, '  name: scripted',
    'tools:', `  workspace: ${dir}`,
    'notify:', '  targets:', '    ops-hook:', `      url: https://example.com/hook/${HOOK_TOKEN}`, '',
  ].join('\n');
  writeFileSync(cfg, text);
  // the file read is refused (path.daemon_state); a copy someone left in the workspace is not, and is redacted
  writeFileSync(join(dir, 'copy-of-config.yaml'), text);
  env = { ECHO_AGENT_CONFIG: cfg };
});
afterAll(() => model.close());

describe('echo-agent run prints the model\'s answer redacted, as the daemon\'s run output is (I11)', () => {
  it('a key, a URL password and a GitHub token in the final answer are [REDACTED] on stdout', async () => {
    const r = await runCli(['run', 'say something leaky'], { env });
    expect(r.code, r.stderr).toBe(0);
    for (const s of SECRETS) expect(r.stdout).not.toContain(s);
    expect(r.stdout).toContain('The api key is [REDACTED], the mirror is https://[REDACTED]@host.example/x and the token [REDACTED].');
  });

  it('and in --json', async () => {
    const r = await runCli(['run', 'say something leaky', '--json'], { env });
    expect(r.code, r.stderr).toBe(0);
    for (const s of SECRETS) expect(r.stdout).not.toContain(s);
    expect(JSON.parse(r.stdout)).toMatchObject({ status: 'completed', final: expect.stringContaining('https://[REDACTED]@host.example/x') });
  });

  it('an ordinary answer is printed as the model gave it', async () => {
    const r = await runCli(['run', 'say something plain'], { env });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe(`${PLAIN}\n`);
  });
});

describe('a notify target\'s URL is a configured secret', () => {
  it('a model may not read the config file this process read at all', async () => {
    const r = await runCli(['run', 'read the config'], { env });
    expect(r.code, r.stderr).toBe(0);
    const sent = JSON.stringify(model.toolMessages());
    expect(sent).toContain('path.daemon_state');
    expect(sent).not.toContain(HOOK_TOKEN);
    expect(sent).not.toContain('ops-hook:');
  });

  it('a model reading a copy of the config file is sent the target\'s name, not its URL or the token in its path', async () => {
    const r = await runCli(['run', 'read the config copy'], { env });
    expect(r.code, r.stderr).toBe(0);
    const [read] = model.toolMessages() as { ok: boolean; output: unknown }[];
    expect(read?.ok, JSON.stringify(read)).toBe(true);
    const sent = JSON.stringify(read);
    expect(sent).not.toContain(HOOK_TOKEN);
    expect(sent).toContain('ops-hook:');
    expect(sent).toContain('url: [REDACTED]');
    // the line breaks of the file survive: the model reads YAML, not one run-on line
    expect(sent).toContain('name: scripted\\ntools:');
  });
});
