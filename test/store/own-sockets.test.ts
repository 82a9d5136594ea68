import { spawn } from 'node:child_process';
import { createServer, connect, type AddressInfo, type Socket } from 'node:net';
import { describe, expect, it } from 'vitest';
import { ownConnectionPorts } from '../../src/store/own-sockets.ts';

describe('this process\'s own connections to a server', () => {
  it('are told apart from another process\'s connections to the same port', async () => {
    const accepted: Socket[] = [];
    const server = createServer((s) => accepted.push(s));
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const port = (server.address() as AddressInfo).port;
    const mine = connect(port, '127.0.0.1');
    await new Promise((r) => mine.once('connect', r));
    // another process connects and waits
    const other = spawn(process.execPath, ['-e', `const s = require('node:net').connect(${port}, '127.0.0.1', () => console.log(s.localPort)); setTimeout(() => {}, 30000)`], { stdio: ['ignore', 'pipe', 'inherit'] });
    const otherPort = Number(await new Promise<string>((r) => other.stdout!.once('data', (d) => r(String(d).trim()))));
    try {
      const own = await ownConnectionPorts(port);
      expect(own).not.toBeNull();
      expect(own!.has(mine.localPort!)).toBe(true);
      expect(own!.has(otherPort)).toBe(false);
    } finally {
      other.kill();
      mine.destroy();
      for (const s of accepted) s.destroy();
      await new Promise((r) => server.close(r));
    }
  });
});
