import { readFileSync } from 'node:fs';
import type { Command } from 'commander';
import type { Config } from '../../config/schema.ts';
import type { StaticGuard } from '../../guard/index.ts';
import type { GuardDecision } from '../../guard/types.ts';
import { configFor } from '../config-option.ts';
import { CliError, EXIT } from '../errors.ts';
import { printJson } from '../output.ts';
import { unreadable } from '../../util/file-errors.ts';

const EXIT_FOR: Record<GuardDecision, number> = { allow: EXIT.ok, deny: EXIT.failure, ask: EXIT.wouldAsk };
const STRICTNESS: Record<GuardDecision, number> = { allow: 0, ask: 1, deny: 2 };

/** A file of inputs exits as its strictest verdict, so scripts can test it like one check. */
function worst(decisions: readonly GuardDecision[]): GuardDecision {
  return decisions.reduce<GuardDecision>((w, d) => (STRICTNESS[d] > STRICTNESS[w] ? d : w), 'allow');
}

/** What --file skips, the same for commands and URLs: a comment runs and fetches nothing. */
const SKIPPED_LINES = 'blank lines and lines starting with # are skipped';

/** The inputs of --file with their line numbers; blank and comment lines are not inputs. */
function linesOf(file: string, what: string): { line: number; text: string }[] {
  if (file === '') throw new CliError('--file: the path is empty');
  let text: string;
  try {
    text = file === '-' ? readFileSync(0, 'utf8') : readFileSync(file, 'utf8');
  } catch (err) {
    throw new CliError(`--file ${file}: cannot read (${unreadable(err)})`, EXIT.noInput);
  }
  // a comment judged as a URL would be "invalid" (and print as `?…`); judged as a command it is noise
  const lines = text.split('\n').map((l, i) => ({ line: i + 1, text: l.replace(/\r$/, '') })).filter((l) => l.text.trim() !== '' && !l.text.trimStart().startsWith('#'));
  // an empty list would pass as "allow" and hide a broken pipeline upstream
  if (lines.length === 0) throw new CliError(`--file ${file}: holds no ${what} (only blank lines, # comments or nothing)`, EXIT.dataErr);
  return lines;
}

/** Words beside --file would be silently ignored; refuse the mix instead. */
function fileOrArguments(name: string, file: string | undefined, given: boolean): file is string {
  if (file !== undefined && given) throw new CliError(`check ${name}: give --file or the ${name} itself, not both`);
  return file !== undefined;
}

