// Starts the embedded server of DATA_DIR on PORT and waits: a process for tests to kill mid-start.
import { createLogger } from '../../src/log/logger.ts';
import { startEmbedded } from '../../src/store/embedded.ts';

await startEmbedded({ dataDir: process.env.DATA_DIR!, port: Number(process.env.PORT), logger: createLogger('silent') });
process.stdout.write('started\n');
await new Promise(() => {});
