import { mkdtempSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load.ts';
import { createGuard } from '../../src/guard/index.ts';
import { systemGuardDeps } from '../../src/util/system-ports.ts';
import { listDirTool } from '../../src/tools/catalog/list-dir.ts';
import { readFileTool } from '../../src/tools/catalog/read-file.ts';
import { searchFilesTool } from '../../src/tools/catalog/search-files.ts';
import { buildContext } from '../../src/tools/context.ts';
import { executeTool } from '../../src/tools/executor.ts';
import { MemorySpillStore } from '../../src/tools/spill.ts';

// the configuration can hold the model's key and notify tokens; a job that may read files may not read it
const ws = mkdtempSync(join(tmpdir(), 'echo-config-protected-'));
const file = join(ws, 'echo-agent.yaml');
writeFileSync(file, `tools:\n  workspace: ${ws}\nmodel:\n  api_key: plainly-written-key-123\n`);
symlinkSync(file, join(ws, 'settings-link'));
writeFileSync(join(ws, 'notes.txt'), 'plainly-written-key-123 is not here, only its name\n');
const { config } = loadConfig(file);
const ctx = buildContext();

describe('the configuration file this process read is off limits to every file tool', () => {
  it('the guard refuses reading or writing it, by name and through a symlink, at step 1 in every context', async () => {
    const guard = createGuard(config, systemGuardDeps({ dns: false }));
    for (const call of [{ tool: 'read_file', args: { path: file } }, { tool: 'read_file', args: { path: 'echo-agent.yaml' } }, { tool: 'read_file', args: { path: 'settings-link' } }, { tool: 'write_file', args: { path: file, content: 'x' } }]) {
      const v = await guard.inspect(call, ctx);
      expect(v.findings.map((f) => [f.rule, f.severity])).toContainEqual(['path.daemon_state', 'deny']);
    }
    expect((await guard.inspect({ tool: 'read_file', args: { path: 'notes.txt' } }, ctx)).findings).toEqual([]);
  });

  it('read_file refuses it too, list_dir leaves it out, and search_files does not search it', async () => {
    const read = await executeTool(readFileTool(config, new MemorySpillStore()), { path: 'echo-agent.yaml' }, ctx);
    expect(read.success).toBe(false);
    expect(JSON.stringify(read)).not.toContain('plainly-written-key-123\\n');
    const listed = await executeTool(listDirTool(config), { path: '.' }, ctx);
    expect(JSON.stringify(listed.output)).not.toContain('echo-agent.yaml');
    expect(JSON.stringify(listed.output)).toContain('notes.txt');
    const found = await executeTool(searchFilesTool(config), { path: '.', pattern: 'api_key' }, ctx);
    expect(found.success, found.error).toBe(true);
    expect(JSON.stringify(found.output)).not.toContain('echo-agent.yaml');
  });
});
