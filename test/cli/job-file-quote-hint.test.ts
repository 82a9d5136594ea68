import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { JobProblemsError, readStructured, type Located } from '../../src/cli/job-file-problems.ts';
import { runCli } from '../support/cli.ts';

// An unquoted cron schedule (`schedule: */5 * * * *`) is YAML aliases to the parser: the builder is told to quote
// the value, once per line, not "Unexpected alias at node end" once per `*`.
const dir = mkdtempSync(join(tmpdir(), 'echo-quote-hint-'));
const file = (name: string, text: string) => {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
};

function problemsOf(text: string): Located[] {
  try {
    readStructured(file('job.yaml', text), 'job file');
  } catch (err) {
    if (err instanceof JobProblemsError) return [...err.problems];
    throw err;
  }
  throw new Error('the file was read');
}

const quote = (key: string, value: string) => `${key}: a value starting with * is read as a YAML alias; quote the value: ${key}: "${value}"`;

describe('a value starting with * in a job file', () => {
  it.each([
    ['*/5 * * * *'], ['* * * * *'], ['*/15 9-17 * * 1-5'],
  ])('schedule: %s is one problem at the value, saying how to quote it', (cron) => {
    expect(problemsOf(`name: x\nschedule: ${cron}\n`)).toEqual([{ text: quote('schedule', cron), line: 2, column: 11, path: 'schedule' }]);
  });

  it('an alias with no anchor that parses (`schedule: */5`) is the same problem, not an internal error', () => {
    expect(problemsOf('name: x\nschedule: */5   # every five\n')).toEqual([{ text: quote('schedule', '*/5'), line: 2, column: 11, path: 'schedule' }]);
  });

  it('inside a step and as a list item, the quoted line as written there', () => {
    expect(problemsOf('payload:\n  steps:\n    - tool: exec\n      args:\n        command: */5 x\n')).toEqual([
      { text: quote('command', '*/5 x'), line: 5, column: 18 },
    ]);
    expect(problemsOf('tools:\n  - *read\n')).toEqual([{ text: 'a list item: a value starting with * is read as a YAML alias; quote the value: - "*read"', line: 2, column: 5 }]);
  });

  it('inside a flow mapping, the alias named and quoted', () => {
    expect(problemsOf('args: {command: *.txt}\n')).toEqual([{
      text: 'Unresolved alias *.txt (no anchor &.txt before it): a value starting with * is read as a YAML alias; quote the value: "*.txt"', line: 1, column: 17,
    }]);
  });

  it('an alias with its anchor is still read, and other problems keep the parser\'s words', () => {
    expect(readStructured(file('anchored.yaml', 'a: &x 1\nb: *x\n'), 'job file')).toEqual({ a: 1, b: 1 });
    expect(problemsOf('b: &x 1\nb: *x\n')).toEqual([{ text: 'Map keys must be unique', line: 2, column: 1 }]);
  });
});

describe('jobs create --file with an unquoted schedule', () => {
  it('says the one line and how to quote it (exit 65), before any store is reached', async () => {
    const path = file('h1.yaml', 'name: h1\nschedule: */5 * * * *\npayload:\n  kind: agent\n  prompt: hi\n');
    // no database is named: the file is refused before one is needed
    const config = file('echo-agent.yaml', `tools:\n  workspace: ${dir}\n`);
    const r = await runCli(['jobs', 'create', '--file', path], { env: { ECHO_AGENT_CONFIG: config } });
    expect(r.code, r.stderr).toBe(65);
    expect(r.stderr).toBe(`echo-agent: job file ${path}: not valid YAML/JSON: line 2, column 11: ${quote('schedule', '*/5 * * * *')}\n`);
  });
});
