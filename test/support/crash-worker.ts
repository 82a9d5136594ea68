// A daemon replica in its own process, for kill -9 tests. Env: DB_URL, DB_SCHEMA, QUEUE_PREFIX, MARKER.
import { defaultConfig } from '../../src/config/schema.ts';
import { startDaemon } from '../../src/daemon/daemon.ts';
import { createLogger } from '../../src/log/logger.ts';
import { crashTestConfig } from './crash-config.ts';
import { slowTool } from './slow-tool.ts';

const env = process.env as Record<string, string>;
const daemon = await startDaemon(defaultConfig(crashTestConfig(env.QUEUE_PREFIX!)), {
  logger: createLogger('warn', process.stderr), database: { url: env.DB_URL!, schema: env.DB_SCHEMA! },
  queue: { kind: 'redis', url: env.REDIS_URL ?? 'redis://127.0.0.1:6379' }, http: false, workerId: `crash-worker:${process.pid}`,
  extraTools: [slowTool(env.MARKER!)],
});
process.stdout.write('ready\n');
process.once('SIGTERM', () => void daemon.stop());
