import { describe, expect, it } from 'vitest';
import { closedPort } from '../agent/raw-endpoint.ts';
import { defaultConfig } from '../../src/config/schema.ts';
import { startDaemon } from '../../src/daemon/daemon.ts';
import { silentLogger } from '../../src/log/logger.ts';

// "daemon: could not start: connect ECONNREFUSED 127.0.0.1:5999" left the operator to guess which of the
// daemon's dependencies that port belongs to; the error names it.
describe('a daemon start that fails on its database', () => {
  it('names database.url as what could not be reached', async () => {
    const port = await closedPort();
    const config = defaultConfig({ database: { url: `postgres://postgres@127.0.0.1:${port}/test` }, daemon: { http: { port: 0 } } });
    await expect(startDaemon(config, { logger: silentLogger, http: false })).rejects.toThrow(/^the database \(database\.url\): .*ECONNREFUSED/);
  }, 30_000);
});
