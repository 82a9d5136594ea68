import { promises as fs } from 'node:fs';
import type { Logger } from '../log/logger.ts';

/**
 * Rule embedded.server_log_bound: pg-server.log is kept near SERVER_LOG_LIMIT_BYTES, with one older file beside it
 * (`pg-server.log.1`), so a long-lived server cannot fill the disk with its own log. The bound on disk is about
 * twice the limit, plus what the server writes in one check interval.
 */
export const SERVER_LOG_LIMIT_BYTES = 10 * 1024 * 1024;
/** How often a process that answers for the server looks at the log's size. */
export const SERVER_LOG_CHECK_MS = 60_000;

const older = (logFile: string): string => `${logFile}.1`;

/** Before a start (no server writes it): a log above the limit becomes the one older file. */
export async function rotateServerLogAtStart(logFile: string, limit = SERVER_LOG_LIMIT_BYTES): Promise<boolean> {
  const st = await fs.stat(logFile).catch(() => null);
  if (!st || st.size <= limit) return false;
  await fs.rename(logFile, older(logFile));
  return true;
}

/**
 * While the server runs (it holds the file open in append mode): above the limit, the log is copied to the older
 * file and emptied in place, so the server's next line lands at its start. The lines written between the copy and
 * the truncation are lost: a few at most, in a log that has grown past the limit.
 */
export async function rotateServerLogInPlace(logFile: string, limit = SERVER_LOG_LIMIT_BYTES): Promise<boolean> {
  const st = await fs.stat(logFile).catch(() => null);
  if (!st || st.size <= limit) return false;
  await fs.copyFile(logFile, older(logFile));
  await fs.chmod(older(logFile), 0o600).catch(() => {});
  await fs.truncate(logFile, 0);
  return true;
}

/** Checks the log's size now and then while this process answers for the server; returns the way to stop checking. */
export function watchServerLog(logFile: string, logger: Logger, everyMs = SERVER_LOG_CHECK_MS, limit = SERVER_LOG_LIMIT_BYTES): () => void {
  const timer = setInterval(() => {
    rotateServerLogInPlace(logFile, limit).then((rotated) => {
      if (rotated) logger.info({ log: logFile, kept: older(logFile), limit_bytes: limit, rule: 'embedded.server_log_bound' }, 'the embedded PostgreSQL log passed its size limit; moved it to the older file and started it afresh');
    }, (err: unknown) => logger.warn({ err, log: logFile }, 'could not rotate the embedded PostgreSQL log'));
  }, everyMs);
  timer.unref();
  return () => clearInterval(timer);
}
