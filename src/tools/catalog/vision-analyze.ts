import { open, stat } from 'node:fs/promises';
import type { Config } from '../../config/schema.ts';
import { guardedFetch, HAS_SCHEME, redactUrl } from '../net/index.ts';
import { defineTool } from '../define.ts';
import { callService, guardInit, netFailure, secretsOf, statusFailure, unready, type NetDeps } from '../net-deps.ts';
import { fail, ok, type ToolResult } from '../types.ts';
import { parseContentType } from './web-fetch.ts';
import { confine, inWorkspace } from './workspace-files.ts';

const TIMEOUT_MS = 60_000;
const DEFAULT_QUESTION = 'Describe this image.';

const MAGIC: readonly [string, (b: Buffer) => boolean][] = [
  ['image/png', (b) => b.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))],
  ['image/jpeg', (b) => b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff],
  ['image/gif', (b) => b.subarray(0, 4).toString('latin1') === 'GIF8'],
  ['image/webp', (b) => b.subarray(0, 4).toString('latin1') === 'RIFF' && b.subarray(8, 12).toString('latin1') === 'WEBP'],
];

/** The image type of some bytes, by their signature (PNG, JPEG, GIF, WebP), or undefined. */
export function imageTypeOf(bytes: Buffer): string | undefined {
  return MAGIC.find(([, test]) => test(bytes))?.[0];
}

type Image = { mime: string; data: Buffer };

async function readWorkspaceImage(config: Config, path: string, maxBytes: number): Promise<Image | ToolResult> {
  const refused = await confine(config, { read: [path] });
  if (refused) return { ...refused, error: `image: ${refused.error}` };
  const file = inWorkspace(config, path);
  const info = await stat(file).catch(() => null);
  if (!info) return fail('business', `image: ${path} does not exist`);
  if (!info.isFile()) return fail('business', `image: ${path} is not a regular file`);
  if (info.size > maxBytes) return fail('business', `image: ${path} is ${info.size} bytes, more than the ${maxBytes} allowed`);
  const handle = await open(file, 'r');
  let data: Buffer;
  try {
    data = await handle.readFile();
  } finally {
    await handle.close();
  }
  const mime = imageTypeOf(data);
  return mime ? { mime, data } : fail('business', `image: ${path} is not a PNG, JPEG, GIF or WebP image`);
}

async function fetchImage(config: Config, net: NetDeps, url: string, maxBytes: number, signal: AbortSignal, approvedTargets: readonly string[] | undefined): Promise<Image | ToolResult> {
  let res;
  try {
    res = await guardedFetch(url, { ...guardInit(config, net), signal, ...(approvedTargets ? { approvedTargets } : {}), maxBytes, timeoutMs: config.tools.web_fetch.timeout_seconds * 1000, headers: { accept: 'image/*', 'accept-encoding': 'identity' } });
  } catch (err) {
    return netFailure('vision_analyze', err, secretsOf(config));
  }
  if (res.status < 200 || res.status >= 300) return statusFailure('vision_analyze', `image URL ${redactUrl(url)}`, res.status);
  const { type } = parseContentType(res.headers['content-type']);
  if (!type.startsWith('image/')) return fail('business', `image: ${redactUrl(url)} returned content type "${type || '(none)'}", not an image`);
  return { mime: type, data: res.body };
}

/** Sends a workspace image or an http(s) image (fetched through the SSRF guard) to the vision model as a data: URL. */
export function visionAnalyzeTool(config: Config, net: NetDeps = {}) {
  return defineTool('vision_analyze', config, {
    timeoutSeconds: (TIMEOUT_MS + config.tools.web_fetch.timeout_seconds * 1000) / 1000 + 5,
    async execute(params, _ctx, { signal, approval }) {
      const missing = unready('vision_analyze', config);
      if (missing) return missing;
      const source = String(params.image);
      const maxBytes = config.tools.read_max_bytes;
      let image: Image | ToolResult;
      if (HAS_SCHEME.test(source)) {
        if (!/^https?:\/\//i.test(source)) return fail('validation', 'image: must be a workspace path or an http(s) URL');
        image = await fetchImage(config, net, source, maxBytes, signal, approval?.approved_targets);
      } else {
        image = await readWorkspaceImage(config, source, maxBytes);
      }
      if (!('data' in image)) return image;
      const question = typeof params.question === 'string' && params.question.trim() !== '' ? params.question : DEFAULT_QUESTION;
      const dataUrl = `data:${image.mime};base64,${image.data.toString('base64')}`;
      const reply = await callService(config, net, { tool: 'vision_analyze', service: 'vision', timeoutMs: TIMEOUT_MS, signal }, (client, model) =>
        client.chat.completions.create({
          model,
          messages: [{ role: 'user', content: [{ type: 'text', text: question }, { type: 'image_url', image_url: { url: dataUrl } }] }],
        }, { signal }));
      if ('failure' in reply) return reply.failure;
      const answer = reply.value.choices[0]?.message?.content;
      if (typeof answer !== 'string' || answer.trim() === '') return fail('internal', 'vision_analyze: the vision service returned no answer');
      return ok({ answer });
    },
  });
}
