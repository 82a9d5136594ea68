import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { silentLogger } from '../../src/log/logger.ts';
import { readOrCreatePassword, readPassword } from '../../src/store/embedded-files.ts';
import { redactText } from '../../src/util/redact.ts';

// The generated password is random base64url: no pattern knows it, so it is cut out as the literal it is.
describe('the embedded database password', () => {
  it('is cut out of any text this process redacts, once generated or read', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'echo-pgpw-'));
    const password = await readOrCreatePassword(dir, silentLogger);
    expect(redactText(`tool output: ${password}\n`)).toBe('tool output: [REDACTED]\n');
    expect(await readPassword(dir)).toBe(password);
  });
});
