import { mkdtempSync, writeFileSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../support/cli.ts';
import { useTestDatabase } from '../support/db.ts';

// A start refused by the system (a port taken, a path that is a file) is the operator's to fix: the journal's
// fatal line names the error and its code, and carries no stack trace, which adds nothing to a port or a path.
const database = useTestDatabase();

describe('the fatal log line of a start the system refuses', () => {
  it('names the error and its code (EADDRINUSE), with no stack', async () => {
    const taken = createServer();
    await new Promise<void>((r) => taken.listen(0, '127.0.0.1', r));
    try {
      const dir = mkdtempSync(join(tmpdir(), 'echo-start-log-'));
      const config = join(dir, 'echo-agent.yaml');
      writeFileSync(config, [
        'database:', `  url: postgres://postgres@127.0.0.1:5432/test?options=-c%20search_path%3D${database().schema}`,
        'queue:', '  redis_url: redis://127.0.0.1:6379', `  prefix: start-log-${process.pid}`,
        'daemon:', `  data_dir: ${join(dir, 'data')}`, '  http:', `    port: ${(taken.address() as AddressInfo).port}`, '',
      ].join('\n'));
      const r = await runCli(['daemon'], { env: { ECHO_AGENT_CONFIG: config }, timeoutMs: 40_000 });
      expect(r.code, r.stderr).toBe(69);
      const fatal = `${r.stdout}\n${r.stderr}`.split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l) as Record<string, unknown>)
        .find((l) => l.level === 'fatal' || l.level === 60);
      expect(fatal).toMatchObject({ code: 'EADDRINUSE', error: expect.stringMatching(/EADDRINUSE|address already in use/) });
      expect(JSON.stringify(fatal)).not.toMatch(/"stack"/);
    } finally {
      taken.close();
    }
  }, 60_000);
});
