import { readdir, readFile, readlink } from 'node:fs/promises';

/**
 * Local ports of this process's own TCP connections to `remotePort` (Linux, from /proc); null where that
 * cannot be known. A library may open a connection while it is being closed (BullMQ's PostgreSQL backend
 * does, for its LISTEN client): such a connection is this process's, not another user of the server.
 */
export async function ownConnectionPorts(remotePort: number): Promise<ReadonlySet<number> | null> {
  try {
    const inodes = new Set<string>();
    for (const fd of await readdir('/proc/self/fd')) {
      const m = /^socket:\[(\d+)\]$/.exec(await readlink(`/proc/self/fd/${fd}`).catch(() => ''));
      if (m) inodes.add(m[1]!);
    }
    const ports = new Set<number>();
    for (const table of ['/proc/self/net/tcp', '/proc/self/net/tcp6']) {
      const text = await readFile(table, 'utf8').catch(() => '');
      // sl local_address rem_address st tx_queue:rx_queue tr:tm->when retrnsmt uid timeout inode …
      for (const line of text.split('\n').slice(1)) {
        const cols = line.trim().split(/\s+/);
        if (cols.length < 10 || !inodes.has(cols[9]!)) continue;
        if (parseInt(cols[2]!.split(':')[1]!, 16) === remotePort) ports.add(parseInt(cols[1]!.split(':')[1]!, 16));
      }
    }
    return ports;
  } catch {
    return null;
  }
}
