import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { listApprovals } from '../../src/store/approvals.ts';
import { runCli } from '../support/cli.ts';
import { useTestDatabase } from '../support/db.ts';

// A step's mistyped argument, as a builder reads it: the parameter it meant, at the step's line, before anyone is asked.
const database = useTestDatabase();
const dir = mkdtempSync(join(tmpdir(), 'echo-arg-hint-'));
let env: NodeJS.ProcessEnv;
const file = (name: string, lines: readonly string[]) => {
  const path = join(dir, name);
  writeFileSync(path, `${lines.join('\n')}\n`);
  return path;
};

beforeAll(() => {
  const config = file('echo-agent.yaml', [
    'database:', `  url: postgres://postgres@127.0.0.1:5432/test?options=-c%20search_path%3D${database().schema}`, 'tools:', `  workspace: ${dir}`,
  ]);
  env = { ECHO_AGENT_CONFIG: config };
});

describe('jobs create --file with a mistyped step argument', () => {
  it('names the parameter each misspelling meant, on the line of the step\'s arguments', async () => {
    const path = file('typo.yaml', [
      'name: typo', 'schedule: "0 3 * * *"', 'tools: [write_file]', 'payload:', '  kind: steps', '  steps:', '    - tool: write_file',
      '      args: { paht: a.txt, contents: x }',
    ]);
    const r = await runCli(['jobs', 'create', '--file', path], { env });
    expect(r.code, r.stderr).toBe(65);
    expect(r.stderr).toContain('  line 8: payload.steps[0] (write_file): invalid arguments: paht: is not a known parameter (did you mean path?)\n');
    expect(r.stderr).toContain('  line 8: payload.steps[0] (write_file): invalid arguments: contents: is not a known parameter (did you mean content?)\n');
    expect(await listApprovals(database().db)).toEqual([]);
  });
});
