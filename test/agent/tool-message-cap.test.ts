import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { sql } from 'drizzle-orm';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { agentChatClient } from '../../src/agent/model-config.ts';
import { createAgentRuntime } from '../../src/agent/runtime.ts';
import { fittedToolMessage, TOOL_MESSAGE_MAX_CHARS } from '../../src/agent/tool-message.ts';
import { defaultConfig, type ConfigInput } from '../../src/config/schema.ts';
import { builtinTools } from '../../src/daemon/daemon-tools.ts';
import { createGuard } from '../../src/guard/index.ts';
import { systemGuardDeps } from '../../src/util/system-ports.ts';
import { getSpill } from '../../src/store/spills.ts';
import { buildContext } from '../../src/tools/context.ts';
import { MemorySpillStore } from '../../src/tools/spill.ts';
import { ToolRegistry } from '../../src/tools/registry.ts';
import { ok } from '../../src/tools/types.ts';
import { useTestDatabase } from '../support/db.ts';
import { startFakeModel, type ChatBody, type Reply } from '../support/fake-model.ts';

const database = useTestDatabase();
const KEY = 'sk-tool-message-key-0123456789';
const workspace = mkdtempSync(join(tmpdir(), 'echo-agent-cap-'));
// 600 lines, about 30 KB: under read_file's own 64 KiB spill threshold, over one tool message
const BIG = Array.from({ length: 600 }, (_, i) => `line ${String(i + 1).padStart(3, '0')}: ${'x'.repeat(40)}\n`).join('');
writeFileSync(join(workspace, 'big.txt'), BIG);
mkdirSync(join(workspace, 'many'));
for (let i = 0; i < 1000; i++) writeFileSync(join(workspace, 'many', `file-${String(i).padStart(4, '0')}.txt`), `needle ${i} password=hunter2hunter2 ${KEY}\n`);

let servers: { close(): Promise<void> }[] = [];
afterEach(async () => {
  await Promise.all(servers.map((s) => s.close()));
  servers = [];
});

type Msg = Record<string, any>;
/** The last tool message the model was sent, parsed: it must be JSON, whatever its size. */
const lastTool = (body: ChatBody): Msg | null => {
  const m = body.messages.filter((x) => x.role === 'tool').at(-1);
  if (!m) return null;
  try {
    return JSON.parse(m.content ?? '') as Msg;
  } catch {
    return { unparseable: m.content };
  }
};

async function setup(script: (body: ChatBody, n: number) => Reply, overrides: ConfigInput = {}) {
  const model = await startFakeModel(script);
  servers.push(model);
  const config = defaultConfig({ ...overrides, tools: { workspace, restrict_to_workspace: true, ...overrides.tools }, model: { base_url: model.url, api_key: KEY, name: 'scripted' } });
  const db = database().db;
  const runtime = createAgentRuntime({ config, db, tools: builtinTools(config, { db }), guard: createGuard(config, systemGuardDeps({ dns: false })), chat: agentChatClient(config) });
  const sent = () => model.requests.flatMap((r) => r.messages.filter((m) => m.role === 'tool').map((m) => m.content ?? '')).filter((c, i, all) => all.indexOf(c) === i);
  return { model, runtime, sent };
}

const attended = () => buildContext({ channel: 'cli', user_id: 'alice', session_key: 'cli:alice' });
const run = (runtime: Awaited<ReturnType<typeof setup>>['runtime'], prompt: string) => runtime.run(prompt, attended(), { signal: new AbortController().signal });

