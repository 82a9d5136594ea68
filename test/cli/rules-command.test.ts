import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ruleRegistry, type RuleDefinition } from '../../src/cli/rule-registry.ts';
import { RULES } from '../../src/policy/rules.ts';
import { AUTHORIZATION_RULES } from '../../src/store/grants.ts';
import { SHELL_RULES } from '../../src/guard/shell/rules.ts';
import { PATH_RULES } from '../../src/guard/paths/check-paths.ts';
import { IPV4_RULES } from '../../src/guard/ssrf/address-rules.ts';
import { offlineCli, ROOT, runCli } from '../support/cli.ts';

const ENTRY_KEYS = ['also', 'config_key', 'id', 'reason', 'remedy', 'source', 'table'];
const metadata = IPV4_RULES.find((r) => r.rule === 'ssrf.ip.metadata')!;

/** A config whose database is a closed port and whose notify target draws a load warning (ssrf.ip.loopback). */
const offline = offlineCli('echo-rules-');
offline.file('echo-agent.yaml', 'database:\n  url: postgres://postgres@127.0.0.1:1/none\nnotify:\n  targets:\n    ops: { url: "http://127.0.0.1:18081/hook" }\n');
const env = offline.env;

describe('the rule registry', () => {
  // that every rule id written in src is listed here: test/cli/audit-known-values.test.ts (audit list --rule takes these ids)
  it('gives each id a reason and a source file that defines it', async () => {
    const rules = await ruleRegistry();
    expect(rules.length).toBeGreaterThan(150);
    const texts = new Map<string, string>();
    const text = (source: string): string => texts.get(source) ?? texts.set(source, readFileSync(join(ROOT, source), 'utf8')).get(source)!;
    for (const rule of rules) {
      for (const d of [rule, ...rule.also] as RuleDefinition[]) {
        expect(d.reason.trim(), rule.id).not.toBe('');
        expect(d.source, rule.id).toMatch(/^src\/.+\.ts$/);
        expect(existsSync(join(ROOT, d.source)), `${rule.id}: ${d.source}`).toBe(true);
        expect(text(d.source), `${rule.id} in ${d.source}`).toMatch(new RegExp(`['"]${rule.id.replaceAll('.', '\\.')}['"]`));
        if (d.table !== null) expect(text(d.source), `${d.table} in ${d.source}`).toContain(`export const ${d.table}`);
      }
    }
  });
});

describe('echo-agent rules show', () => {
  it.each([
    ['shell.secret.read', SHELL_RULES.find((r) => r.id === 'shell.secret.read')!.reason, 'src/guard/shell/rules.ts (SHELL_RULES)'],
    ['path.outside_workspace', PATH_RULES['path.outside_workspace'], 'src/guard/paths/check-paths.ts (PATH_RULES)'],
    ['ssrf.ip.metadata', metadata.reason, 'src/guard/ssrf/address-rules.ts (IPV4_RULES)'],
    ['unattended.dangerous', RULES['unattended.dangerous'], 'src/policy/rules.ts (RULES)'],
    ['grant.definition_changed', AUTHORIZATION_RULES['grant.definition_changed'], 'src/store/grants.ts (AUTHORIZATION_RULES)'],
  ])('%s: prints its reason and where it is defined, without a database or config warnings', async (id, reason, defined) => {
    const r = await runCli(['rules', 'show', id], { env });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toBe('');
    expect(r.stdout.split('\n')[0]).toBe(id);
    expect(r.stdout).toContain(`reason:  ${reason}\n`);
    expect(r.stdout).toContain(`defined: ${defined}\n`);
    expect(r.stdout).toContain(`echo-agent audit list --rule ${id}`);
  });

  it('shows the remedy and every table an id is defined in', async () => {
    const r = await runCli(['rules', 'show', 'network.restricted', '--json'], { env });
    expect(r.code, r.stderr).toBe(0);
    const rule = JSON.parse(r.stdout) as Record<string, unknown>;
    expect(Object.keys(rule).sort()).toEqual(ENTRY_KEYS);
    expect(rule).toEqual({
      id: 'network.restricted', reason: RULES['network.restricted'], source: 'src/policy/rules.ts', table: 'RULES',
      also: [{ reason: RULES['network.restricted'], source: 'src/guard/ssrf/check-url.ts', table: 'URL_RULES' }],
      remedy: expect.stringContaining('execution.network_allowlist'), config_key: null,
    });
  });

  it.each([
    ['unattended.dangerus', 'did you mean "unattended.dangerous"?'],
    ['secret.read', 'did you mean "shell.secret.read"?'],
    ['shell.rm', 'did you mean one of: shell.rm.recursive,'],
  ])('an unknown id %s exits 1 with a suggestion', async (id, hint) => {
    const r = await runCli(['rules', 'show', id], { env });
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain(`no rule id "${id}" is known to this build`);
    expect(r.stderr).toContain(hint);
  });
});

describe('echo-agent rules list', () => {
  it('--json: every known id once, as {id, reason, source, table, also, remedy, config_key}', async () => {
    const r = await runCli(['rules', 'list', '--json'], { env });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toBe('');
    const rules = JSON.parse(r.stdout) as Record<string, unknown>[];
    expect(rules.map((x) => x.id)).toEqual((await ruleRegistry()).map((x) => x.id));
    for (const rule of rules) expect(Object.keys(rule).sort(), String(rule.id)).toEqual(ENTRY_KEYS);
  });

  it('--prefix lists one family; as a table, one line per id with its source and reason', async () => {
    const r = await runCli(['rules', 'list', '--prefix', 'shell.'], { env });
    expect(r.code, r.stderr).toBe(0);
    const lines = r.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^RULE\s+SOURCE\s+REASON$/);
    expect(lines.slice(1).map((l) => l.split(/\s+/)[0]).sort()).toEqual(SHELL_RULES.map((s) => s.id).sort());
    const rm = SHELL_RULES.find((s) => s.id === 'shell.rm.recursive')!;
    expect(lines).toContainEqual(expect.stringMatching(new RegExp(`^shell\\.rm\\.recursive\\s+src/guard/shell/rules\\.ts\\s+${rm.reason.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`)));
  });

  it('a --prefix that selects nothing is a typo (exit 64) with the prefixes there are', async () => {
    const r = await runCli(['rules', 'list', '--prefix', 'shel.'], { env });
    expect(r.code).toBe(64);
    expect(r.stderr).toContain('--prefix: no rule id starts with "shel." (did you mean "shell."?)');
    expect(r.stderr).toContain('ssrf.');
  });

  it('the config given does draw a warning where it is read (so the quiet stderr above means something)', async () => {
    const r = await runCli(['tools', 'list'], { env });
    expect(r.stderr).toContain('(ssrf.ip.loopback)');
  });
});
