import { mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { knownOutcomes, knownRuleIds } from '../../src/cli/audit-vocabulary.ts';
import { appendAudits } from '../../src/store/audit.ts';
import { ROOT, runCli } from '../support/cli.ts';
import { schemaConfigYaml } from '../support/approval-screens.ts';
import { useTestDatabase } from '../support/db.ts';

// A nightly check ("any unattended.dangerous refusals?") on a clean deployment: no records is the good answer, not a usage error.
const database = useTestDatabase();
let env: NodeJS.ProcessEnv;

beforeAll(async () => {
  const { db, schema } = database();
  await appendAudits(db, Array.from({ length: 60 }, (_, i) => ({
    kind: 'gate.decision', actor: 'daemon', step: 4, outcome: 'allow', rule: 'unattended.read_only', risk: 'read_only', reason: `call ${i}`, data: { tool: 'read_file' },
  })));
  const file = join(mkdtempSync(join(tmpdir(), 'echo-audit-known-')), 'echo-agent.yaml');
  writeFileSync(file, schemaConfigYaml(schema));
  env = { ECHO_AGENT_CONFIG: file };
});

describe('audit list|export --rule / --outcome with a known value no record holds yet', () => {
  it.each([
    ['--rule', 'unattended.dangerous'], ['--rule', 'unattended.outside_grant'], ['--rule', 'grant.definition_changed'], ['--rule', 'shell.rm.recursive_root'],
    ['--outcome', 'deny'], ['--outcome', 'timed_out'], ['--outcome', 'code_wrong'],
  ])('%s %s: an empty listing, exit 0, [] with --json', async (flag, value) => {
    const json = await runCli(['audit', 'list', flag, value, '--json'], { env });
    expect(json.code, json.stderr).toBe(0);
    expect(JSON.parse(json.stdout)).toEqual([]);
  });

  it.each([['--rule', 'unattended.dangerous'], ['--outcome', 'timed_out']])('%s %s: the table and the export are empty too, exit 0', async (flag, value) => {
    const text = await runCli(['audit', 'list', flag, value], { env });
    expect(text.code, text.stderr).toBe(0);
    const exported = await runCli(['audit', 'export', flag, value], { env });
    expect(exported.code, exported.stderr).toBe(0);
    expect(exported.stdout).toBe('');
  });

  it('an id that is no rule and that no record holds is still a usage error that names the nearest one', async () => {
    const r = await runCli(['audit', 'list', '--rule', 'unattended.dangerus', '--json'], { env });
    expect(r.code).toBe(64);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain('--rule: no rule id "unattended.dangerus" is known to this build, and no audit record has it (did you mean "unattended.dangerous"?); the log holds: unattended.read_only');
    const outcome = await runCli(['audit', 'list', '--outcome', 'denyed'], { env });
    expect(outcome.code).toBe(64);
    expect(outcome.stderr).toContain('--outcome: no outcome "denyed" is known to this build, and no audit record has it (did you mean "denied"?)');
  });

  it('knows every rule id and outcome the source writes as a literal', async () => {
    const rules = new Set<string>();
    const outcomes = new Set<string>();
    const walk = (d: string): void => {
      for (const name of readdirSync(d)) {
        const p = join(d, name);
        if (statSync(p).isDirectory()) walk(p);
        else if (p.endsWith('.ts')) {
          const text = readFileSync(p, 'utf8');
          for (const m of text.matchAll(/\brule: '([a-z_]+\.[a-z_.]+)'/g)) rules.add(m[1]!);
          for (const m of text.matchAll(/\boutcome: '([a-z_]+)'/g)) outcomes.add(m[1]!);
        }
      }
    };
    walk(join(ROOT, 'src'));
    expect(rules.size).toBeGreaterThan(20);
    expect(outcomes.size).toBeGreaterThan(3);
    const [knownRules, knownOuts] = [await knownRuleIds(), await knownOutcomes()];
    expect([...rules].filter((r) => !knownRules.has(r))).toEqual([]);
    expect([...outcomes].filter((o) => !knownOuts.has(o))).toEqual([]);
  });
});

describe('audit list --json past the default page', () => {
  it('prints the same newest 50 as the table, says on stderr that more match and how to get them; --all gives every one', async () => {
    const page = await runCli(['audit', 'list', '--json'], { env });
    expect(page.code, page.stderr).toBe(0);
    const rows = JSON.parse(page.stdout) as { seq: number }[];
    expect(rows).toHaveLength(50);
    expect(page.stderr).toContain(`warning: showing the newest 50; use --limit for more, --all for every one, or the same command with --before ${rows[49]!.seq} for the older ones`);
    const all = await runCli(['audit', 'list', '--all', '--json'], { env });
    expect(all.code, all.stderr).toBe(0);
    expect(all.stderr).toBe('');
    const every = JSON.parse(all.stdout) as { seq: number }[];
    expect(every).toHaveLength(60);
    expect(every.map((r) => r.seq)).toEqual([...every.map((r) => r.seq)].sort((a, b) => b - a));
    const below = JSON.parse((await runCli(['audit', 'list', '--all', '--before', String(rows[49]!.seq), '--json'], { env })).stdout) as unknown[];
    expect(below).toHaveLength(10);
  });

  it('--all with --limit is refused: they ask for different things', async () => {
    const r = await runCli(['audit', 'list', '--all', '--limit', '5'], { env });
    expect(r.code).toBe(64);
    expect(r.stderr).toContain('--all and --limit: give one');
  });
});
