import type { Command } from 'commander';
import { CliError, EXIT } from '../errors.ts';
import { printJson, printTable } from '../output.ts';
import { ruleRegistry, type RuleEntry } from '../rule-registry.ts';
import { meantName } from '../../jobs/near-words.ts';
import { printable } from '../../util/printable.ts';

/** The ids a mistyped one may have meant: the near one, else those it starts or ends (`shell.rm`, `secret.read`). */
function suggestions(word: string, ids: readonly string[]): string[] {
  const near = meantName(word, ids);
  if (near !== undefined) return [near];
  const w = word.toLowerCase();
  return ids.filter((id) => id.startsWith(`${w}.`) || id.endsWith(`.${w}`));
}

function unknownRule(id: string, ids: readonly string[]): CliError {
  const s = suggestions(id, ids);
  const hint = s.length === 1 ? ` (did you mean "${s[0]}"?)`
    : s.length > 1 ? ` (did you mean one of: ${s.slice(0, 8).join(', ')}${s.length > 8 ? `, … (${s.length})` : ''}?)` : '';
  return new CliError(`no rule id ${JSON.stringify(id)} is known to this build${hint}; echo-agent rules list lists them all`, EXIT.failure);
}

/** --prefix that selects nothing is a typo that would list nothing (exit 64, as audit list --kind). */
function checkedPrefix(prefix: string, rules: readonly RuleEntry[]): readonly RuleEntry[] {
  const chosen = rules.filter((r) => r.id.startsWith(prefix));
  if (chosen.length > 0) return chosen;
  const heads = [...new Set(rules.map((r) => `${r.id.split('.')[0]}.`))];
  const near = meantName(prefix, heads);
  throw new CliError(`--prefix: no rule id starts with ${JSON.stringify(prefix)}${near ? ` (did you mean "${near}"?)` : ''}; rule ids start with: ${heads.join(', ')}`, EXIT.usage);
}

function printRule(r: RuleEntry): void {
  const lines: [string, string][] = [['reason', r.reason], ['defined', `${r.source}${r.table ? ` (${r.table})` : ' (written as a literal)'}`]];
  for (const a of r.also) lines.push(['also', `${a.source}${a.table ? ` (${a.table})` : ''}${a.reason === r.reason ? '' : `: ${a.reason}`}`]);
  if (r.remedy) lines.push(['to fix', r.remedy]);
  if (r.config_key) lines.push(['config', r.config_key]);
  lines.push(['records', `echo-agent audit list --rule ${r.id}`]);
  process.stdout.write(`${r.id}\n${lines.map(([k, v]) => `  ${`${k}:`.padEnd(9)}${printable(v)}\n`).join('')}`);
}

export function registerRulesCommands(program: Command): void {
  const rules = program.command('rules').description('every rule id a decision or record can carry: its reason and the file that defines it');
  rules
    .command('list')
    .description('every rule id with its reason and source file (sorted by id)')
    .option('--prefix <prefix>', 'only ids starting with it (shell., ssrf.ip., unattended.)')
    .option('--json', 'print JSON: an array of {id, reason, source, table, also, remedy, config_key}')
    .action(async (opts: { prefix?: string; json?: boolean }) => {
      const all = await ruleRegistry();
      const chosen = opts.prefix === undefined ? all : checkedPrefix(opts.prefix, all);
      if (opts.json) return printJson(chosen);
      printTable(['RULE', 'SOURCE', 'REASON'], chosen.map((r) => [r.id, r.source, r.reason]));
    });
  rules
    .command('show')
    .description('one rule id: its reason, where it is defined, what to do about it, how to list its audit records')
    .argument('<id>', 'a rule id, as an audit record, a run or check call shows it')
    .option('--json', 'print JSON: {id, reason, source, table, also, remedy, config_key}')
    .action(async (id: string, opts: { json?: boolean }) => {
      const all = await ruleRegistry();
      const rule = all.find((r) => r.id === id);
      if (!rule) throw unknownRule(id, all.map((r) => r.id));
      if (opts.json) return printJson(rule);
      printRule(rule);
    });
}
