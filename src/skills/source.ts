import { readFile, realpath, stat } from 'node:fs/promises';
import type { Config } from '../config/schema.ts';
import { isInside } from '../guard/paths/index.ts';
import { FetchLimitError, guardedFetch, redactUrl, SsrfBlockedError } from '../tools/net/index.ts';
import type { NetDeps } from '../tools/net-deps.ts';
import { confine, inWorkspace } from '../tools/catalog/workspace-files.ts';
import type { ErrorKind } from '../tools/types.ts';
import { redactText } from '../util/redact.ts';
import { extractTarball } from './archive.ts';
import { copyPackageDir } from './copy-dir.ts';
import type { Budget } from './limits.ts';

export type { NetDeps } from '../tools/net-deps.ts';

/** An install that cannot go on, with the ToolResult kind to report it as. */
export class InstallError extends Error {
  override readonly name = 'InstallError';
  constructor(readonly kind: ErrorKind, message: string) {
    super(message);
  }
}

const ARCHIVE_NAME = /\.(tar|tgz|tar\.gz)$/i;
const SCHEME = /^([a-z][a-z0-9+.-]*):\/\//i;
export const FETCH_TIMEOUT_MS = 60_000;

/**
 * Unpacks `source` (workspace directory, local archive or http(s) URL) into `staged` and returns the
 * source as it may be recorded (URL redacted, local paths absolute).
 */
export async function stageSource(config: Config, net: NetDeps, source: string, staged: string, budget: Budget, signal: AbortSignal): Promise<string> {
  const scheme = SCHEME.exec(source)?.[1]?.toLowerCase();
  if (scheme !== undefined) {
    if (scheme !== 'http' && scheme !== 'https') throw new InstallError('validation', `source: only http(s) URLs can be installed from (got ${scheme}:)`);
    await extractTarball(await download(config, net, source, budget.maxBytes, signal), staged, budget, signal);
    return redactUrl(source);
  }
  const refused = await confine(config, { read: [source] });
  if (refused) throw new InstallError('denied', `source: ${refused.error ?? 'refused by the workspace policy'}`);
  const path = inWorkspace(config, source);
  const info = await stat(path).catch(() => null);
  if (!info) throw new InstallError('business', `source: ${source} does not exist`);
  if (info.isDirectory()) {
    // copying a tree into a directory inside itself would never end
    if (isInside(await realpath(staged), await realpath(path))) throw new InstallError('validation', `source: ${source} contains the skills directory`);
    await copyPackageDir(path, staged, budget, signal);
    return path;
  }
  if (!info.isFile() || !ARCHIVE_NAME.test(path)) {
    throw new InstallError('validation', `source: ${source} is not a directory, a .tar/.tar.gz/.tgz archive or an http(s) URL`);
  }
  if (info.size > budget.maxBytes) {
    throw new InstallError('business', `source: the archive is ${info.size} bytes, more than skills.max_archive_bytes (${budget.maxBytes})`);
  }
  await extractTarball(await readFile(path), staged, budget, signal);
  return path;
}

async function download(config: Config, net: NetDeps, url: string, maxBytes: number, signal: AbortSignal): Promise<Buffer> {
  const shown = redactUrl(url);
  try {
    const res = await guardedFetch(url, {
      maxBytes, signal, timeoutMs: FETCH_TIMEOUT_MS,
      networkPolicy: config.execution.network_policy, allowlist: config.execution.network_allowlist,
      ...(net.lookup ? { lookup: net.lookup } : {}),
      ...(net.transport ? { transport: net.transport } : {}),
    });
    if (res.status < 200 || res.status > 299) throw new InstallError('business', `source: ${shown} answered HTTP ${res.status}`);
    return res.body;
  } catch (err) {
    if (err instanceof InstallError) throw err;
    if (err instanceof SsrfBlockedError) throw new InstallError('denied', `source: ${err.url} is refused by the network guard (${err.rule}): ${err.reason}`);
    if (err instanceof FetchLimitError) {
      if (err.rule === 'fetch.too_large') throw new InstallError('business', `source: the archive at ${shown} is larger than skills.max_archive_bytes (${maxBytes} bytes)`);
      throw new InstallError(err.rule === 'fetch.timeout' ? 'timeout' : 'business', `source: ${redactText(err.message)}`);
    }
    if (signal.aborted) throw err;
    throw new InstallError('internal', `source: ${shown} could not be fetched: ${redactText((err as Error).message)}`);
  }
}
