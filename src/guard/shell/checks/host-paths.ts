import { FINE_DEVICES, RUNTIME_DIRS, RUNTIME_SOCKET } from '../container-tables.ts';
import { canonical, deleteClass, holdsSecret, isBlockDevice, showCanon } from '../paths.ts';
import { display, plain } from '../values.ts';

/** What among a host's paths and devices hands the host over to a container or pod given it (checks/containers.ts, pods.ts, compose-files.ts). */

/** Why a host path given to a container (a mount's source, a root directory) hands over the host, or null. */
export function hostPath(v: string): string | null {
  // `$XDG_RUNTIME_DIR/docker.sock` is the engine's socket wherever the variable points
  if (RUNTIME_SOCKET.test(plain(v))) return `the container runtime's socket ${display(v)}`;
  // `-v NAME:/dst` is a named volume: only a path (absolute, `~`, `./`) is a host directory
  if (!/^[/.~\uE010]/.test(v)) return null;
  const c = canonical(v, null);
  if (c === null) return null;
  const shown = showCanon(c);
  if (RUNTIME_DIRS.test(shown)) return `the run-time directory ${shown}`;
  if (deleteClass(c) !== null) return `the host's ${shown}`;
  if (holdsSecret(c)) return `secrets in ${shown}`;
  if (isBlockDevice(c)) return `the device ${shown}`;
  return null;
}

/** A device given to a container (`SRC[:DST[:PERMS]]`) that is a disk or memory, not one commonly given (FUSE, KVM, a GPU): shown, or null. */
export function hostDevice(v: string): string | null {
  const dev = canonical(v.split(':')[0]!, null);
  return dev && isBlockDevice(dev) && !FINE_DEVICES.test(showCanon(dev)) ? showCanon(dev) : null;
}
