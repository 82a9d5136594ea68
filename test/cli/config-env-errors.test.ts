import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../support/cli.ts';

// A config whose credential fields name environment variables that are not set: every command must say which
// variable is missing. Redacting the whole line took `api_key: environment variable …` and `Authorization: …`
// for a credential and its value, and printed `[REDACTED]` where the problem should be.
const dir = mkdtempSync(join(tmpdir(), 'echo-config-env-'));
const file = join(dir, 'echo-agent.yaml');
writeFileSync(file, [
  'services:\n  web_search:\n    url: https://s.example.com\n    api_key: ${ECHO_TEST_UNSET_TOKEN}',
  'notify:\n  targets:\n    ops:\n      url: https://hooks.example.com/x\n      headers: { Authorization: "Bearer ${ECHO_TEST_UNSET_HOOK}" }',
].join('\n'));

describe('a config naming unset environment variables for credentials', () => {
  it.each([[['jobs', 'list']], [['daemon']], [['config', 'validate']]])('%j names each missing variable at its key, exit 78, nothing hidden', async (args) => {
    const r = await runCli([...args, '--config', file]);
    expect(r.code).toBe(78);
    expect(r.stderr).toContain('services.web_search.api_key: environment variable ECHO_TEST_UNSET_TOKEN is not set');
    expect(r.stderr).toContain('notify.targets.ops.headers.Authorization: environment variable ECHO_TEST_UNSET_HOOK is not set');
    expect(r.stderr).not.toContain('REDACTED');
  });
});
