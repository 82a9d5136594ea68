import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import type { Config } from '../../config/schema.ts';
import { defineTool } from '../define.ts';
import { runLimited } from '../spawn-limits.ts';
import { DEADLINE_SLACK_SECONDS, deadlineMs, resolveCwd, runResult, type Launch } from './exec.ts';

export type Language = 'node' | 'python' | 'bash' | 'sh';

/** The program each language runs with; overridable for hosts with other installs. */
export type Interpreters = Readonly<Record<Language, string>>;

export const DEFAULT_INTERPRETERS: Interpreters = { node: process.execPath, python: 'python3', bash: 'bash', sh: 'bash' };

const SOURCE_FILE: Record<Language, string> = { node: 'snippet.js', python: 'snippet.py', bash: 'snippet.sh', sh: 'snippet.sh' };

function launchOf(language: Language, interpreter: string, file: string): Launch {
  // a .js snippet may be CommonJS (require) or ESM (import, top-level await): node decides by its syntax
  if (language === 'node') return { file: interpreter, args: ['--experimental-detect-module', file] };
  // sh code runs in bash's POSIX mode: bash is the dialect the guard parses
  if (language === 'sh' && basename(interpreter) === 'bash') return { file: interpreter, args: ['--posix', file] };
  return { file: interpreter, args: [file] };
}

/** execute_code: the snippet goes to a private temp file (removed after), run like exec in the workspace. */
export function executeCodeTool(config: Config, deps: { interpreters?: Partial<Interpreters> } = {}) {
  const interpreters: Interpreters = { ...DEFAULT_INTERPRETERS, ...deps.interpreters };
  return defineTool('execute_code', config, {
    timeoutSeconds: config.tools.exec.timeout_seconds + DEADLINE_SLACK_SECONDS,
    async execute(params, _ctx, { signal }) {
      const language = String(params.language) as Language;
      const cwd = await resolveCwd(config, 'execute_code', params.cwd);
      if (typeof cwd !== 'string') return cwd;
      const dir = await mkdtemp(join(tmpdir(), 'echo-code-'));
      try {
        const file = join(dir, SOURCE_FILE[language]);
        await writeFile(file, String(params.code), { mode: 0o600 });
        const launch = launchOf(language, interpreters[language], file);
        const run = await runLimited({
          ...launch, cwd, signal,
          timeoutMs: deadlineMs(config, params.timeout_seconds),
          maxOutputBytes: config.tools.exec.max_output_bytes,
        });
        return runResult('execute_code', launch, run, 'unavailable');
      } finally {
        await rm(dir, { recursive: true, force: true });
      }
    },
  });
}
