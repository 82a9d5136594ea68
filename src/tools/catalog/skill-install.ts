import type { Config } from '../../config/schema.ts';
import { InstallError, installSkill, type NetDeps } from '../../skills/install.ts';
import { PackageRefused } from '../../skills/limits.ts';
import type { Executor } from '../../store/db.ts';
import { redactText } from '../../util/redact.ts';
import { defineTool } from '../define.ts';
import { fail, ok } from '../types.ts';

/** skill_install (DANGEROUS): a workspace directory, a local .tar/.tar.gz/.tgz, or an http(s) archive URL. */
export function skillInstallTool(config: Config, db: Executor, net: NetDeps = {}) {
  return defineTool('skill_install', config, {
    // a download (60 s limit) plus unpacking
    timeoutSeconds: 120,
    async execute(params, ctx, { signal }) {
      try {
        const installed = await installSkill(config, db, net, {
          source: String(params.source), installedBy: ctx?.user_id || 'unknown', replay: ctx?.is_replay ?? false, signal,
        });
        return ok(installed);
      } catch (err) {
        if (err instanceof InstallError) return fail(err.kind, redactText(err.message));
        if (err instanceof PackageRefused) return fail('business', `skill_install: the package is refused: ${redactText(err.message)}`);
        throw err;
      }
    },
  });
}
