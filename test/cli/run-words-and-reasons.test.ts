import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { offlineCli, runCli, scriptedSessionConfig } from '../support/cli.ts';
import { useTestDatabase } from '../support/db.ts';
import { startFakeModel, type ChatBody } from '../support/fake-model.ts';

const database = useTestDatabase();
const userPrompt = (body: ChatBody) => body.messages.find((m) => m.role === 'user')?.content ?? '';
let model: Awaited<ReturnType<typeof startFakeModel>>;
let env: NodeJS.ProcessEnv;
beforeAll(async () => {
  model = await startFakeModel((body) => {
    const asked = userPrompt(body);
    if (asked === 'make a bad call' && !body.messages.some((m) => m.role === 'tool')) return { tool_calls: [{ name: 'exec', arguments: {} }] };
    return { content: `you said: ${asked}` };
  });
  const dir = mkdtempSync(join(tmpdir(), 'echo-run-words-'));
  const cfg = scriptedSessionConfig(dir, database().schema, model.url);
  env = { ECHO_AGENT_CONFIG: cfg };
});
afterAll(() => model.close());

describe('echo-agent run, as a person types it', () => {
  it('a prompt typed as several words, unquoted, is the prompt', async () => {
    const r = await runCli(['run', 'list', 'the', 'files', 'here'], { env });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe('you said: list the files here\n');
  });

  it('a call that failed says why in the summary, without the advice meant for the model', async () => {
    const r = await runCli(['run', 'make a bad call'], { env });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain('exec: deny (step 0, args.invalid) -> validation: invalid arguments for exec: command: is required');
    expect(r.stderr).not.toContain('Do not retry');
  });

  it('without a model, the error names the missing settings and the config file it read', async () => {
    const offline = offlineCli('echo-run-nomodel-');
    const r = await runCli(['run', 'hello'], { env: offline.env });
    expect(r.code).toBe(78);
    expect(r.stderr).toBe(`echo-agent: run: no model configured: model.base_url and model.name not set in config ${offline.env.ECHO_AGENT_CONFIG}\n`);
  });
});
