import { describe, expect, it } from 'vitest';
import { BIN } from '../support/cli.ts';
import { daemonConfigFile, spawnDaemon } from '../support/daemon-process.ts';
import { useTestDatabase } from '../support/db.ts';
import { TEST_REDIS_URL, useRedisPrefix } from '../support/redis.ts';

// systemd's ProcSubset=pid mounts a /proc without /proc/sys: the daemon's worker id then lacks the kernel boot id,
// and a daemon restarted after a kill cannot tell that this one is gone. It must say so, not fall back silently.
const database = useTestDatabase();
const prefix = useRedisPrefix('test-identity');
const asRoot = process.getuid?.() === 0;

describe('a daemon that cannot read its boot id', () => {
  it.skipIf(!asRoot)('warns at start that a restarted daemon would wait out the lease, and names its worker without the boot id', async () => {
    const config = daemonConfigFile(database().schema, { redisUrl: TEST_REDIS_URL, prefix });
    // a mount namespace of its own, with /proc as ProcSubset=pid mounts it
    const daemon = spawnDaemon(config, ['unshare', '-m', '--propagation', 'private', 'sh', '-c', `mount -t proc -o subset=pid proc /proc && exec "${process.execPath}" "${BIN}" daemon`]);
    await daemon.until('daemon started');
    daemon.child.kill('SIGTERM');
    expect(await daemon.exited, daemon.log()).toBe(0);
    const warning = (daemon.lines() as { msg: string; worker?: string }[]).find((l) => l.msg.includes('cannot read its kernel boot id'));
    expect(warning?.msg).toContain('waits out daemon.lease_seconds');
    expect(warning?.worker).toMatch(/^[^@]+:\d+$/);
  }, 90_000);
});