describe('a tool result longer than one tool message', () => {
  it('read_file of a 30 KB file: the model is told the lines it got and where the next ones start, and can read the whole file that way', async () => {
    const got: string[] = [];
    const { runtime, sent } = await setup((body, n) => {
      const last = lastTool(body);
      if (n === 0) return { tool_calls: [{ name: 'read_file', arguments: { path: 'big.txt' } }] };
      got.push(last?.output?.content ?? '');
      const next = last?.output?.next_offset;
      return typeof next === 'number' && n < 6 ? { tool_calls: [{ name: 'read_file', arguments: { path: 'big.txt', offset: next } }] } : { content: 'read it' };
    });
    const out = await run(runtime, 'read big.txt');
    expect(out.status).toBe('completed');
    const first = JSON.parse(sent()[0]!) as Msg;
    expect(sent()[0]!.length).toBeLessThanOrEqual(TOOL_MESSAGE_MAX_CHARS);
    // not "end_line":600,"next_offset":null beside half the file
    expect(first.output.end_line).toBeLessThan(600);
    expect(first.output.next_offset).toBe(first.output.end_line + 1);
    expect(first.output.content.endsWith(`line ${String(first.output.end_line).padStart(3, '0')}: ${'x'.repeat(40)}\n`)).toBe(true);
    expect(first.incomplete.cut[0]).toMatchObject({ field: 'output.content', unit: 'lines', shown: first.output.end_line, total: 600, continue_with: { offset: first.output.end_line + 1 } });
    expect(got.join('')).toBe(BIG);
  });

  it('list_dir of 1,000 files: truncated is true, and the entries not shown are in a spill the model reads with read_spill', async () => {
    const shown: string[] = [];
    let spilled = '';
    const { runtime, sent } = await setup((body, n) => {
      const last = lastTool(body);
      if (n === 0) return { tool_calls: [{ name: 'list_dir', arguments: { path: 'many' } }] };
      if (n === 1) {
        for (const e of last?.output?.entries ?? []) shown.push(e.name);
        const cut = last?.incomplete?.cut?.[0];
        return cut?.spill_id ? { tool_calls: [{ name: 'read_spill', arguments: { spill_id: cut.spill_id, offset: cut.next_offset } }] } : { content: 'no spill' };
      }
      // each page is cut at the message limit with an honest next_offset: the pages put together are the rest
      const page = last?.output;
      spilled += String(page?.content ?? '');
      return typeof page?.next_offset === 'number' && n < 12
        ? { tool_calls: [{ name: 'read_spill', arguments: { spill_id: page.spill_id, offset: page.next_offset } }] }
        : { content: 'listed' };
    });
    await run(runtime, 'list many');
    const first = JSON.parse(sent()[0]!) as Msg;
    expect(first.output.truncated).toBe(true);
    expect(first.incomplete.cut[0]).toMatchObject({ field: 'output.entries', unit: 'items', total: 1000, spill_id: expect.stringMatching(/^spl_/) });
    expect(first.incomplete.cut[0].shown).toBe(first.output.entries.length);
    for (const m of sent()) expect(m.length).toBeLessThanOrEqual(TOOL_MESSAGE_MAX_CHARS);
    const rest = spilled.split('\n').map((line) => (JSON.parse(line) as { name: string }).name);
    expect([...shown, ...rest]).toEqual(Array.from({ length: 1000 }, (_, i) => `file-${String(i).padStart(4, '0')}.txt`));
  });

  it('search_files with 1,000 matches says it is truncated and how many matches were shown; no secret reaches the message or the spill (I11)', async () => {
    const { runtime, sent } = await setup((_b, n) => (n === 0
      ? { tool_calls: [{ name: 'search_files', arguments: { path: 'many', pattern: 'needle', max_results: 1000 } }] }
      : { content: 'searched' }));
    await run(runtime, 'search');
    const text = sent()[0]!;
    const first = JSON.parse(text) as Msg;
    expect(first.output.truncated).toBe(true);
    const cut = first.incomplete.cut[0];
    expect(cut).toMatchObject({ field: 'output.matches', unit: 'items', total: 1000, shown: first.output.matches.length });
    expect(text).not.toMatch(/hunter2hunter2/);
    expect(text).not.toContain(KEY);
    const spill = (await getSpill(database().db, cut.spill_id, 0, 10_000_000))!;
    expect(spill.content.split('\n')).toHaveLength(1000);
    expect(spill.content).toContain('needle 999');
    expect(spill.content).not.toMatch(/hunter2hunter2/);
    expect(spill.content).not.toContain(KEY);
  });

  it('a read_spill page longer than one message moves its next_offset back to what was shown', async () => {
    const { runtime, sent } = await setup((body, n) => {
      const last = lastTool(body);
      if (n === 0) return { tool_calls: [{ name: 'list_dir', arguments: { path: 'many' } }] };
      if (n === 1) return { tool_calls: [{ name: 'read_spill', arguments: { spill_id: last?.incomplete?.cut?.[0]?.spill_id, offset: 0 } }] };
      return { content: 'done' };
    });
    await run(runtime, 'page');
    const page = JSON.parse(sent()[1]!) as Msg;
    expect(page.output.offset).toBe(0);
    expect(page.output.next_offset).toBe([...page.output.content].length);
    expect(page.incomplete.cut[0]).toMatchObject({ field: 'output.content', continue_with: { spill_id: page.output.spill_id, offset: page.output.next_offset } });
  });
});

