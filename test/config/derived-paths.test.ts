import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseConfigText } from '../../src/config/load.ts';
import { defaultConfig } from '../../src/config/schema.ts';

describe('the workspace when the configuration names none', () => {
  it('is <daemon.data_dir>/workspace, not the directory a command starts in', () => {
    expect(defaultConfig().tools.workspace).toBe(join('./data', 'workspace'));
    expect(parseConfigText('daemon:\n  data_dir: /var/lib/echo-agent\n').config.tools.workspace).toBe('/var/lib/echo-agent/workspace');
  });

  it('is what the configuration says when it names one, "." included', () => {
    expect(parseConfigText('tools:\n  workspace: /srv/jobs\n').config.tools.workspace).toBe('/srv/jobs');
    expect(defaultConfig({ tools: { workspace: '.' } }).tools.workspace).toBe('.');
  });

  it('follows an empty ECHO_AGENT_WORKSPACE fallback in the example configuration to the data directory', () => {
    const text = 'daemon:\n  data_dir: /tmp/ea\ntools:\n  workspace: ${ECHO_AGENT_WORKSPACE:-}\n';
    expect(parseConfigText(text, '(inline)', {}).config.tools.workspace).toBe('/tmp/ea/workspace');
    expect(parseConfigText(text, '(inline)', { ECHO_AGENT_WORKSPACE: '/w' }).config.tools.workspace).toBe('/w');
  });
});
