import { describe, expect, it } from 'vitest';
import { parseConfigText } from '../../src/config/load.ts';
import { redact } from '../../src/util/redact.ts';
import { capturedLog } from '../support/captured-log.ts';

const SECRET = 'hunter2-s3cr3t-value';

// `pass` matched anywhere in a key made every `passes`, `bypass` or `compass` a credential: a daemon's
// fatal line lost the field naming the loop that hung, and job outputs their counts (I11 is about credentials)
describe('which key names hold a password', () => {
  it.each(['pass', 'password', 'passwd', 'passphrase', 'db_pass', 'DB_PASS', 'smtpPass', 'pass_hash', 'passHash', 'PGPASSWORD', 'new-password', 'x.pass', 'pass2', 'dbpass', 'PGPASS', 'smtppass', 'passcode', 'PASSCODE', 'passkey', 'userPasscode', 'passw', 'Passwort', 'wifi_passkey'])(
    '%s is masked', (key) => {
      expect(JSON.stringify(redact({ [key]: SECRET }))).not.toContain(SECRET);
    });

  it.each(['passes', 'bypass', 'compass', 'firing_passes', 'firingPasses', 'passed', 'bypass_cache', 'passport_country', 'passthrough', 'passenger_count'])('%s is not a credential: its value stays', (key) => {
    expect(redact({ [key]: 'north by northwest' })).toEqual({ [key]: 'north by northwest' });
  });

  it('a log line keeps a count of passes and a bypass flag, and still masks a password beside them', () => {
    const { lines, logger } = capturedLog();
    logger.info({ firing_passes: 2, bypass: 'cache', password: SECRET, db: { pass: SECRET } }, 'x');
    expect(lines[0]).toMatchObject({ firing_passes: 2, bypass: 'cache', password: '[REDACTED]', db: { pass: '[REDACTED]' } });
  });

  it('a bad daemon.firing_passes is shown in the config problem, as any other setting\'s, while a bad credential is not', () => {
    const problem = (text: string) => { try { parseConfigText(text); } catch (err) { return (err as Error).message; } return ''; };
    expect(problem('daemon:\n  firing_passes: lots\n')).toMatch(/daemon\.firing_passes: expected number, got "lots"/);
    expect(problem('model:\n  api_key: 20240611\n')).toMatch(/model\.api_key: expected string, got a number \(not shown/);
  });
});
