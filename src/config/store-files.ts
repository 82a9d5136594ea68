import path from 'node:path';

// The embedded store's file names, apart from the code that opens them (store/embedded-files.ts):
// the guard reads them as secrets and must not load child_process or fs to learn them.

export const PASSWORD_FILE = 'pg-password';
export const PG_DIR = 'pg';
/** The embedded server's own output. */
export const SERVER_LOG = 'pg-server.log';
/** The processes that answer for the running server (started it, or took it over), each with its start time. */
export const OWNER_FILE = 'pg-owner';
/** The start lock's name in the data dir (withStartLock). */
export const START_LOCK = 'pg.start.lock';

/** The files no tool may read or write (path.daemon_state): the embedded database's, and the configuration file this process read. */
export function protectedFiles(config: { readonly daemon: { readonly data_dir: string }; readonly loaded_from?: string }): string[] {
  return [...storeFiles(config.daemon.data_dir), ...(config.loaded_from ? [config.loaded_from] : [])];
}

/** The embedded database's files in a data dir, which no tool may read or write (path.daemon_state). */
export function storeFiles(dataDir: string): string[] {
  // the start lock too: a job writing a live pid into it would hold every later start for good
  return [PG_DIR, `${PG_DIR}.init`, PASSWORD_FILE, SERVER_LOG, `${SERVER_LOG}.1`, OWNER_FILE, START_LOCK].map((name) => path.join(dataDir, name));
}
