import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, parseConfigText } from '../../src/config/load.ts';
import { runCli } from '../support/cli.ts';

// A URL missing its scheme or a slash is the commonest slip in a config file. It must be a config problem
// naming its key (exit 78, which systemd does not restart on), not an internal error from new URL().
const cases: Array<[string, string]> = [
  ['model.base_url', 'model:\n  base_url: "127.0.0.1:8080/v1"\n  name: m\n'],
  ['model.base_url', 'model:\n  base_url: "http//host/v1"\n  name: m\n'],
  ['services.vision.base_url', 'services:\n  vision:\n    base_url: "localhost:9000"\n'],
  ['services.web_search.url', 'services:\n  web_search:\n    url: "search.example.com/q"\n'],
];

describe('a malformed URL in the config', () => {
  it.each(cases)('%s is a config problem naming the key', (key, text) => {
    let caught: unknown;
    try {
      parseConfigText(text, 'bad.yaml', {});
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(ConfigError);
    expect((caught as ConfigError).message).toContain(key);
  });

  it('config validate and the daemon exit 78 naming it, with no internal error', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'echo-bad-url-'));
    const file = join(dir, 'echo-agent.yaml');
    writeFileSync(file, cases[0]![1]);
    for (const args of [['config', 'validate'], ['daemon']]) {
      const r = await runCli(args, { env: { ECHO_AGENT_CONFIG: file } });
      expect(r.code, r.stderr).toBe(78);
      expect(r.stderr).toContain('model.base_url');
      expect(r.stderr).not.toMatch(/internal error|Invalid URL\n\s+at /);
    }
  });
});
