import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import {
  currentProcessIdentity, holderIsGone, hostProcesses, identityInWorkerId, workerIdOf, type ProcessIdentity, type ProcessProbe,
} from '../../src/daemon/process-identity.ts';

const self: ProcessIdentity = { pid: 100, boot: '0123456789ab', pidNamespace: '4026531836', startTicks: '5000' };
const probe = (running: Record<number, string | null>): ProcessProbe => ({
  isRunning: (pid) => pid in running,
  startTicks: (pid) => running[pid] ?? null,
});
const holder = (over: Partial<ProcessIdentity>) => workerIdOf('host-a', { ...self, pid: 200, startTicks: '7000', ...over });

describe('telling whether a lease holder is gone', () => {
  it.each([
    ['a holder process that no longer exists', holder({}), probe({}), true],
    ['a holder pid now given to a later process', holder({}), probe({ 200: '9000' }), true],
    ['a holder still running', holder({}), probe({ 200: '7000' }), false],
    ['a holder whose start time cannot be read (hidepid)', holder({}), probe({ 200: null }), false],
    ['a holder in another PID namespace, whatever its pid shows here', holder({ pidNamespace: '4026532000' }), probe({}), false],
    ['a holder on another boot of the kernel', holder({ boot: 'ba9876543210' }), probe({}), false],
    ['this very process', workerIdOf('host-a', self), probe({}), false],
    ['a worker id with no process identity (older daemon, other system)', 'host-a:200', probe({}), false],
  ])('%s: gone=%s', (_what, owner, p, gone) => {
    expect(holderIsGone(owner, self, p)).toBe(gone);
  });

  it('reads back the identity a worker id was made from, even when the host name holds colons and dots', () => {
    const id = workerIdOf('pod:a.b', self);
    expect(identityInWorkerId(id)).toEqual(self);
    expect(identityInWorkerId('pod:a.b:100')).toBeNull();
  });
});

describe.runIf(process.platform === 'linux')('this host\'s processes', () => {
  it('finds a real child running under its start time, and gone once it has exited', async () => {
    const me = currentProcessIdentity();
    expect(me).not.toBeNull();
    const child = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60_000)'], { stdio: 'ignore' });
    await new Promise((r) => child.once('spawn', r));
    const ticks = hostProcesses.startTicks(child.pid!);
    expect(ticks).toMatch(/^\d+$/);
    const owner = workerIdOf('here', { ...me!, pid: child.pid!, startTicks: ticks! });
    expect(holderIsGone(owner, me!, hostProcesses)).toBe(false);
    // the same pid with another start time is a later process, not the holder
    expect(holderIsGone(workerIdOf('here', { ...me!, pid: child.pid!, startTicks: String(Number(ticks) + 1) }), me!, hostProcesses)).toBe(true);
    child.kill('SIGKILL');
    await new Promise((r) => child.once('exit', r));
    expect(holderIsGone(owner, me!, hostProcesses)).toBe(true);
  });
});
