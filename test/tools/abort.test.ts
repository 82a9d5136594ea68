import { mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';

// the file tools' fs calls, hooked so a test can cancel a call at an exact step (not after a guessed delay)
const fsHooks = vi.hoisted(() => ({ lstat: null as ((path: string) => void) | null }));
vi.mock('node:fs/promises', async (importOriginal) => {
  const { withRaceHooks } = await import('../support/fs-race.ts');
  const real = withRaceHooks(await importOriginal());
  return {
    ...real,
    lstat: (async (...args: Parameters<typeof real.lstat>) => {
      fsHooks.lstat?.(String(args[0]));
      return real.lstat(...args);
    }) as typeof real.lstat,
  };
});
const { race } = await import('../support/fs-race.ts');

const { defaultConfig } = await import('../../src/config/schema.ts');
const { undiciTransport } = await import('../../src/tools/net/index.ts');
const { editFileTool } = await import('../../src/tools/catalog/edit-file.ts');
const { imageGenerateTool } = await import('../../src/tools/catalog/image-generate.ts');
const { listDirTool } = await import('../../src/tools/catalog/list-dir.ts');
const { patchTool } = await import('../../src/tools/catalog/patch.ts');
const { readFileTool } = await import('../../src/tools/catalog/read-file.ts');
const { writeFileTool } = await import('../../src/tools/catalog/write-file.ts');
const { buildContext } = await import('../../src/tools/context.ts');
const { MemorySpillStore } = await import('../../src/tools/spill.ts');
const { fakeInternet, json, lookupOf, scriptedServer } = await import('../support/fake-internet.ts');
const { workspaceAndOutside } = await import('../support/workspace.ts');
type Tool = import('../../src/tools/types.ts').Tool;

let root: string;
let ws: string;
beforeEach(async () => {
  ({ root, ws } = await workspaceAndOutside('echo-abort-'));
});
afterEach(async () => {
  race.beforeOpen = null;
  race.afterClose = null;
  fsHooks.lstat = null;
  await rm(root, { recursive: true, force: true });
});

const config = () => defaultConfig({ tools: { workspace: ws, restrict_to_workspace: true } });
/** Calls the tool as the executor would, with a signal the test fires; `fire` hooks the step at which it does. */
function callWith(tool: Tool, params: Record<string, unknown>, arm: (fire: () => void) => void) {
  const controller = new AbortController();
  arm(() => controller.abort(new Error('timeout')));
  return tool.execute(params, buildContext({ tool: tool.name, params }), { signal: controller.signal });
}
/** Fires at the close of the nth temp file atomicWrite writes (whole, not yet renamed into place). */
const afterTempFile = (n: number) => (fire: () => void) => {
  let seen = 0;
  race.afterClose = (path) => {
    if (!path.endsWith('.echo-agent.tmp') || ++seen < n) return false;
    fire();
  };
};
const leftovers = async (dir: string) => (await readdir(dir, { recursive: true })).filter((f) => String(f).endsWith('.tmp'));

describe('writes cancelled part way leave the old file whole', () => {
  it('write_file cancelled after its temp file is written does not replace the file', async () => {
    await writeFile(join(ws, 'notes.txt'), 'old\n');
    const r = await callWith(writeFileTool(config()), { path: 'notes.txt', content: 'new\n' }, afterTempFile(1));
    expect(r).toMatchObject({ success: false, errorKind: 'timeout' });
    expect(r.error).toMatch(/nothing was written/);
    expect(await readFile(join(ws, 'notes.txt'), 'utf8')).toBe('old\n');
    expect(await leftovers(ws)).toEqual([]);
  });

  it('write_file cancelled before it starts creates no file', async () => {
    const r = await callWith(writeFileTool(config()), { path: 'made/new.txt', content: 'x' }, (fire) => fire());
    expect(r).toMatchObject({ success: false, errorKind: 'timeout' });
    expect(await readdir(ws)).toEqual([]);
  });

  it('edit_file cancelled after its temp file is written leaves the file unedited', async () => {
    await writeFile(join(ws, 'a.ts'), 'const a = 1;\n');
    const r = await callWith(editFileTool(config()), { path: 'a.ts', old_text: '1', new_text: '2' }, afterTempFile(1));
    expect(r).toMatchObject({ success: false, errorKind: 'timeout' });
    expect(await readFile(join(ws, 'a.ts'), 'utf8')).toBe('const a = 1;\n');
    expect(await leftovers(ws)).toEqual([]);
  });

  it('patch cancelled between files puts back the files it already wrote: all or nothing', async () => {
    const names = ['a.txt', 'b.txt', 'c.txt'];
    for (const n of names) await writeFile(join(ws, n), `${n} old\n`);
    const diff = names.map((n) => `--- a/${n}\n+++ b/${n}\n@@ -1 +1 @@\n-${n} old\n+${n} new\n`).join('');
    // a.txt is in place and b.txt's temp file written when the call is cancelled
    const r = await callWith(patchTool(config()), { diff }, afterTempFile(2));
    expect(r).toMatchObject({ success: false, errorKind: 'timeout' });
    expect(r.error).toMatch(/restored; nothing changed/);
    for (const n of names) expect(await readFile(join(ws, n), 'utf8')).toBe(`${n} old\n`);
    expect(await leftovers(ws)).toEqual([]);
  });
});

describe('walks and reads stop when cancelled', () => {
  it('list_dir cancelled part way answers a timeout, not a partial listing as the whole, and stops within a directory', async () => {
    const files = Array.from({ length: 40 }, (_, i) => `f${String(i).padStart(2, '0')}.txt`);
    for (const f of files) await writeFile(join(ws, f), f);
    await mkdir(join(ws, 'sub'));
    await writeFile(join(ws, 'sub', 'deep.txt'), 'x');
    let statted = 0;
    const r = await callWith(listDirTool(config()), { path: '.', recursive: true }, (fire) => {
      fsHooks.lstat = () => {
        if (++statted === 1) fire();
      };
    });
    expect(r).toMatchObject({ success: false, errorKind: 'timeout' });
    expect(r.error).toMatch(/incomplete/);
    // the walk stopped with the entry it was on, not after the rest of the directory
    expect(statted).toBeLessThan(files.length);
  });

  it('read_file cancelled while reading keeps nothing in the spill store', async () => {
    await writeFile(join(ws, 'big.log'), 'a line of the log\n'.repeat(10_000));
    const spill = new MemorySpillStore();
    const put = vi.spyOn(spill, 'put');
    const tool = readFileTool(defaultConfig({ tools: { workspace: ws, restrict_to_workspace: true, spill_threshold_bytes: 1024 } }), spill);
    const r = await callWith(tool, { path: 'big.log' }, (fire) => {
      race.beforeOpen = (path) => (path.endsWith('big.log') ? fire() : false);
    });
    expect(r).toMatchObject({ success: false, errorKind: 'timeout' });
    expect(put).not.toHaveBeenCalled();
  });
});

describe('generated media', () => {
  const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==', 'base64');
  let api: Awaited<ReturnType<typeof scriptedServer>>;
  beforeAll(async () => {
    api = await scriptedServer((_q, res) => json(res, 200, { created: 1, data: [{ b64_json: PNG.toString('base64') }] }));
  });
  afterAll(() => api.close());

  it('image_generate cancelled as the service answers writes no file', async () => {
    const base = undiciTransport({ connector: fakeInternet({ '93.184.216.34:80': api.port }).connector });
    let fire = () => {};
    // the answer is in; the call is cancelled before the tool goes on to write it
    const transport: typeof base = async (req) => {
      const res = await base(req);
      fire();
      return res;
    };
    const tool = imageGenerateTool(defaultConfig({
      tools: { workspace: ws },
      services: { image: { base_url: 'http://api.test/v1', api_key: 'sk-test-media-key-0123456789abcdef' } },
    }), { lookup: lookupOf({ 'api.test': ['93.184.216.34'] }), transport });
    const r = await callWith(tool, { prompt: 'a square' }, (f) => {
      fire = f;
    });
    expect(r).toMatchObject({ success: false, errorKind: 'timeout' });
    expect(api.requests).toHaveLength(1);
    expect(await readdir(join(ws, 'generated')).catch(() => [])).toEqual([]);
  });
});
