import type { OptionSpec } from './flags.ts';
import { TAR_OPTIONS, TRANSFER_OPTIONS } from './program-tables.ts';
import { WRAPPERS } from './wrapper-tables.ts';

/** Tables of shell code hidden in the options of programs that are not shells (tar, zip, vim, less, gdb, …). */

/**
 * Where an option value holds shell code: all of it, or the `code` group of the first pattern that matches; a
 * pattern with an `inline` group instead finds another interpreter's code (gdb's `python …`), flagged like `python -c`.
 */
export type CodeIn = true | readonly RegExp[];

export interface EmbeddedCodeSpec {
  /** GNU-style options (parsed with `spec`) whose value carries code. */
  readonly spec?: OptionSpec;
  readonly options?: Readonly<Record<string, CodeIn>>;
  /** Option words as typed (single-dash long names: `-ex`, `-TT`) whose next word, or `=value`, carries code. */
  readonly words?: Readonly<Record<string, CodeIn>>;
  /** Words that begin with `+` (`vim +CMD`, `less +CMD`): the text after the `+`. */
  readonly plus?: CodeIn;
  /** Word scanning stops at these (`gdb --args`: what follows belongs to the program run). */
  readonly stop?: readonly string[];
}

/** Ex commands (vim -c, +CMD) that run a shell: `!cmd`, `:r !cmd`, `:w !cmd`, `:%!filter`, `:terminal cmd`, `system('cmd')`. */
const EX_SHELL: readonly RegExp[] = [
  /(?:^|\|)[\s:]*(?:sil(?:ent)?!?\s*)?[%.$,\d'<>+-]*\s*(?:(?:r(?:e(?:ad?)?)?|w(?:r(?:i(?:te?)?)?)?)\s+)?!(?<code>.*)$/s,
  /(?:^|\|)[\s:]*(?:sil(?:ent)?!?\s*)?ter(?:m(?:i(?:n(?:al?)?)?)?)?!?(?:\s+\+\+\S+)*\s+(?<code>.*)$/s,
  /\b(?:system|systemlist|jobstart|termopen)\s*\(\s*\[?\s*(['"])(?<code>.*?)\1/s,
];
const VIM: EmbeddedCodeSpec = { words: { '-c': EX_SHELL, '--cmd': EX_SHELL }, plus: EX_SHELL, stop: ['--'] };

/** less's initial commands (`+CMD`): `!cmd` runs a shell command, `|Xcmd` pipes to one. */
const LESS_SHELL: readonly RegExp[] = [/!(?<code>.*)$/s, /\|.(?<code>.*)$/s];

/** gdb commands that run a shell (`shell cmd`, `!cmd`, `pipe … | cmd`, `| … | cmd`) or Python or Guile (`python`, `py`, `pi`, `guile`, `gu`, `gr`). */
const GDB_SHELL: readonly RegExp[] = [
  /^\s*(?:shell\s|!)(?<code>.*)$/s, /^\s*(?:pipe\s|\|)[^|]*\|(?<code>.*)$/s,
  /^\s*(?:python(?:-\w*)?|py|pi|guile(?:-repl)?|gu|gr)(?<inline>(?:\s.*)?)$/s,
];
/** lldb commands that run a shell (`shell`, `platform shell`) or its Python (`script`, or a prefix of it down to `sc`, which lldb resolves). */
const LLDB_SHELL: readonly RegExp[] = [/^\s*(?:platform\s+)?shell\s+(?<code>.*)$/s, /^\s*sc(?:r(?:i(?:pt?)?)?)?(?<inline>(?:\s.*)?)$/s];
const GDB_WORDS = ['-ex', '--ex', '-eval-command', '--eval-command', '-iex', '--iex', '-init-eval-command', '--init-eval-command'];
const LLDB_WORDS = ['-o', '--one-line', '-O', '--one-line-before-file', '-k', '--one-line-on-crash', '-K'];

/** ssh options that run a local command (`-o ProxyCommand=…`). */
const SSH_COMMAND: readonly RegExp[] = [/^\s*(?:ProxyCommand|LocalCommand|KnownHostsCommand)\s*(?:=|\s)\s*(?<code>.*)$/is];

/** VTE-style terminals: `-e STRING` / `--command=STRING` is a command line. */
const TERMINAL: EmbeddedCodeSpec = { words: { '-e': true, '--command': true }, stop: ['--', '-x', '--execute'] };

const TAR: EmbeddedCodeSpec = {
  spec: TAR_OPTIONS,
  options: {
    'to-command': true, 'checkpoint-action': [/^exec=(?<code>.*)$/s], 'use-compress-program': true, I: true, 'rsh-command': true,
    'info-script': true, 'new-volume-script': true, F: true,
  },
};

export const EMBEDDED_CODE: Readonly<Record<string, EmbeddedCodeSpec>> = {
  tar: TAR, gtar: TAR, bsdtar: TAR,
  zip: { words: { '-TT': true, '--unzip-command': true } },
  vi: VIM, vim: VIM, nvim: VIM, view: VIM, vimdiff: VIM, gvim: VIM, ex: VIM, evim: VIM,
  less: { plus: LESS_SHELL },
  man: { spec: { short: 'CMLmSsepRrEP', attached: 'HX', long: ['pager', 'config-file', 'manpath', 'locale', 'systems', 'sections', 'extension', 'preprocessor', 'recode', 'encoding', 'prompt'] }, options: { P: true, pager: true, H: true } },
  gdb: { words: Object.fromEntries(GDB_WORDS.map((w) => [w, GDB_SHELL])), stop: ['--args', '-args'] },
  lldb: { words: Object.fromEntries(LLDB_WORDS.map((w) => [w, LLDB_SHELL])), stop: ['--'] },
  rsync: { spec: TRANSFER_OPTIONS.rsync, options: { e: true, rsh: true } },
  ssh: { spec: WRAPPERS.ssh!, options: { o: SSH_COMMAND } },
  scp: { spec: TRANSFER_OPTIONS.scp, options: { o: SSH_COMMAND } },
  'gnome-terminal': TERMINAL, 'mate-terminal': TERMINAL, 'xfce4-terminal': TERMINAL, terminator: TERMINAL, tilix: TERMINAL,
};

/** $LESS is options: a `+CMD` there (to a `$`, which ends an option string) is an initial command, as in `less +CMD`. */
const LESS_VARIABLE: readonly RegExp[] = LESS_SHELL.map((re) => new RegExp(`(?:^|[\\s$])(?:-[^\\s$]*)?\\+[^$]*?${re.source.replace('.*)$', '[^$]*)')}`, 's'));

/**
 * Variables whose value a program runs as shell code: bash before each prompt; less for each file it opens
 * (LESSOPEN after its `|`, `||` and `-` markers, with or without them) and closes; git, man and others run
 * pagers, editors, git's ssh and external diff with `sh -c`. GIT_SSH and GIT_PROXY_COMMAND are left out:
 * git runs them as one program, not a command line.
 */
export const CODE_VARIABLES: Readonly<Record<string, CodeIn>> = {
  PROMPT_COMMAND: true,
  LESSOPEN: [/^\s*\|{0,2}-?(?<code>.*)$/s],
  LESSCLOSE: true,
  LESS: LESS_VARIABLE,
  GIT_SSH_COMMAND: true, GIT_PAGER: true, PAGER: true, MANPAGER: true, GIT_EDITOR: true, GIT_SEQUENCE_EDITOR: true, EDITOR: true, VISUAL: true,
  GIT_EXTERNAL_DIFF: true,
};

/** Programs that install commands to run later (outside this command line), and where they read them. */
export interface SchedulerSpec {
  readonly spec: OptionSpec;
  /** `crontab`: one job a line after five time fields; `script`: a shell script (at). */
  readonly format: 'crontab' | 'script';
  /** Options with which nothing is installed (listing, removing). */
  readonly except: readonly string[];
  /** Options naming the file to read; else the first operand (crontab), else stdin. */
  readonly file?: readonly string[];
  /** The first operand is the file to read (`crontab FILE`; `-` is stdin). */
  readonly fileOperand?: boolean;
}

const AT: SchedulerSpec = { spec: { short: 'qft' }, format: 'script', except: ['l', 'r', 'd', 'c'], file: ['f'] };

export const SCHEDULERS: Readonly<Record<string, SchedulerSpec>> = {
  crontab: { spec: { short: 'u' }, format: 'crontab', except: ['l', 'r', 'e'], fileOperand: true },
  at: AT, batch: AT,
};
