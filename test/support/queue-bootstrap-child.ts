// Opens a PostgreSQL-backed run queue through a proxy, drops the connection while the worker's
// connection is still being set up, then asks the worker to run. Prints one JSON line, then proves its event loop
// still turns: a process whose worker spins on a failed setup never prints the second line.
import { openRunQueue } from '../../src/queue/run-queue.ts';
import { TEST_DATABASE_URL } from './db.ts';
import { tcpProxy } from './tcp-proxy.ts';

// as the daemon does: a library connection without an 'error' listener must not end the process
process.on('uncaughtException', (err) => {
  if (/Connection terminated|ECONNRESET|not queryable/.test(err.message)) return;
  process.stderr.write(`${err.stack ?? err.message}\n`);
  process.exit(1);
});
const proxy = await tcpProxy(5432);
const url = new URL(TEST_DATABASE_URL);
url.port = String(proxy.port);
const queue = openRunQueue({ kind: 'postgres', url: url.toString(), schema: process.env.QUEUE_SCHEMA! }, 'bootstrap-cut', { onError: () => {} });
// the worker's setup asks its server the version first: that reply never comes, and then the connection drops
proxy.holdRepliesAfter('server_version_num');
const worker = queue.work(async () => {}, { concurrency: 4, onError: () => {} });
// the setup is stuck waiting for that reply: now, and not before, its connection goes
for (const t = Date.now(); !proxy.holdingReplies(); await new Promise((r) => setTimeout(r, 10))) {
  if (Date.now() - t > 20_000) throw new Error('the worker never connected through the proxy');
}
proxy.drop();
const outcome = {
  ...await worker.run().then(() => ({ ran: true, error: null }), (err: Error) => ({ ran: false, error: err.message })),
  queue: await queue.ready().then(() => 'ready', (err: Error) => err.message),
};
process.stdout.write(`${JSON.stringify(outcome)}\n`);
await new Promise((r) => setTimeout(r, 300));
process.stdout.write('event loop alive\n');
await Promise.race([queue.close(), new Promise((r) => setTimeout(r, 3000))]);
process.exit(0);
