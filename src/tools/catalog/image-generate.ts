import { randomUUID } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { Config } from '../../config/schema.ts';
import { guardedFetch } from '../net/index.ts';
import { defineTool } from '../define.ts';
import { callService, guardInit, netFailure, secretsOf, SERVICE_MAX_BYTES, statusFailure, unready, type NetDeps } from '../net-deps.ts';
import { fail, ok, type ToolResult } from '../types.ts';
import { stoppedByAbort } from './abort.ts';
import { imageTypeOf } from './vision-analyze.ts';
import { confine, inWorkspace } from './workspace-files.ts';

const TIMEOUT_MS = 120_000;
const DEFAULT_SIZE = '1024x1024';
const EXTENSION: Readonly<Record<string, string>> = { 'image/png': 'png', 'image/jpeg': 'jpg', 'image/webp': 'webp', 'image/gif': 'gif' };

/** A fresh workspace-relative path for generated media: `generated/<uuid>.<ext>`. */
export const generatedPath = (ext: string): string => `generated/${randomUUID()}.${ext}`;

/** Checks the workspace policy for a generated file before any service is paid for. */
export async function confineGenerated(config: Config, tool: string, path: string): Promise<ToolResult | null> {
  const refused = await confine(config, { write: [path] });
  return refused ? { ...refused, error: `${tool}: cannot write ${path}: ${refused.error}` } : null;
}

/**
 * Writes a generated file; the name is fresh, so an existing file is never replaced.
 * Checked again here: the service call before it can take minutes, time enough to swap a directory for a symlink.
 */
export async function writeGenerated(config: Config, tool: string, path: string, data: Buffer, signal: AbortSignal): Promise<ToolResult | null> {
  const refused = await confineGenerated(config, tool, path);
  if (refused) return refused;
  const file = inWorkspace(config, path);
  await mkdir(dirname(file), { recursive: true });
  // the service may answer just as the call is cancelled; the signal is not given to writeFile, which would leave half a file
  if (signal.aborted) return stoppedByAbort(tool, signal, `${path} was not written`);
  await writeFile(file, data, { flag: 'wx' });
  return null;
}

export function imageGenerateTool(config: Config, net: NetDeps = {}) {
  return defineTool('image_generate', config, {
    timeoutSeconds: (2 * TIMEOUT_MS) / 1000 + 5,
    async execute(params, _ctx, { signal }) {
      const missing = unready('image_generate', config);
      if (missing) return missing;
      const probe = generatedPath('png');
      const refused = await confineGenerated(config, 'image_generate', probe);
      if (refused) return refused;
      const size = (typeof params.size === 'string' ? params.size : DEFAULT_SIZE) as '256x256' | '512x512' | '1024x1024';
      const reply = await callService(config, net, { tool: 'image_generate', service: 'image', timeoutMs: TIMEOUT_MS, signal }, (client, model) =>
        client.images.generate({
          model, prompt: String(params.prompt), size, n: 1,
          // GPT image models always answer base64 and refuse the parameter; DALL·E-style services need it
          ...(model.startsWith('gpt-image') ? {} : { response_format: 'b64_json' as const }),
        }, { signal }));
      if ('failure' in reply) return reply.failure;
      const item = reply.value.data?.[0];
      let bytes: Buffer;
      if (item?.b64_json) bytes = Buffer.from(item.b64_json, 'base64');
      else if (item?.url) {
        const fetched = await fetchResult(config, net, item.url, signal);
        if (!Buffer.isBuffer(fetched)) return fetched;
        bytes = fetched;
      } else return fail('internal', 'image_generate: the image service returned no image');
      const mime = imageTypeOf(bytes);
      if (!mime || !EXTENSION[mime]) return fail('internal', 'image_generate: the image service returned data that is not an image');
      const path = mime === 'image/png' ? probe : probe.replace(/\.png$/, `.${EXTENSION[mime]}`);
      const unwritable = await writeGenerated(config, 'image_generate', path, bytes, signal);
      if (unwritable) return unwritable;
      return ok({ path, bytes: bytes.length });
    },
  });
}

/** A service that answers with a URL instead of base64: fetched through the guard like any other request. */
async function fetchResult(config: Config, net: NetDeps, url: string, signal: AbortSignal): Promise<Buffer | ToolResult> {
  try {
    const res = await guardedFetch(url, { ...guardInit(config, net), signal, maxBytes: SERVICE_MAX_BYTES, timeoutMs: TIMEOUT_MS, headers: { 'accept-encoding': 'identity' } });
    if (res.status < 200 || res.status >= 300) return statusFailure('image_generate', 'the generated image URL', res.status);
    return res.body;
  } catch (err) {
    return netFailure('image_generate', err, secretsOf(config));
  }
}
