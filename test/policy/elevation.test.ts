import { describe, expect, it } from 'vitest';
import { isElevated, needsElevation, type ElevationSettings } from '../../src/policy/elevation.ts';

const settings = (over: Partial<ElevationSettings> = {}): ElevationSettings => ({ enabled: true, allow_from: {}, admin_users: [], ...over });

describe('elevation', () => {
  it.each([
    ['exec', 'local', 'allowlist', true], ['exec', 'remote', 'allowlist', true], ['exec', 'sandbox', 'full', true],
    ['exec', 'sandbox', 'allowlist', false], ['execute_code', 'local', 'deny', true], ['process', 'sandbox', 'full', true],
    ['write_file', 'local', 'full', false], ['delegate_task', 'local', 'full', false],
  ] as const)('%s with host=%s security=%s needs elevation: %s', (tool, host, security, expected) => {
    expect(needsElevation(tool, { host, security })).toBe(expected);
  });

  it.each([
    ['exact sender on its channel', { telegram: ['user_123'] }, 'telegram', 'user_123', true],
    ['other sender on the channel', { telegram: ['user_123'] }, 'telegram', 'user_999', false],
    ['sender on another channel', { telegram: ['user_123'] }, 'slack', 'user_123', false],
    ['"*" as channel key', { '*': ['user_123'] }, 'slack', 'user_123', true],
    ['"*" as sender value', { telegram: ['*'] }, 'telegram', 'anyone', true],
    ['"*" channel and "*" sender', { '*': ['*'] }, 'discord', 'x', true],
    ['display-name-like near match', { telegram: ['user_123'] }, 'telegram', 'User_123', false],
    ['prefix match', { telegram: ['user_1'] }, 'telegram', 'user_123', false],
    ['empty sender id', { telegram: ['*'] }, 'telegram', '', false],
  ])('%s', (_label, allow_from, channel, user_id, expected) => {
    expect(isElevated({ channel, user_id }, settings({ allow_from }))).toBe(expected);
  });

  it('ignores allow_from when elevation is disabled', () => {
    expect(isElevated({ channel: 'telegram', user_id: 'user_123' }, settings({ enabled: false, allow_from: { telegram: ['user_123'] } }))).toBe(false);
  });

  it('always elevates admin_users, even when elevation is disabled', () => {
    expect(isElevated({ channel: 'web', user_id: 'root_admin' }, settings({ enabled: false, admin_users: ['root_admin'] }))).toBe(true);
  });
});
