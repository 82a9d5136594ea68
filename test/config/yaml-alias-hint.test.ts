import { describe, expect, it } from 'vitest';
import { ConfigError, parseConfigText } from '../../src/config/load.ts';
import { runCli } from '../support/cli.ts';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const problemsOf = (text: string) => {
  try {
    parseConfigText(text, 'c.yaml', {});
  } catch (err) {
    if (err instanceof ConfigError) return err.problems;
    throw err;
  }
  return [];
};

describe('a config value that starts with * unquoted', () => {
  it('is one problem on its line saying to quote it, not one parser error per *', () => {
    const problems = problemsOf('daemon:\n  data_dir: */5 * * * *\n');
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatchObject({ line: 2, message: expect.stringMatching(/alias.*quote it/) });
  });

  it('with no anchor (parsed, then unreadable) is a config problem at its line, not an internal error', async () => {
    expect(problemsOf('daemon:\n  data_dir: *foo\n')).toEqual([expect.objectContaining({ line: 2, message: expect.stringMatching(/^\*foo is an alias with no anchor; .*quote it/) })]);
    const file = join(mkdtempSync(join(tmpdir(), 'echo-alias-')), 'c.yaml');
    writeFileSync(file, 'daemon:\n  data_dir: *foo\n');
    const r = await runCli(['config', 'validate', file]);
    expect(r.code, r.stderr).toBe(78);
    expect(r.stdout + r.stderr).not.toContain('internal error');
  }, 60_000);

  it('is still read as an alias where its anchor is given', () => {
    expect(problemsOf('daemon:\n  data_dir: &d /tmp/x\ntools:\n  workspace: *d\n')).toEqual([]);
  });
});
