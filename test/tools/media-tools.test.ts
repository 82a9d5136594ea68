import type { ServerResponse } from 'node:http';
import { mkdir, mkdtemp, readdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { defaultConfig, type ConfigInput } from '../../src/config/schema.ts';
import { undiciTransport } from '../../src/tools/net/index.ts';
import { imageGenerateTool } from '../../src/tools/catalog/image-generate.ts';
import { textToSpeechTool } from '../../src/tools/catalog/text-to-speech.ts';
import { visionAnalyzeTool } from '../../src/tools/catalog/vision-analyze.ts';
import { buildContext } from '../../src/tools/context.ts';
import { MemoryEffectLedger } from '../../src/tools/effects.ts';
import { executeTool } from '../../src/tools/executor.ts';
import { guardedFetchAdapter } from '../../src/tools/guarded-fetch-adapter.ts';
import type { NetDeps } from '../../src/tools/net-deps.ts';
import type { Tool } from '../../src/tools/types.ts';
import { fakeInternet, json, lookupOf, scriptedServer, type ScriptedServer, type SeenRequest } from '../support/fake-internet.ts';

const API = '93.184.216.34';
const IMAGES = '93.184.216.35';
const KEY = 'sk-test-media-key-0123456789abcdef';
const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==', 'base64');
const MP3 = Buffer.concat([Buffer.from('ID3'), Buffer.alloc(200, 7)]);

/** An OpenAI-compatible service: checks the bearer key, and echoes the key it got (bare) in its 401. */
function openaiScript(req: SeenRequest, res: ServerResponse) {
  const got = String(req.headers.authorization).replace(/^Bearer /, '');
  if (got !== KEY) return json(res, 401, { error: { message: `Incorrect API key provided: ${got}`, type: 'invalid_request_error' } });
  if (req.url === '/v1/chat/completions') {
    return json(res, 200, { id: 'c1', object: 'chat.completion', created: 1, model: 'm', choices: [{ index: 0, finish_reason: 'stop', message: { role: 'assistant', content: 'a small square' } }] });
  }
  if (req.url === '/v1/images/generations') return json(res, 200, { created: 1, data: [{ b64_json: PNG.toString('base64') }] });
  if (req.url === '/v1/audio/speech') return void res.writeHead(200, { 'content-type': 'audio/mpeg' }).end(MP3);
  json(res, 404, { error: { message: 'no such route' } });
}

let api: ScriptedServer;
let images: ScriptedServer;
let workspace: string;

beforeAll(async () => {
  api = await scriptedServer(openaiScript);
  images = await scriptedServer((q, r) => (q.url === '/cat.png' ? r.writeHead(200, { 'content-type': 'image/png' }).end(PNG) : r.writeHead(200, { 'content-type': 'text/html' }).end('<p>hi</p>')));
});
afterAll(async () => {
  await Promise.all([api.close(), images.close()]);
});
beforeEach(async () => {
  workspace = await mkdtemp(join(tmpdir(), 'echo-media-'));
});
afterEach(async () => {
  api.reset();
  images.reset();
  await rm(workspace, { recursive: true, force: true });
});

const net = (): NetDeps => ({
  lookup: lookupOf({ 'api.test': [API], 'img.test': [IMAGES] }),
  transport: undiciTransport({ connector: fakeInternet({ [`${API}:80`]: api.port, [`${IMAGES}:80`]: images.port }).connector }),
});

const endpoint = (over: Record<string, string> = {}) => ({ base_url: 'http://api.test/v1', api_key: KEY, ...over });
const configOf = (over: ConfigInput = {}): ConfigInput => ({
  ...over,
  tools: { workspace, ...over.tools },
  services: { vision: endpoint(), image: endpoint(), speech: endpoint(), ...over.services },
});

type Factory = (config: ReturnType<typeof defaultConfig>, net: NetDeps) => Tool;
const run = (factory: Factory, params: Record<string, unknown>, over: ConfigInput = {}, deps: NetDeps = net()) =>
  executeTool(factory(defaultConfig(configOf(over)), deps), params, buildContext());
const bodyOf = (i = 0) => JSON.parse(api.requests[i]!.body.toString('utf8')) as Record<string, any>;
const generated = async () => (await readdir(join(workspace, 'generated')).catch(() => [] as string[])).sort();

describe('vision_analyze', () => {
  it('sends a workspace image as a data: URL with the question, to the default model', async () => {
    await mkdir(join(workspace, 'pics'));
    await writeFile(join(workspace, 'pics', 'square.png'), PNG);
    const r = await run(visionAnalyzeTool, { image: 'pics/square.png', question: 'What shape?' });
    expect(r).toEqual({ success: true, output: { answer: 'a small square' } });
    const body = bodyOf();
    expect(body.model).toBe('gpt-4o-mini');
    expect(body.messages[0].content).toEqual([
      { type: 'text', text: 'What shape?' },
      { type: 'image_url', image_url: { url: `data:image/png;base64,${PNG.toString('base64')}` } },
    ]);
  });

  it('fetches an http(s) image through the guard, using the configured model', async () => {
    const r = await run(visionAnalyzeTool, { image: 'http://img.test/cat.png' }, { services: { vision: endpoint({ model: 'vision-x' }) } });
    expect(r).toMatchObject({ success: true, output: { answer: 'a small square' } });
    expect(images.requests.map((q) => q.url)).toEqual(['/cat.png']);
    expect(bodyOf().model).toBe('vision-x');
    expect(bodyOf().messages[0].content[1].image_url.url).toBe(`data:image/png;base64,${PNG.toString('base64')}`);
  });

  it.each([
    ['a URL that is not an image', 'http://img.test/page', 'text/html'],
    ['a workspace file that is not an image', 'notes.txt', 'not a PNG, JPEG, GIF or WebP'],
    ['a missing workspace file', 'nothing.png', 'does not exist'],
  ])('refuses %s without calling the model', async (_label, image, message) => {
    await writeFile(join(workspace, 'notes.txt'), 'hello');
    const r = await run(visionAnalyzeTool, { image });
    expect(r).toMatchObject({ success: false, errorKind: 'business' });
    expect(r.error).toContain(message);
    expect(api.requests).toEqual([]);
  });

  it('refuses a path outside the workspace when restrict_to_workspace is on', async () => {
    const outside = await mkdtemp(join(tmpdir(), 'echo-media-outside-'));
    try {
      await writeFile(join(outside, 'x.png'), PNG);
      const r = await run(visionAnalyzeTool, { image: join(outside, 'x.png') }, { tools: { restrict_to_workspace: true } });
      expect(r).toMatchObject({ success: false, errorKind: 'denied' });
      expect(r.error).toContain('outside the workspace');
      expect(api.requests).toEqual([]);
    } finally {
      await rm(outside, { recursive: true, force: true });
    }
  });

  it.each([
    ['http://169.254.169.254/latest/meta-data/', 'ssrf.ip.metadata'],
    ['http://127.0.0.1:{port}/cat.png', 'ssrf.ip.loopback'],
  ])('refuses the image URL %s before connecting', async (template, rule) => {
    const r = await run(visionAnalyzeTool, { image: template.replace('{port}', String(images.port)) }, {}, {});
    expect(r).toMatchObject({ success: false, errorKind: 'denied' });
    expect(r.error).toContain(rule);
    expect(images.connections + api.connections).toBe(0);
  });

  it('refuses a non-http scheme as a validation error naming image', async () => {
    const r = await run(visionAnalyzeTool, { image: 'file:///etc/passwd' });
    expect(r).toMatchObject({ success: false, errorKind: 'validation' });
    expect(r.error).toContain('image:');
  });
});

describe('image_generate', () => {
  it.each([
    ['the default GPT image model, no response_format', undefined, 'gpt-image-1', undefined],
    ['a DALL·E-style model, asking for b64_json', 'dall-e-2', 'dall-e-2', 'b64_json'],
  ])('writes the PNG under generated/ (%s)', async (_label, model, sentModel, format) => {
    const r = await run(imageGenerateTool, { prompt: 'a red square', size: '512x512' }, model ? { services: { image: endpoint({ model }) } } : {});
    expect(r.success).toBe(true);
    const out = r.output as { path: string; bytes: number };
    expect(out.path).toMatch(/^generated\/[0-9a-f-]{36}\.png$/);
    expect(out.bytes).toBe(PNG.length);
    expect(await readFile(join(workspace, out.path))).toEqual(PNG);
    expect(bodyOf()).toMatchObject({ prompt: 'a red square', size: '512x512', model: sentModel, n: 1 });
    expect(bodyOf().response_format).toBe(format);
  });

  it('writes nothing and calls no service when safe_write_root excludes generated/', async () => {
    await mkdir(join(workspace, 'exports'));
    const r = await run(imageGenerateTool, { prompt: 'x' }, { tools: { safe_write_root: 'exports' } });
    expect(r).toMatchObject({ success: false, errorKind: 'denied' });
    expect(r.error).toContain('safe_write_root');
    expect(api.requests).toEqual([]);
    expect(await generated()).toEqual([]);
  });
});

describe('a generated file is checked again when it is written', () => {
  it('refuses the write when generated/ became a symlink out of the workspace during the service call', async () => {
    const outside = await mkdtemp(join(tmpdir(), 'echo-media-outside-'));
    api.answer((req, res) => {
      // while the service "works", generated/ is swapped for a link to a directory outside
      void symlink(outside, join(workspace, 'generated')).then(() => openaiScript(req, res));
    });
    const r = await run(imageGenerateTool, { prompt: 'x' }, { tools: { restrict_to_workspace: true } });
    expect(r).toMatchObject({ success: false, errorKind: 'denied' });
    expect(await readdir(outside)).toEqual([]);
    await rm(outside, { recursive: true, force: true });
  });
});

describe('text_to_speech', () => {
  it('writes the audio as generated/<uuid>.mp3 with the default voice and model', async () => {
    const r = await run(textToSpeechTool, { text: 'hello there' });
    const out = r.output as { path: string; bytes: number };
    expect(out.path).toMatch(/^generated\/[0-9a-f-]{36}\.mp3$/);
    expect(await readFile(join(workspace, out.path))).toEqual(MP3);
    expect(out.bytes).toBe(MP3.length);
    expect(bodyOf()).toMatchObject({ input: 'hello there', voice: 'alloy', model: 'tts-1', response_format: 'mp3' });
  });

  it('uses the voice argument', async () => {
    await run(textToSpeechTool, { text: 'hi', voice: 'nova' });
    expect(bodyOf().voice).toBe('nova');
  });

  it('writes nothing and calls no service when safe_write_root excludes generated/', async () => {
    const r = await run(textToSpeechTool, { text: 'x' }, { tools: { safe_write_root: 'exports' } });
    expect(r).toMatchObject({ success: false, errorKind: 'denied' });
    expect(api.requests).toEqual([]);
    expect(await generated()).toEqual([]);
  });
});

const MEDIA: [string, Factory, Record<string, unknown>, 'vision' | 'image' | 'speech'][] = [
  ['vision_analyze', visionAnalyzeTool, { image: 'http://img.test/cat.png' }, 'vision'],
  ['image_generate', imageGenerateTool, { prompt: 'p' }, 'image'],
  ['text_to_speech', textToSpeechTool, { text: 't' }, 'speech'],
];

describe('every media tool', () => {
  it.each(MEDIA)('%s is not ready without its key, and is unavailable naming it if called anyway', async (name, factory, params, service) => {
    const tool = factory(defaultConfig({ tools: { workspace }, services: { [service]: { base_url: 'http://api.test/v1' } } }), net());
    expect(tool.isReady()).toBe(false);
    expect(tool.readinessDetail()[1]).toContain(`services.${service}.api_key`);
    const r = await executeTool(tool, params, buildContext());
    expect(r).toMatchObject({ success: false, errorKind: 'unavailable' });
    expect(r.error).toContain(`${name}: missing config: services.${service}.api_key`);
    expect(api.connections).toBe(0);
  });

  it.each(MEDIA)('%s never shows the api key, even when the service echoes it in a 401', async (_name, factory, params, service) => {
    // no shape a generic redactor knows: only scrubbing the configured secret hides it
    const wrong = 'wrong-key-shown-nowhere-0123456789';
    const r = await run(factory, params, { services: { [service]: endpoint({ api_key: wrong }) } });
    expect(r).toMatchObject({ success: false, errorKind: 'unavailable' });
    expect(r.error).toContain('HTTP 401');
    expect(api.requests.at(-1)!.headers.authorization).toBe(`Bearer ${wrong}`);
    expect(JSON.stringify(r)).not.toContain(wrong);
  });

  it.each(MEDIA)('%s refuses a service base_url on this machine without connecting', async (_name, factory, params, service) => {
    const r = await run(factory, params, { services: { [service]: endpoint({ base_url: `http://127.0.0.1:${api.port}/v1` }) } });
    expect(r).toMatchObject({ success: false, errorKind: 'denied' });
    expect(r.error).toContain('ssrf.ip.loopback');
    expect(api.connections).toBe(0);
  });

  it.each(MEDIA)('%s refuses a service host outside the restricted allowlist', async (_name, factory, params) => {
    const r = await run(factory, params, { execution: { network_policy: 'restricted', network_allowlist: ['img.test'] } });
    expect(r).toMatchObject({ success: false, errorKind: 'denied' });
    expect(r.error).toContain('network.restricted');
    expect(api.connections).toBe(0);
  });

  it.each([
    ['image_generate', imageGenerateTool, { prompt: 'p' }],
    ['text_to_speech', textToSpeechTool, { text: 't' }],
  ] as const)('%s calls the service once across a first call and its replay', async (name, factory, params) => {
    const tool = factory(defaultConfig(configOf()), net());
    const ledger = new MemoryEffectLedger();
    const base = { trace_id: 'trace-media', tool: name, call_index: 0, params };
    const first = await executeTool(tool, params, buildContext(base), { ledger });
    const replay = await executeTool(tool, params, buildContext({ ...base, is_replay: true }), { ledger });
    expect(first.success).toBe(true);
    expect(replay).toEqual(first);
    expect(api.requests).toHaveLength(1);
    expect(await generated()).toHaveLength(1);
  });

  it.each([
    [visionAnalyzeTool, {}, 'image: is required'],
    [visionAnalyzeTool, { image: '' }, 'image'],
    [imageGenerateTool, { prompt: 'p', size: '999x999' }, 'size: expected one of'],
    [imageGenerateTool, { size: '256x256' }, 'prompt: is required'],
    [textToSpeechTool, { text: '' }, 'text'],
    [textToSpeechTool, { text: 'hi', voice: 3 }, 'voice'],
  ] as [Factory, Record<string, unknown>, string][])('refuses bad arguments naming the field: %#', async (factory, params, message) => {
    const r = await run(factory, params);
    expect(r).toMatchObject({ success: false, errorKind: 'validation' });
    expect(r.error).toContain(message);
    expect(api.connections).toBe(0);
  });
});

describe('guardedFetchAdapter (the fetch the SDK is given)', () => {
  const adapter = (onError?: (e: unknown) => void) => guardedFetchAdapter({ ...net(), ...(onError ? { onError } : {}) });

  it('converts Headers and binary bodies in, and status, headers and body out', async () => {
    images.answer((q, r) => r.writeHead(201, [['content-type', 'application/json'], ['x-multi', 'a'], ['x-multi', 'b']]).end(JSON.stringify({ got: q.body.toString(), ct: q.headers['content-type'] })));
    const res = await adapter()('http://img.test/upload', { method: 'POST', headers: new Headers({ 'content-type': 'application/octet-stream', 'x-one': '1' }), body: new Uint8Array([104, 105]) });
    expect(res.status).toBe(201);
    expect(res.headers.get('x-multi')).toBe('a, b');
    expect(await res.json()).toEqual({ got: 'hi', ct: 'application/octet-stream' });
    expect(images.requests[0]).toMatchObject({ method: 'POST', headers: { 'x-one': '1', 'accept-encoding': 'identity' } });
  });

  it('serialises a FormData body with its multipart content type', async () => {
    const form = new FormData();
    form.set('field', 'value');
    await adapter()('http://img.test/form', { method: 'POST', body: form });
    expect(images.requests[0]!.headers['content-type']).toMatch(/^multipart\/form-data; boundary=/);
    expect(images.requests[0]!.body.toString()).toContain('value');
  });

  it('gives a body-less response for 204', async () => {
    images.answer((_q, r) => r.writeHead(204).end());
    const res = await adapter()('http://img.test/empty');
    expect([res.status, await res.text()]).toEqual([204, '']);
  });

  it('honours init.signal', async () => {
    images.answer(() => {});
    const ctl = new AbortController();
    setTimeout(() => ctl.abort(new Error('caller gave up')), 50);
    await expect(adapter()('http://img.test/slow', { signal: ctl.signal })).rejects.toThrow('caller gave up');
  });

  it('passes the guard refusal to onError before it is thrown', async () => {
    const seen: unknown[] = [];
    await expect(adapter((e) => seen.push(e))(`http://127.0.0.1:${images.port}/`)).rejects.toMatchObject({ name: 'SsrfBlockedError' });
    expect(seen).toMatchObject([{ name: 'SsrfBlockedError', rule: 'ssrf.ip.loopback' }]);
    expect(images.connections).toBe(0);
  });
});
