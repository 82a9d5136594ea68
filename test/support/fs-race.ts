/**
 * Hooks on `node:fs/promises`' `open`, for tests that play a racing process: a hook
 * runs at the moment a symlink would be swapped, and is spent unless it returns
 * false (not this file; wait for the next). A test file installs them with
 *   vi.mock('node:fs/promises', async (importOriginal) => withRaceHooks(await importOriginal()))
 */
type FsPromises = typeof import('node:fs/promises');
type Hook = (path: string) => boolean | void;

export const race: { beforeOpen: Hook | null; afterClose: Hook | null } = { beforeOpen: null, afterClose: null };

function fire(name: keyof typeof race, path: string): void {
  const hook = race[name];
  if (hook && hook(path) !== false && race[name] === hook) race[name] = null;
}

/** Arms a hook for the first open of a temp file (atomicWrite's), past the reads before it. */
export const onTempFile = (run: () => void): Hook => (path) => {
  if (!path.endsWith('.echo-agent.tmp')) return false;
  run();
};

export function withRaceHooks(real: FsPromises): FsPromises {
  return {
    ...real,
    open: async (...args: Parameters<FsPromises['open']>) => {
      const path = String(args[0]);
      fire('beforeOpen', path);
      const handle = await real.open(...args);
      const close = handle.close.bind(handle);
      // a file written through a handle is complete once the handle is closed
      handle.close = async () => {
        await close();
        fire('afterClose', path);
      };
      return handle;
    },
  };
}
