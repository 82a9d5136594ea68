import { describe, expect, it } from 'vitest';
import { approvalScopes } from '../../src/approval/scopes.ts';
import { checkCommand } from '../../src/guard/shell/index.ts';

/** Step 9 lets a call through only when every scope it has is covered by a stored "always". */
const coveredBy = async (stored: readonly string[], command: string) => {
  const scopes = approvalScopes('exec', await checkCommand(command));
  return scopes.length > 0 && scopes.every((s) => stored.includes(s));
};

describe('an "always" for a command covers that command, not the same command run differently', () => {
  it('covers the command it was given for', async () => {
    expect(await coveredBy(['git status'], 'git status')).toBe(true);
  });

  it.each([
    ['under another user', 'sudo -u nobody git status'],
    ['with a library preloaded', 'LD_PRELOAD=/tmp/evil.so git status'],
    ['with git configuration from the environment (core.fsmonitor runs a command)', 'GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=core.fsmonitor GIT_CONFIG_VALUE_0="touch /tmp/x" git status'],
    ['through env', 'env LD_PRELOAD=/tmp/evil.so git status'],
    ['under nice', 'nice -n 5 git status'],
  ])('does not cover it %s', async (_how, command) => {
    expect(await coveredBy(['git status'], command)).toBe(false);
  });

  it('an always given for the variable covers only that variable', async () => {
    expect(await coveredBy(['env TZ', 'git status'], 'TZ=UTC git status')).toBe(true);
    expect(await coveredBy(['env TZ', 'git status'], 'TZ=UTC GIT_DIR=/tmp/other git status')).toBe(false);
  });

  it('a variable whose value git runs as a command (GIT_PAGER) also needs an always for that command', async () => {
    expect(await coveredBy(['env GIT_PAGER', 'git status'], 'GIT_PAGER=cat git status')).toBe(false);
    expect(await coveredBy(['env GIT_PAGER', 'git status', 'cat'], 'GIT_PAGER=cat git status')).toBe(true);
  });
});
