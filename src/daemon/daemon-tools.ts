import type { Config } from '../config/schema.ts';
import type { JobServiceDeps } from '../jobs/service.ts';
import type { Lookup } from '../guard/ssrf/index.ts';
import { cronjobTool } from '../tools/catalog/cronjob.ts';
import { editFileTool } from '../tools/catalog/edit-file.ts';
import { listDirTool } from '../tools/catalog/list-dir.ts';
import { notifyTool } from '../tools/catalog/notify.ts';
import { readFileTool } from '../tools/catalog/read-file.ts';
import { searchFilesTool } from '../tools/catalog/search-files.ts';
import { writeFileTool } from '../tools/catalog/write-file.ts';
import { ToolRegistry } from '../tools/registry.ts';
import type { Tool } from '../tools/types.ts';

/**
 * The tools this build implements; catalog rows without one are listed but never ready.
 * `extra`: external tools (MCP-style); policy still judges them by their declaration (I7).
 */
export function builtinTools(config: Config, jobs: JobServiceDeps, net: { lookup?: Lookup } = {}, extra: readonly Tool[] = []): ToolRegistry {
  return new ToolRegistry([
    ...extra,
    readFileTool(config), listDirTool(config), searchFilesTool(config), writeFileTool(config), editFileTool(config),
    notifyTool(config, net), cronjobTool(config, jobs),
  ]);
}
