import { mkdtempSync, writeFileSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../support/cli.ts';
import { useTestDatabase } from '../support/db.ts';

const database = useTestDatabase();

describe('a daemon that cannot finish starting', () => {
  it('exits with 69 and says why, instead of running on without its HTTP port or signal handling', async () => {
    const taken = createServer();
    await new Promise<void>((r) => taken.listen(0, '127.0.0.1', r));
    const port = (taken.address() as AddressInfo).port;
    try {
      const dir = mkdtempSync(join(tmpdir(), 'echo-start-failure-'));
      const config = join(dir, 'echo-agent.yaml');
      writeFileSync(config, [
        'database:', `  url: postgres://postgres@127.0.0.1:5432/test?options=-c%20search_path%3D${database().schema}`,
        'queue:', '  redis_url: redis://127.0.0.1:6379', `  prefix: start-failure-${process.pid}`,
        'daemon:', `  data_dir: ${join(dir, 'data')}`, '  http:', `    port: ${port}`, '',
      ].join('\n'));
      const started = Date.now();
      const r = await runCli(['daemon'], { env: { ECHO_AGENT_CONFIG: config }, timeoutMs: 40_000 });
      expect(r.code, r.stderr).toBe(69);
      expect(r.stderr).toMatch(/daemon: could not start: .*(EADDRINUSE|address already in use)/);
      expect(Date.now() - started).toBeLessThan(30_000);
    } finally {
      taken.close();
    }
  }, 60_000);
});
