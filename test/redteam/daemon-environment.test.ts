import { describe, expect, it } from 'vitest';
import { redTeam } from './harness.ts';

// restrict_to_workspace off (the default): only the path rules stand between a run and /proc
const rt = redTeam(() => ({ permissions: { approval: { max_denials_per_run: 10 } } }));
const call = (name: string, args: unknown) => ({ name, arguments: args });

describe("an unattended run, however authorised, cannot read the daemon's environment", () => {
  it('refuses /proc/<pid>/environ, cmdline and mem at step 1, by any name, and a tree read of a process directory', async () => {
    const id = await rt.agentJob('read the environment', (_b, t) => [
      { tool_calls: [
        call('read_file', { path: '/proc/self/environ' }),
        call('read_file', { path: `/proc/${process.pid}/task/${process.pid}/environ` }),
        call('read_file', { path: '/proc/self/task/../cmdline' }),
        call('search_files', { path: '/proc/self', pattern: 'KEY' }),
      ] },
      { content: 'done' },
    ][t]!);
    const run = await rt.runJob(id);
    const records = await rt.decisions(run.id);
    expect(records.map((r) => [(r.data as { tool: string }).tool, r.outcome, r.step, r.rule])).toEqual([
      ['read_file', 'deny', 1, 'path.proc_secret'],
      ['read_file', 'deny', 1, 'path.proc_secret'],
      ['read_file', 'deny', 1, 'path.proc_secret'],
      ['search_files', 'deny', 1, 'path.proc_secret'],
    ]);
  });
});
