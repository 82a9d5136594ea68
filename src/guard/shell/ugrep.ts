import { NOWHERE } from './code-tables.ts';
import { parseOptions, valuesOf } from './flags.ts';
import type { Arg, Emit, Invocation } from './model.ts';
import { TREE_COPIES } from './program-tables.ts';
import { HOME, UNKNOWN, display, literal, plain } from './values.ts';
import { DOWNLOADED } from './written-files.ts';

/**
 * ugrep's commands: `--filter=EXTS:CMD ARGS,…` runs CMD (no shell; `%` is the file, else the file is its stdin) on
 * each file it searches; `--pager=CMD` runs CMD through the shell (see EMBEDDED_CODE). `ug` (and `ugrep --config`,
 * `---`) first reads the options in `.ugrep` (the working directory's, else the home directory's); `--config=FILE`
 * (`---FILE`) reads FILE's: options the guard reads when this line wrote the file, and otherwise cannot see.
 */

export const UGREPS: ReadonlySet<string> = new Set(['ugrep', 'ug', 'ugrep+', 'ug+']);
const DEFAULT_CONFIG = '.ugrep';

export interface UgrepFilter {
  /** The file name extensions it filters (`*`: all). */
  readonly exts: readonly string[];
  /** The command and its arguments, the file (`%`) unknown. */
  readonly words: readonly Arg[];
}

/** `--filter='pdf:pdftotext % -,odt,doc:soffice --cat %'`: a comma starts a new extension, one with a `:` its command. */
export function ugrepFilters(inv: Invocation): UgrepFilter[] {
  if (!UGREPS.has(inv.program)) return [];
  const out: UgrepFilter[] = [];
  for (const value of valuesOf(parseOptions(inv.args, TREE_COPIES.ugrep!.spec), 'filter')) {
    let exts: string[] = [];
    for (const seg of plain(value.v).split(',')) {
      const colon = seg.indexOf(':');
      if (colon < 0) { exts.push(seg); continue; }
      exts.push(seg.slice(0, colon));
      const words = seg.slice(colon + 1).split(/\s+/).filter((w) => w !== '');
      if (words.length > 0) out.push({ exts, words: words.map((w): Arg => ({ v: w.replaceAll('%', UNKNOWN), info: { ...value.info, computed: w.includes('%'), raw: w } })) });
      exts = [];
    }
  }
  return out;
}

/** The commands ugrep's filters run on each file it searches, for the walk (like `find -exec`). */
export const ugrepFilterCommands = (inv: Invocation): Arg[][] => ugrepFilters(inv).map((f) => [...f.words]);

/** What a file named in an argument holds when this command line wrote it; undefined when unknown. */
export type ConfigReader = (file: string) => string | typeof DOWNLOADED | undefined;

const word = (v: string): Arg => ({ v, info: { computed: false, ansi: false, quoted: true, inner: [], raw: v } });

/** A configuration file's `NAME=VALUE` lines as the options `--NAME=VALUE` (comments and blank lines skipped). */
function configOptions(text: string): Arg[] {
  return text.split('\n').map((l) => l.trim()).filter((l) => l !== '' && !l.startsWith('#')).map((l) => word(`--${l}`));
}

/**
 * ugrep's arguments with the options of the configuration file it reads put first (as ugrep parses them first); a file
 * named by `--config=FILE` the guard cannot read is flagged, a downloaded one too. `read` looks a file up in the
 * working directory, then (a relative name) in the home directory, as ugrep does.
 */
export function withUgrepConfig(program: string, args: readonly Arg[], read: ConfigReader, emit: Emit): readonly Arg[] {
  if (!UGREPS.has(program)) return args;
  const end = args.findIndex((a) => a.v === '--');
  const opts = (end < 0 ? args : args.slice(0, end)).map((a) => a.v);
  let file: string | null | undefined = program.startsWith('ug') && !program.startsWith('ugrep') ? DEFAULT_CONFIG : undefined;
  for (const o of opts) {
    if (o === '--no-config') file = undefined;
    else if (o === '--config' || o === '---') file = DEFAULT_CONFIG;
    else if (o.startsWith('--config=')) file = literal(o.slice(9));
    else if (o.startsWith('---')) file = literal(o.slice(3));
  }
  if (file === undefined) return args;
  const explicit = file !== DEFAULT_CONFIG;
  if (file !== null && NOWHERE.includes(file)) return args;
  const text = file === null ? undefined : read(file) ?? (file.startsWith('/') ? undefined : read(`${HOME}/${file}`));
  if (text === DOWNLOADED) emit('shell.download.exec', `${program} reads its options from downloaded ${display(file!)}`);
  else if (typeof text === 'string') return [...configOptions(text), ...args];
  else if (explicit) emit('shell.code.unseen_setting', `${program} --config=${file === null ? '…' : display(file)} (options the guard cannot see, which may run commands)`);
  return args;
}
