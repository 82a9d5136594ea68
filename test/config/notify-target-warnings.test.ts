import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseConfigText } from '../../src/config/load.ts';
import { runCli } from '../support/cli.ts';

const warningsFor = (url: string) => parseConfigText(`notify:\n  targets:\n    ops: { url: "${url}" }\n`, 'x.yaml', {}).warnings;

describe('a notify target the guarded fetch always refuses', () => {
  it.each([
    ['http://127.0.0.1:18081/hook', '127.0.0.1 is loopback (ssrf.ip.loopback)'],
    ['http://[::1]:8080/hook', '::1 is loopback (ssrf.ip.loopback)'],
    ['http://10.0.0.7/hook', '10.0.0.7 is private (ssrf.ip.private)'],
    ['http://169.254.169.254/latest', '169.254.169.254 is metadata (ssrf.ip.metadata)'],
    ['http://localhost:9000/hook', 'localhost is a localhost name (ssrf.name.localhost)'],
    ['https://hooks.internal/x', 'hooks.internal is an internal suffix name (ssrf.name.internal_suffix)'],
  ])('%s: warns at notify.targets.ops.url, in the guard\'s terms', (url, why) => {
    // line 3, where the URL is written inside the flow map
    expect(warningsFor(url)).toEqual([{ path: 'notify.targets.ops.url', message: `${why}; the guarded fetch refuses it, so deliveries to it will fail`, line: 3, column: 17 }]);
  });

  it('a public name or address gets no warning (DNS is left to the fetch)', () => {
    expect(warningsFor('https://hooks.example.com/x')).toEqual([]);
    expect(warningsFor('https://93.184.215.14/x')).toEqual([]);
  });

  it('config validate prints it and still exits 0', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'echo-notify-warn-')), 'echo-agent.yaml');
    writeFileSync(file, 'notify:\n  targets:\n    ops: { url: "http://127.0.0.1:18081/hook" }\n');
    const r = await runCli(['config', 'validate', file]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain(`${file}:3:17: warning: notify.targets.ops.url: 127.0.0.1 is loopback (ssrf.ip.loopback); the guarded fetch refuses it, so deliveries to it will fail`);
  });
});
