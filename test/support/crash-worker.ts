// A daemon replica in its own process, for kill -9 tests. Env: DB_URL, DB_SCHEMA, QUEUE_PREFIX, MARKER;
// LEASE_SECONDS; WORKER_ID=default for the daemon's own worker id.
import { defaultConfig } from '../../src/config/schema.ts';
import { startDaemon } from '../../src/daemon/daemon.ts';
import { createLogger } from '../../src/log/logger.ts';
import { crashTestConfig } from './crash-config.ts';
import { slowTool } from './slow-tool.ts';

const env = process.env as Record<string, string>;
const lease = env.LEASE_SECONDS ? { leaseSeconds: Number(env.LEASE_SECONDS) } : {};
const daemon = await startDaemon(defaultConfig(crashTestConfig(env.QUEUE_PREFIX!, lease)), {
  logger: createLogger('warn', process.stderr), database: { url: env.DB_URL!, schema: env.DB_SCHEMA! },
  queue: { kind: 'redis', url: env.REDIS_URL ?? 'redis://127.0.0.1:6379' }, http: false,
  ...(env.WORKER_ID === 'default' ? {} : { workerId: `crash-worker:${process.pid}` }),
  extraTools: [slowTool(env.MARKER!)],
});
process.stdout.write('ready\n');
process.once('SIGTERM', () => void daemon.stop());
