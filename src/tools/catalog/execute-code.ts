import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Config } from '../../config/schema.ts';
import { defineTool } from '../define.ts';
import { runProcess } from '../process-runner.ts';
import { processResult, timeoutMs, workingDir } from './exec.ts';

/** How each language runs a source file. */
const RUNNERS: Record<string, { file: string; argv: (file: string) => string[] }> = {
  node: { file: 'snippet.mjs', argv: (f) => [process.execPath, f] },
  python: { file: 'snippet.py', argv: (f) => ['python3', f] },
  bash: { file: 'snippet.sh', argv: (f) => ['/bin/bash', f] },
  sh: { file: 'snippet.sh', argv: (f) => ['/bin/sh', f] },
};

/** execute_code: the snippet goes to a private temp file, runs in the workspace, and the file is removed. */
export function executeCodeTool(config: Config) {
  return defineTool('execute_code', config, {
    timeoutSeconds: config.tools.exec.timeout_seconds + 5,
    async execute(params, _ctx, { signal }) {
      const runner = RUNNERS[String(params.language)]!;
      const where = await workingDir(config, '.');
      if ('failure' in where) return where.failure;
      const dir = await mkdtemp(join(tmpdir(), 'echo-code-'));
      try {
        const file = join(dir, runner.file);
        await writeFile(file, String(params.code), { mode: 0o600 });
        const argv = runner.argv(file);
        const outcome = await runProcess({ argv, cwd: where.dir, timeoutMs: timeoutMs(config, params.timeout_seconds), maxOutputBytes: config.tools.exec.max_output_bytes, signal });
        return processResult('execute_code', argv[0] === process.execPath ? 'node' : argv[0]!, outcome);
      } finally {
        await rm(dir, { recursive: true, force: true });
      }
    },
  });
}
