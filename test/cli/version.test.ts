import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { packageVersion } from '../../src/util/package-version.ts';
import { ROOT, runCli } from '../support/cli.ts';

const version = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string }).version;

describe('echo-agent --version', () => {
  it.each([['--version'], ['-V']])('%s prints package.json\'s version and exits 0', async (flag) => {
    const r = await runCli([flag]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe(`${version}\n`);
    expect(r.stderr).toBe('');
  });

  it('is read relative to the module, as from dist/cli/ in a build, and never breaks the CLI', () => {
    const root = mkdtempSync(join(tmpdir(), 'echo-version-'));
    mkdirSync(join(root, 'dist', 'cli'), { recursive: true });
    writeFileSync(join(root, 'package.json'), JSON.stringify({ name: 'echo-agent', version: '9.8.7' }));
    expect(packageVersion(pathToFileURL(join(root, 'dist', 'cli', 'program.js')))).toBe('9.8.7');
    // someone else's package.json in between is not ours
    writeFileSync(join(root, 'dist', 'package.json'), JSON.stringify({ type: 'module' }));
    expect(packageVersion(pathToFileURL(join(root, 'dist', 'cli', 'program.js')))).toBe('9.8.7');
    const none = mkdtempSync(join(tmpdir(), 'echo-version-none-'));
    expect(packageVersion(pathToFileURL(join(none, 'a', 'b', 'program.js')))).toBe('unknown');
  });
});
