import { parseOptions } from './flags.ts';
import type { Arg, RedirFact } from './model.ts';
import type { Unwrapped } from './unwrap.ts';
import { literal } from './values.ts';
import { WRAPPERS } from './wrapper-tables.ts';

/**
 * GNU parallel `--dry-run` (`--dryrun`, `--dr`) prints the commands it would run instead of running them. Judged as
 * running them all the same when what it prints goes on (a later pipeline stage, a file, a substitution: `| sh`), or
 * when something runs anyway: perl in `{= … =}` or `--rpl` builds each line, `--filter` is perl, semaphore mode, a
 * profile with options not seen, and modes that start other parallels or read jobs from elsewhere (`--onall`,
 * `--sqlworker`, `--shebang`). An abbreviation other than `--dr` is not taken as it.
 */
const DRY = new Set(['dry-run', 'dryrun', 'dr']);
const RUNS_ANYWAY = new Set(['rpl', 'filter', 'semaphore', 'bg', 'fg', 'J', 'profile', 'onall', 'nonall', 'sqlworker', 'sqlandworker', 'shebang', 'shebang-wrap']);
/** Where printing to is still only printing. */
const TERMINAL = new Set(['/dev/null', '/dev/tty', '/dev/stderr']);

/** A wrapper that runs nothing. */
export const PRINTS_ONLY: Unwrapped = { rest: [], code: null, chdir: null, appendsArgs: false, remote: false };

/** Whether this wrapper only prints what it would run (see above); `feeds`: its output goes on to a pipe or substitution. */
export function printsOnly(name: string, args: readonly Arg[], feeds: boolean, redirs: readonly RedirFact[]): boolean {
  if (name !== 'parallel' || feeds) return false;
  const p = parseOptions(args, WRAPPERS.parallel!);
  const anyway = (name: string): boolean => [...RUNS_ANYWAY].some((n) => n === name || (n.length > 1 && n.startsWith(name)));
  if (!p.opts.some((o) => DRY.has(o.name)) || p.opts.some((o) => !DRY.has(o.name) && (o.partial ? anyway(o.name) : RUNS_ANYWAY.has(o.name)))) return false;
  if (args.some((a) => a.v.includes('{='))) return false;
  return !printsTo(redirs);
}

/** Whether these redirections send stdout to a file (or another descriptor), not only to the terminal or nowhere. */
export const printsTo = (redirs: readonly RedirFact[]): boolean =>
  redirs.some((r) => /^(>|>>|>\||&>|&>>|>&)$/.test(r.op) && (r.fd === '' || r.fd === '1' || r.op.startsWith('&')) && !TERMINAL.has(literal(r.target?.v ?? '') ?? ''));
