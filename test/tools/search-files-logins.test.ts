import { mkdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { defaultConfig } from '../../src/config/schema.ts';
import { searchFilesTool } from '../../src/tools/catalog/search-files.ts';
import { buildContext } from '../../src/tools/context.ts';
import { executeTool } from '../../src/tools/executor.ts';
import { workspaceAndOutside } from '../support/workspace.ts';

// read_file of .env or a key asks a person (path.credential_read) or is refused (path.secret): a search over the tree
// holding it must not hand its lines to the model instead
let root: string;
let ws: string;

beforeEach(async () => {
  ({ root, ws } = await workspaceAndOutside('echo-search-logins-'));
  await mkdir(join(ws, 'keys'), { recursive: true });
  await writeFile(join(ws, 'notes.md'), 'needle in the notes\n');
  await writeFile(join(ws, '.env'), 'TOKEN=needle-secret-value\n');
  await writeFile(join(ws, '.env.example'), 'TOKEN=needle-placeholder\n');
  await writeFile(join(ws, 'keys', 'id_rsa'), '-----BEGIN OPENSSH PRIVATE KEY-----\nneedle\n');
});
afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

describe('search_files over a tree that holds login or key files', () => {
  it('searches the other files, lists those as skipped with why, and never returns their lines', async () => {
    const tool = searchFilesTool(defaultConfig({ tools: { workspace: ws, restrict_to_workspace: true } }));
    const r = await executeTool(tool, { path: '.', pattern: 'needle' }, buildContext({ tool: tool.name, params: {} }));
    expect(r.error).toBeUndefined();
    const out = r.output as { matches: { file: string; text?: string }[]; skipped?: { path: string; reason: string }[] };
    expect(out.matches.map((m) => m.file).sort()).toEqual(['.env.example', 'notes.md']);
    expect(JSON.stringify(out.matches)).not.toContain('needle-secret-value');
    expect(out.skipped?.map((s) => s.path).sort()).toEqual(['.env', 'keys/id_rsa']);
    for (const s of out.skipped ?? []) expect(s.reason).toMatch(/holds a login or a key/);
  });
});
