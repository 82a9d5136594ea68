// Starts the embedded server of DATA_DIR on PORT and waits: a process for tests to kill mid-start.
// HANDLES_SIGINT=1: it handles SIGINT itself, as the daemon does (graceful shutdown); otherwise it is a plain command.
import { createLogger } from '../../src/log/logger.ts';
import { startEmbedded } from '../../src/store/embedded.ts';

if (process.env.HANDLES_SIGINT === '1') process.on('SIGINT', () => process.stdout.write('SIGINT handled\n'));
await startEmbedded({ dataDir: process.env.DATA_DIR!, port: Number(process.env.PORT), logger: createLogger('silent') });
process.stdout.write('started\n');
// EXIT_ON_INPUT=1: a line on stdin ends it through process.exit, as a command does on an error or a closed pipe
if (process.env.EXIT_ON_INPUT === '1') process.stdin.once('data', () => process.exit(0));
// a timer keeps it running: the server's child handle is unreferenced, so it would not
setInterval(() => {}, 60_000);
