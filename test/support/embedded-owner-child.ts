// A process using the embedded server of DATA_DIR on PORT as a command does (ADOPT=1: as a daemon does), until a line
// on stdin asks it to stop() and exit. Its log lines (JSON) and its markers ({"marker": ...}) go to stdout.
import { createLogger } from '../../src/log/logger.ts';
import { startEmbedded } from '../../src/store/embedded.ts';

const server = await startEmbedded({ dataDir: process.env.DATA_DIR!, port: Number(process.env.PORT), logger: createLogger('debug', process.stdout), adopt: process.env.ADOPT === '1' });
process.stdout.write(`${JSON.stringify({ marker: 'started', owned: server.owned })}\n`);
process.stdin.once('data', () => {
  void server.stop().then(() => {
    process.stdout.write(`${JSON.stringify({ marker: 'stopped' })}\n`);
    process.exit(0);
  });
});
// the server's child handle is unreferenced: a timer keeps this process running
setInterval(() => {}, 60_000);
