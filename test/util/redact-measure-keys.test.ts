import { describe, expect, it } from 'vitest';
import { parseConfigText } from '../../src/config/load.ts';
import { redact } from '../../src/util/redact.ts';
import { capturedLog } from '../support/captured-log.ts';

const SECRET = 'hunter2-s3cr3t-value';

// `daemon.hung_pass_seconds: 1` was refused as "got a number (not shown: it may hold a credential)" because its
// key holds the word "pass"; a number of seconds or a count is no credential. A password keeps being masked.
describe('a number under a key ending in a unit or a count is shown, though the key holds "pass"', () => {
  it('config validate shows the number of daemon.hung_pass_seconds, as it does daemon.concurrency\'s', () => {
    const problem = (text: string) => { try { parseConfigText(text, 'x.yaml', {}); } catch (err) { return (err as Error).message; } return ''; };
    expect(problem('daemon:\n  hung_pass_seconds: 1\n')).toMatch(/daemon\.hung_pass_seconds: Too small: expected number to be >=10, got 1$/m);
    // text there is still not shown: it is no number of seconds, and could be anything
    expect(problem('daemon:\n  hung_pass_seconds: soon\n')).toMatch(/daemon\.hung_pass_seconds: expected number, got a text of 4 characters \(not shown/);
    expect(problem('model:\n  api_key: 20240611\n')).toMatch(/model\.api_key: expected string, got a number \(not shown/);
  });

  it.each(['hung_pass_seconds', 'hungPassSeconds', 'pass_timeout_ms', 'pass_count', 'passcode_max', 'token_ttl', 'password_min_length'])('%s: a number stays', (key) => {
    expect(redact({ [key]: 300 })).toEqual({ [key]: 300 });
  });

  it.each(['pass', 'password', 'dbpass', 'PGPASS', 'passcode', 'passkey', 'Passwort', 'pin_pass', 'secret', 'api_key'])('%s: a number is still masked', (key) => {
    expect(redact({ [key]: 20240611 })).toEqual({ [key]: '[REDACTED]' });
  });

  it.each(['hung_pass_seconds', 'pass_count', 'token_ttl'])('%s: text is still masked', (key) => {
    expect(JSON.stringify(redact({ [key]: SECRET }))).not.toContain(SECRET);
  });

  it('a daemon log line keeps a config\'s number of seconds and masks a password beside it', () => {
    const { lines, logger } = capturedLog();
    logger.info({ daemon: { hung_pass_seconds: 300, firing_passes: 2 }, db: { pass: SECRET, dbpass: 1234567 } }, 'x');
    expect(lines[0]).toMatchObject({ daemon: { hung_pass_seconds: 300, firing_passes: 2 }, db: { pass: '[REDACTED]', dbpass: '[REDACTED]' } });
  });
});
