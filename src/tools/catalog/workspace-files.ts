import { resolve } from 'node:path';
import type { Config } from '../../config/schema.ts';
import { checkPaths } from '../../guard/paths/index.ts';
import { fail, type ToolResult } from '../types.ts';

/**
 * The file tools' own check of the workspace policy. The gate already ran it
 * at step 1; tools repeat it because they may be called by code, not the model.
 */
export async function confine(config: Config, paths: { read?: string[]; write?: string[] }): Promise<ToolResult | null> {
  const findings = await checkPaths({ read: paths.read ?? [], write: paths.write ?? [] }, {
    workspace: config.tools.workspace,
    restrictToWorkspace: config.tools.restrict_to_workspace,
    safeWriteRoot: config.tools.safe_write_root,
  });
  const bad = findings.find((f) => f.severity === 'deny');
  return bad ? fail('denied', `${bad.reason} (${bad.matched})`) : null;
}

/** Relative paths are relative to the workspace, as the guard resolves them. */
export function inWorkspace(config: Config, path: string): string {
  return resolve(config.tools.workspace, path);
}
