import { describe, expect, it } from 'vitest';
import { parseConfigText } from '../../src/config/load.ts';
import { defaultConfig } from '../../src/config/schema.ts';
import { configuredSecrets } from '../../src/config/secrets.ts';
import { scrub, secretsOf } from '../../src/tools/net-deps.ts';
import { redactText } from '../../src/util/redact.ts';

const targets = (url: string, name = 'ops-hook') => defaultConfig({ notify: { targets: { [name]: { url } } } });

describe('a notify target\'s URL is a configured secret (webhook URLs carry their token)', () => {
  it('registers the URL and the token in its path, not the target\'s name or the words of the path', () => {
    const secrets = configuredSecrets(targets('https://example.com/hook/TOKEN123456'));
    expect(secrets).toEqual(expect.arrayContaining(['https://example.com/hook/TOKEN123456', '/hook/TOKEN123456', 'TOKEN123456']));
    expect(secrets).not.toContain('ops-hook');
    expect(secrets).not.toContain('hook');
    expect(secrets).not.toContain('/hook');
  });

  it('registers a token in the query, a password in the userinfo, and the Slack-style pieces of a path', () => {
    const secrets = configuredSecrets(defaultConfig({ notify: { targets: {
      q: { url: 'https://hooks.example/notify?key=abc123def456&channel=ops' },
      u: { url: 'https://bot:s3cretPassw0rd@chat.example/post' },
      slack: { url: 'https://hooks.slack.com/services/T0123ABCD/B0123ABCD/XyzAbcDefGhiJklMnoPqrStu' },
    } } }));
    expect(secrets).toEqual(expect.arrayContaining(['abc123def456', 's3cretPassw0rd', 'T0123ABCD', 'B0123ABCD', 'XyzAbcDefGhiJklMnoPqrStu']));
    for (const word of ['ops', 'notify', 'services', 'post', 'channel']) expect(secrets).not.toContain(word);
  });

  it('a URL without a token registers the URL alone: its path is a word, cut out of no other text', () => {
    expect(configuredSecrets(targets('https://hooks.example/ops-alerts'))).toEqual(['https://hooks.example/ops-alerts']);
  });

  it('a path piece equal to a target\'s name stays visible: the name is what people and models use', () => {
    expect(configuredSecrets(targets('https://chat.example/to/team42alerts', 'team42alerts'))).toEqual(['https://chat.example/to/team42alerts']);
  });

  it('once the configuration is loaded, a config file read back shows the target name and no URL or token', () => {
    const file = 'notify:\n  targets:\n    ops-hook:\n      url: https://example.com/hook/TOKEN123456\nmodel:\n  name: fake-model\n';
    parseConfigText(file);
    const shown = redactText(file);
    expect(shown).toBe('notify:\n  targets:\n    ops-hook:\n      url: [REDACTED]\nmodel:\n  name: fake-model\n');
    // another spelling of the host, or the path alone: the token is still cut
    expect(redactText('POST https://EXAMPLE.com:443/hook/TOKEN123456 failed')).not.toContain('TOKEN123456');
    expect(redactText('GET /hook/TOKEN123456 HTTP/1.1')).toBe('GET [REDACTED] HTTP/1.1');
    // as JSON (a tool's output sent to the model): the line breaks stay
    expect(redactText(JSON.stringify({ content: file }))).toBe(JSON.stringify({ content: shown }));
    // ordinary text that shares words with the URL is untouched
    expect(redactText('the ops-hook target posts to a hook on example.com')).toBe('the ops-hook target posts to a hook on example.com');
  });

  it('network tools scrub it from their error messages too (secretsOf)', () => {
    const config = targets('https://example.com/hook/TOKEN123456');
    expect(scrub('connect ECONNREFUSED for https://example.com/hook/TOKEN123456', secretsOf(config))).toBe('connect ECONNREFUSED for [REDACTED]');
  });
});
