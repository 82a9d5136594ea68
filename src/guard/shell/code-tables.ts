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

/**
 * C calls a debugger's expression (`call`, `print`, `expr`, …) makes in the debugged process, which may run as
 * another user: the string given to system()/popen() is shell code, and any such call is flagged too; other calls
 * that start programs or load code (exec*, posix_spawn, dlopen), or a string the guard cannot read, are flagged.
 */
const C_SHELL_CALLS: readonly RegExp[] = [
  // gdb's $_shell("…") convenience function runs its argument with the shell
  /(?<inline>)(?:\$_shell|\b(?:__libc_)?(?:system|popen))\s*\(\s*(?:\([^()]*\)\s*)?"(?<cstring>(?:[^"\\]|\\.)*)"/s,
  /(?:\$_shell|\b(?:__libc_)?(?:system|popen|exec[lv]p?e?|execvpe|posix_spawnp?|dlopen|__libc_dlopen_mode))\s*\((?<inline>)/,
];
/** gdb commands that run a shell (`shell cmd`, `!cmd`, `pipe … | cmd`, `| … | cmd`) or Python or Guile (`python`, `py`, `pi`, `guile`, `gu`, `gr`). */
const GDB_SHELL: readonly RegExp[] = [
  /^\s*(?:shell\s|!)(?<code>.*)$/s, /^\s*(?:pipe\s|\|)[^|]*\|(?<code>.*)$/s,
  /^\s*(?:python(?:-\w*)?|py|pi|guile(?:-repl)?|gu|gr)(?<inline>(?:\s.*)?)$/s,
  ...C_SHELL_CALLS,
];
/**
 * lldb commands that run a shell (`shell`, `platform shell`, whose options end at `--`) or its Python (`script`,
 * or a prefix of it down to `sc`, which lldb resolves).
 */
const LLDB_SHELL: readonly RegExp[] = [/^\s*(?:platform\s+)?shell\s+(?:(?:-.*?\s)?--\s+)?(?<code>.*)$/s, /^\s*sc(?:r(?:i(?:pt?)?)?)?(?<inline>(?:\s.*)?)$/s, ...C_SHELL_CALLS];
const GDB_WORDS = ['-ex', '--ex', '-eval-command', '--eval-command', '-iex', '--iex', '-init-eval-command', '--init-eval-command'];
const LLDB_WORDS = ['-o', '--one-line', '-O', '--one-line-before-file', '-k', '--one-line-on-crash', '-K'];
const GDB: EmbeddedCodeSpec = { words: Object.fromEntries(GDB_WORDS.map((w) => [w, GDB_SHELL])), stop: ['--args', '-args'] };
const LLDB: EmbeddedCodeSpec = { words: Object.fromEntries(LLDB_WORDS.map((w) => [w, LLDB_SHELL])), stop: ['--'] };

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
  gdb: GDB, 'gdb-multiarch': GDB, 'rust-gdb': GDB,
  lldb: LLDB, 'rust-lldb': LLDB,
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

/** A git credential helper: `!CMD` is shell code; a name or path is a program git runs with the shell as well. */
const CREDENTIAL_HELPER: readonly RegExp[] = [/^!?(?<code>.*)$/s];

/**
 * git configuration keys whose value git runs as shell code, lower-case; `*` stands for a subsection
 * (`diff.<driver>.textconv`) or, last, for any name (`alias.<name>`). A `!` alias is shell code; others are git
 * arguments, which checkGit reads. `-c`, `--config-env`, GIT_CONFIG_KEY_n and `git config` all go through this.
 */
export const GIT_CONFIG_CODE: Readonly<Record<string, CodeIn>> = {
  'core.pager': true, 'core.editor': true, 'core.sshcommand': true, 'core.fsmonitor': true, 'core.askpass': true, 'core.gitproxy': true,
  'core.alternaterefscommand': true, 'sequence.editor': true, 'diff.external': true, 'interactive.difffilter': true, 'gpg.program': true,
  'gpg.*.program': true, 'credential.helper': CREDENTIAL_HELPER, 'credential.*.helper': CREDENTIAL_HELPER, 'pager.*': true,
  'alias.*': [/^!(?<code>.*)$/s], 'diff.*.command': true, 'diff.*.textconv': true, 'merge.*.driver': true, 'filter.*.clean': true,
  'filter.*.smudge': true, 'filter.*.process': true, 'difftool.*.cmd': true, 'mergetool.*.cmd': true, 'browser.*.cmd': true,
  'uploadpack.packobjectshook': true, 'remote.*.uploadpack': true, 'remote.*.receivepack': true, 'submodule.*.update': [/^!(?<code>.*)$/s],
};

/** git keys naming code the guard cannot read: a hooks directory (git runs its scripts), a config file to include. */
export const GIT_CONFIG_UNSEEN: readonly string[] = ['core.hookspath', 'include.path', 'includeif.*.path'];
/** Values of those keys that point at nothing: `core.hooksPath=/dev/null` turns hooks off. */
export const GIT_CONFIG_NOWHERE: readonly string[] = ['/dev/null'];

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