describe('a long result of a call the run was cancelled during', () => {
  it('is not kept in a spill: the model will not read it, and the run\'s spill quota is not spent on it', async () => {
    const model = await startFakeModel(() => ({ tool_calls: [{ name: 'read_file', arguments: { path: 'big.txt' } }] }));
    servers.push(model);
    const config = defaultConfig({ tools: { workspace, restrict_to_workspace: true }, model: { base_url: model.url, api_key: KEY, name: 'scripted' } });
    const db = database().db;
    const controller = new AbortController();
    const builtin = builtinTools(config, { db });
    // a tool that answers, at length, just as the run is cancelled (as one that does not watch the signal would)
    const tools = new ToolRegistry(builtin.names().flatMap((n) => {
      const t = builtin.get(n);
      if (!t) return [];
      return [t.name !== 'read_file' ? t : { ...t, execute: async () => { controller.abort(new Error('the run timed out')); return ok({ content: BIG.repeat(4) }); } }];
    }));
    const runtime = createAgentRuntime({ config, db, tools, guard: createGuard(config, systemGuardDeps({ dns: false })), chat: agentChatClient(config) });
    const spillsBefore = (await db.execute<{ n: number }>(sql`select count(*)::int as n from spills`)).rows[0]!.n;
    const out = await runtime.run('read big.txt', attended(), { signal: controller.signal });
    expect(out.status).toBe('cancelled');
    expect((await db.execute<{ n: number }>(sql`select count(*)::int as n from spills`)).rows[0]!.n).toBe(spillsBefore);
  });
});

describe('fitting a long result into one message', () => {
  const big = { ok: true, output: { exit_code: 0, stdout: 'o'.repeat(40_000), stderr: 'e'.repeat(30_000), truncated: false } };

  it('cuts the largest fields, keeps valid JSON, and spills each whole field with the offset where the unshown part starts', async () => {
    const store = new MemorySpillStore();
    const text = await fittedToolMessage(big, { store, execution_id: 'exe_1', run: 'run_1', tool: 'exec' });
    expect(text.length).toBeLessThanOrEqual(TOOL_MESSAGE_MAX_CHARS);
    const msg = JSON.parse(text) as Msg;
    expect(msg.output).toMatchObject({ exit_code: 0, truncated: true });
    for (const cut of msg.incomplete.cut) {
      const field = cut.field.split('.')[1];
      expect(cut.shown).toBe(msg.output[field].length);
      const rest = (await store.get(cut.spill_id, cut.next_offset, 100_000))!;
      expect(msg.output[field] + rest.content).toBe(big.output[field as 'stdout' | 'stderr']);
    }
  });

  it('without a readable spill store, says the rest was not kept instead of offering a spill id', async () => {
    const msg = JSON.parse(await fittedToolMessage(big)) as Msg;
    expect(msg.incomplete.cut[0]).toMatchObject({ rest: expect.stringMatching(/not kept/) });
    expect(msg.incomplete.cut[0].spill_id).toBeUndefined();
  });

  it('a result of many small fields is shown as the start of its text, marked incomplete, and spilled whole', async () => {
    const store = new MemorySpillStore();
    const many = { ok: true, output: Object.fromEntries(Array.from({ length: 3000 }, (_, i) => [`k${i}`, i])) };
    const msg = JSON.parse(await fittedToolMessage(many, { store, execution_id: 'exe_1', run: 'run_1', tool: 't' })) as Msg;
    expect(msg.incomplete.note).toMatch(/nothing in it is complete/);
    const rest = (await store.get(msg.incomplete.spill_id, msg.incomplete.next_offset, 1_000_000))!;
    expect(JSON.parse(msg.partial + rest.content)).toEqual(many);
  });
});