/** Quotes a word back so the guard sees what the calling shell passed (`bash -c "rm -rf /"`). */
function shellQuote(word: string): string {
  return /^[A-Za-z0-9_@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

/** TSV cells must not contain tabs or newlines. */
const cell = (s: string) => s.replace(/[\t\n\r]/g, ' ');

/**
 * The gate's own step 1 for `check command` and `check url`: the same secrets (symlinks
 * resolved), start directory and DNS timeout, so a verdict printed here is the one a call would get.
 * `dns: false` judges URLs offline (`--no-dns`).
 */
export async function checkGuard(config: Config, opts: { readonly dns: boolean }): Promise<StaticGuard> {
  // the guard loads a WASM shell parser: only for these commands
  const [{ createGuard }, { systemGuardDeps }] = await Promise.all([import('../../guard/index.ts'), import('../../util/system-ports.ts')]);
  return createGuard(config, systemGuardDeps({ dns: opts.dns }));
}

export function registerCheckGuardCommands(check: Command): void {
  check
    .command('command')
    .description('judge a shell command with the static guard (exit 0 allow, 1 deny, 2 ask); --file: one command a line, TSV out, exit by the strictest verdict')
    .argument('[command...]', 'the command (put it after --)')
    .option('--file <file>', `one command per line ("-" for stdin; ${SKIPPED_LINES}); prints decision<TAB>rules<TAB>command (JSON lines with their line number with --json)`)
    .option('--json', 'print JSON')
    .action(async (words: string[], opts: { file?: string; json?: boolean }, cmd: Command) => {
      const { config } = configFor(cmd);
      const guard = await checkGuard(config, { dns: false });
      // judged as the exec tool's call with no cwd: started in the workspace
      const checkCommand = (command: string) => guard.inspectCommand(command);
      if (fileOrArguments('command', opts.file, words.length > 0)) {
        const seen: GuardDecision[] = [];
        for (const { line: n, text: line } of linesOf(opts.file, 'commands')) {
          const v = await checkCommand(line);
          seen.push(v.decision);
          process.stdout.write(opts.json
            ? `${JSON.stringify({ line: n, command: line, decision: v.decision, findings: v.findings.map((f) => ({ rule: f.rule, severity: f.severity, matched: f.matched, reason: f.reason })) })}\n`
            : `${v.decision}\t${cell(v.findings.map((f) => f.rule).join(',') || '-')}\t${cell(line)}\n`);
        }
        process.exitCode = EXIT_FOR[worst(seen)];
        return;
      }
      if (words.length === 0) throw new CliError('check command: give the command after --, or --file');
      if (words.every((w) => w.trim() === '')) throw new CliError('check command: the command is empty');
      // one argument is the command line as written; several are words the calling shell already split
      const verdict = await checkCommand(words.length === 1 ? words[0]! : words.map(shellQuote).join(' '));
      const out = { decision: verdict.decision, findings: verdict.findings.map((f) => ({ rule: f.rule, severity: f.severity, matched: f.matched, reason: f.reason })) };
      if (opts.json) printJson(out);
      else {
        process.stdout.write(`${verdict.decision}\n`);
        for (const f of out.findings) process.stdout.write(`  ${f.severity}  ${f.rule}  ${f.matched}  — ${f.reason}\n`);
      }
      process.exitCode = EXIT_FOR[verdict.decision];
    });

  check
    .command('url')
    .description('judge a URL with the SSRF guard and the network policy (exit 0 allow, 1 deny, 2 ask); --file: one URL a line, TSV out, exit by the strictest verdict')
    .argument('[url]', 'the URL')
    .option('--no-dns', 'do not resolve names (offline): judge literals and the name denylist only')
    .option('--file <file>', `one URL per line ("-" for stdin; ${SKIPPED_LINES}); prints decision<TAB>rule<TAB>addresses<TAB>url, the URL without credentials, query or fragment (JSON lines with their line number with --json)`)
    .option('--json', 'print JSON')
    .action(async (url: string | undefined, opts: { dns: boolean; file?: string; json?: boolean }, cmd: Command) => {
      const { config } = configFor(cmd);
      const [guard, { redactUrl }] = await Promise.all([checkGuard(config, { dns: opts.dns }), import('../../guard/ssrf/index.ts')]);
      const checkUrl = (u: string) => guard.inspectUrl(u);
      if (fileOrArguments('url', opts.file, url !== undefined)) {
        const seen: GuardDecision[] = [];
        for (const { line: n, text: line } of linesOf(opts.file, 'URLs')) {
          const v = await checkUrl(line.trim());
          seen.push(v.decision);
          process.stdout.write(opts.json
            ? `${JSON.stringify({ line: n, url: redactUrl(line.trim()), decision: v.decision, rule: v.rule, reason: v.reason, addresses: v.addresses })}\n`
            : `${v.decision}\t${v.rule}\t${v.addresses.join(',') || '-'}\t${cell(redactUrl(line.trim()))}\n`);
        }
        process.exitCode = EXIT_FOR[worst(seen)];
        return;
      }
      if (url === undefined) throw new CliError('check url: give a URL, or --file');
      if (url.trim() === '') throw new CliError('check url: the URL is empty');
      const v = await checkUrl(url);
      if (opts.json) printJson({ decision: v.decision, rule: v.rule, reason: v.reason, host: v.host, addresses: v.addresses, findings: v.findings });
      else process.stdout.write(`${v.decision}  ${v.rule}\n  ${v.reason}\n  addresses: ${v.addresses.join(', ') || '-'}\n`);
      process.exitCode = EXIT_FOR[v.decision];
    });
}
