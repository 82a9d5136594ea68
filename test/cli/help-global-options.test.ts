import { describe, expect, it } from 'vitest';
import { runCli } from '../support/cli.ts';

// operators write `echo-agent daemon --config X`, which works: the sub-command's help must say so
describe('a sub-command\'s --help', () => {
  it.each([[['daemon']], [['jobs', 'list']]])('%j lists the global --config option too', async (command) => {
    const r = await runCli([...command, '--help']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^Global Options:$/m);
    expect(r.stdout).toMatch(/^\s+-c, --config <file>\s+config file/m);
  });
});
