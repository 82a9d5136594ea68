import { randomUUID } from 'node:crypto';
import { lookup as dnsLookup } from 'node:dns/promises';
import { readlink, realpath } from 'node:fs/promises';
import { homedir } from 'node:os';
import type { Clock } from '../approval/ports.ts';
import type { GuardDeps } from '../guard/index.ts';
import type { PathFs } from '../guard/paths/real-path.ts';
import type { Lookup } from '../guard/ssrf/check-url.ts';

// The one adapter of the system's clock, ids, resolver, file system and home directory. The pure core
// (src/policy, src/guard, src/approval) takes them as dependencies and has no defaults; the shell wires these in.

export const systemClock: Clock = {
  now: () => new Date(),
  sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms).unref?.()),
};

/** The system resolver (getaddrinfo), every address in the order the resolver gave them. */
export const systemLookup: Lookup = async (hostname) => {
  const answers = await dnsLookup(hostname, { all: true, verbatim: true });
  return answers.map((a) => ({ address: a.address, family: a.family === 6 ? 6 : 4 }));
};

export const systemPathFs: PathFs = { realpath: (p) => realpath(p), readlink: (p) => readlink(p) };

/** Monotonic milliseconds, for ages of caches (never a time of day). */
export const monotonicMs = (): number => performance.now();

/** A new approval request's id. */
export const newApprovalId = (): string => `apr_${randomUUID().replace(/-/g, '')}`;

/** The guard's I/O on this system; `dns: false` judges URLs offline, `lookup` replaces the system resolver. */
export function systemGuardDeps(opts: { readonly dns?: boolean; readonly lookup?: Lookup } = {}): GuardDeps {
  return {
    lookup: opts.dns === false ? null : (opts.lookup ?? systemLookup),
    fs: systemPathFs,
    home: homedir,
    now: monotonicMs,
    deadline: (ms) => AbortSignal.timeout(ms),
  };
}

/** The gate's clock and request ids on this system (GateDeps.clock, GateDeps.newId). */
export const systemGatePorts: { readonly clock: Clock; readonly newId: () => string } = { clock: systemClock, newId: newApprovalId };
