import { gdbProgram } from './debuggers.ts';
import type { OptionSpec } from './flags.ts';
import type { Arg } from './model.ts';
import { BPFTRACE, DTRACE } from './profiler-tables.ts';
import { LESS_OPTIONS, TAR_OPTIONS, TRANSFER_OPTIONS, TREE_COPIES } from './program-tables.ts';
import { GDB_ARGS, WRAPPERS } from './wrapper-tables.ts';
import type { SettingsFormat } from './settings-files.ts';
import { FILTER_CODE } from './filter-code-tables.ts';

/** Tables of shell code hidden in the options of programs that are not shells (tar, zip, vim, less, gdb, …). */

/**
 * Where an option value holds shell code: all of it, or the `code` group of the first pattern that matches; a
 * pattern with an `inline` group instead finds another interpreter's code (gdb's `python …`), flagged like `python -c`;
 * an `ext` group is a git `ext::` command (see extCommand); a `file` group names a file of such commands (gdb's `source`),
 * read like `files` (see EmbeddedCodeSpec); a `setting` group a file of settings that may run code, which the guard does
 * not read (an unseen setting, unless NOWHERE).
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
  /** Option words as typed whose next word, or `=value`, names a file of commands, each line read like a `words` value (`gdb -x FILE`) when it can be seen. */
  readonly files?: Readonly<Record<string, CodeIn>>;
  /** Every word, or the value of an `--opt=value` word, is read for code (git's `ext::` URLs). */
  readonly anyWord?: CodeIn;
  /** Words after which, and their options, the rest is a command line: the first word shell code, the others its arguments (`git bisect run CMD…`). */
  readonly restAfter?: readonly string[];
  /** Commands it reads from a stdin that is not a terminal, one a line (`echo 'shell CMD' | gdb`), when static. */
  readonly stdin?: CodeIn;
  /** The program its `run ARGS` starts through /bin/sh (an `args` group), from its words; null when none is named. */
  readonly program?: (words: readonly Arg[]) => Arg | null;
  /** How it reads a `setting` file, which is read when this line wrote it (see settings-files.ts). */
  readonly reads?: SettingsFormat;
  /** Its commands (and VIMINIT, EXINIT, $SHELL) are read for the shell and programs vim runs commands with (see vim-options.ts). */
  readonly vimOptions?: true;
}

/**
 * Ex commands (vim -c, +CMD, a script's lines) that run a shell: `!cmd`, `:r !cmd`, `:w !cmd`, `:%!filter`, `:terminal cmd`,
 * `system('cmd')`, `:execute "!cmd"`; that source a file of Ex commands (`:so FILE`, read like `-S FILE`); or that run
 * another interpreter's code (`:lua …`, `:py3 …`, `:perldo …`), flagged like `python -c`.
 */
const EX_SHELL: readonly RegExp[] = [
  /(?:^|\|)[\s:]*(?:sil(?:ent)?!?\s*)?[%.$,\d'<>+-]*\s*(?:(?:r(?:e(?:ad?)?)?|w(?:r(?:i(?:te?)?)?)?)\s+)?!(?<code>.*)$/s,
  /(?:^|\|)[\s:]*(?:sil(?:ent)?!?\s*)?ter(?:m(?:i(?:n(?:al?)?)?)?)?!?(?:\s+\+\+\S+)*\s+(?<code>.*)$/s,
  // another interpreter's code: flagged, and a command it gives system(), os.execute() or popen() as a literal walked
  /(?:^|\|)[\s:]*[%.$,\d'<>+-]*\s*(?<inline>(?:py(?:t(?:h(?:on?)?)?)?[3x]?|pythonx|lua|pe(?:rl?)?|rub(?:y)?|tcl|mz(?:sc(?:heme)?)?)(?:do)?)(?:[\s!]|$)(?:[\s\S]*?\b(?:system|execute|popen)\s*\(\s*(['"])(?<code>.*?)\2)?/s,
  /\b(?:system|systemlist|jobstart|termopen)\s*\(\s*\[?\s*(['"])(?<code>.*?)\1/s,
  /(?:^|\|)[\s:]*exe(?:c(?:u(?:te?)?)?)?\s+(['"])\s*:?\s*(?:sil(?:ent)?!?\s*)?!(?<code>.*?)\1/s,
  /(?:^|\|)[\s:]*so(?:u(?:r(?:ce?)?)?)?!?\s+(?<file>\S+)\s*$/s,
];
/** Lua for `nvim -l SCRIPT`: read (and flagged like `lua -e`) when this line wrote it, unseen from a substitution not known. */
const LUA_FILE: readonly RegExp[] = [/^(?<inline>[\s\S]*\S[\s\S]*)$/];
/** vim's script files (`-S FILE`, a vimrc `-u FILE`, typed keys `-s FILE`): read, when this line wrote them, a line an Ex command. */
// in Ex mode (`vim -es`, `ex`) the lines of stdin are Ex commands; read so whenever stdin is static
const VIM: EmbeddedCodeSpec = {
  words: { '-c': EX_SHELL, '--cmd': EX_SHELL }, plus: EX_SHELL, stop: ['--'], files: { '-S': EX_SHELL, '-u': EX_SHELL, '-s': EX_SHELL }, stdin: EX_SHELL, vimOptions: true,
};
/** bash's start-up file for an interactive shell (`bash --rcfile FILE -i`), read when this line wrote it. */
const BASH_RC: EmbeddedCodeSpec = { files: { '--rcfile': true, '--init-file': true }, stop: ['-c', '--'] };

/** less's initial commands (`+CMD`): `!cmd` runs a shell command, `|Xcmd` pipes to one. */
const LESS_SHELL: readonly RegExp[] = [/!(?<code>.*)$/s, /\|.(?<code>.*)$/s];
/** A settings file the guard does not read: lesskey's #env (LESSOPEN), tmux's and kitty's configuration. */
const SETTINGS_FILE: readonly RegExp[] = [/^(?<setting>.*\S.*)$/s];
/** less: lesskey files and text (keys bound to `!CMD`, LESSOPEN in #env), whose syntax the guard does not read. */
const LESS: EmbeddedCodeSpec = {
  spec: LESS_OPTIONS, plus: LESS_SHELL, reads: 'lesskey',
  options: { k: SETTINGS_FILE, 'lesskey-file': SETTINGS_FILE, 'lesskey-src': SETTINGS_FILE, 'lesskey-content': SETTINGS_FILE },
};
/**
 * kitty: `-o shell=CMD` is the command its windows start (split like a command line; `.` is the login shell),
 * `startup_session`/`watcher` files of sessions and Python; `-c NONE` and `--session none` read no file.
 */
const KITTY: EmbeddedCodeSpec = {
  spec: WRAPPERS.kitty!,
  options: Object.fromEntries([
    ...['o', 'override'].map((o) => [o, [/^\s*shell\s*[=\s]\s*(?!\.\s*$)(?<code>.*\S.*)$/s, /^\s*(?:startup_session|watcher)\s*[=\s]\s*(?!none\s*$)(?<setting>.*\S.*)$/s]]),
    ...['c', 'config'].map((o) => [o, [/^(?!NONE$)(?<setting>.*\S.*)$/s]]),
    ['session', [/^(?!none$)(?<setting>.*\S.*)$/s]], ['watcher', SETTINGS_FILE],
  ]),
};

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
/**
 * gdb commands that run a shell (`shell cmd`, `!cmd`, `pipe … | cmd`, `| … | cmd`, and their prefixes `she`, `pip`;
 * `target remote | cmd`, which gdb starts with /bin/sh -c), Python or Guile (`python`, `py`, `pi`, `guile`, `gu`, `gr`),
 * or a command file (`source FILE`, `so FILE`).
 */
const GDB_SHELL: readonly RegExp[] = [
  /^\s*(?:she(?:ll?)?\s|!)(?<code>.*)$/s, /^\s*(?:pipe?\s|\|)[^|]*\|(?<code>.*)$/s,
  /^\s*tar(?:g(?:et?)?)?\s+\S+?\s*\|(?<code>.*)$/s,
  // `run ARGS` (`r`, `start`, `starti`, or `set args ARGS` before them): gdb starts `/bin/sh -c exec PROG ARGS`
  /^\s*(?:r|ru|run|start|starti|set\s+args?)(?![\w-])\s*(?<args>\S.*)$/s,
  /^\s*(?:python(?:-\w*)?|py|pi|guile(?:-repl)?|gu|gr)(?<inline>(?:\s.*)?)$/s,
  /^\s*so(?:u(?:r(?:ce?)?)?)?\s+(?:-[sv]\s+)*(?<file>\S.*)$/s,
  ...C_SHELL_CALLS,
];
/**
 * lldb commands that run a shell (`shell`, `platform shell`, whose options end at `--`), its Python (`script`, or a
 * prefix of it down to `sc`, which lldb resolves), or a command file (`command source [-e …] FILE`).
 */
const LLDB_SHELL: readonly RegExp[] = [
  /^\s*(?:platform\s+)?shell\s+(?:(?:-.*?\s)?--\s+)?(?<code>.*)$/s, /^\s*sc(?:r(?:i(?:pt?)?)?)?(?<inline>(?:\s.*)?)$/s,
  // `run ARGS` is `process launch -c /bin/sh -- ARGS`: the shell expands them
  /^\s*(?:r|run)(?![\w-])\s*(?<args>\S.*)$/s,
  /^\s*com\w*\s+so\w*\s+(?:-\w\s+\S+\s+)*(?<file>\S.*)$/s,
  ...C_SHELL_CALLS,
];
/** gdb reads a long option with one dash or two, and any unambiguous prefix of it (getopt_long_only): each spelling from `min` letters. */
const gdbSpellings = (name: string, min = name.length): string[] =>
  Array.from({ length: name.length - min + 1 }, (_, i) => name.slice(0, min + i)).flatMap((p) => [`-${p}`, `--${p}`]);
const GDB_WORDS = [
  ['ex'], ['iex'], ['eiex'], ['eval-command', 2], ['init-eval-command', 6], ['early-init-eval-command', 12],
].flatMap(([n, min]) => gdbSpellings(n as string, min as number | undefined));
/** gdb's command files: `-x`, `--command`, `-ix`, `--init-command`, `-eix`, `--early-init-command`. */
const GDB_FILES = [['x'], ['ix'], ['eix'], ['command', 3], ['init-command', 6], ['early-init-command', 12]].flatMap(([n, min]) => gdbSpellings(n as string, min as number | undefined));
const LLDB_WORDS = ['one-line', 'one-line-before-file', 'one-line-on-crash'].flatMap((n) => [`-${n}`, `--${n}`]).concat(['-o', '-O', '-k']);
const LLDB_FILES = ['source', 'source-before-file', 'source-on-crash'].flatMap((n) => [`-${n}`, `--${n}`]).concat(['-s', '-S', '-K']);
const GDB: EmbeddedCodeSpec = {
  words: Object.fromEntries(GDB_WORDS.map((w) => [w, GDB_SHELL])), files: Object.fromEntries(GDB_FILES.map((w) => [w, GDB_SHELL])),
  stop: GDB_ARGS, stdin: GDB_SHELL, program: gdbProgram,
};
const LLDB: EmbeddedCodeSpec = { words: Object.fromEntries(LLDB_WORDS.map((w) => [w, LLDB_SHELL])), files: Object.fromEntries(LLDB_FILES.map((w) => [w, LLDB_SHELL])), stop: ['--'], stdin: LLDB_SHELL };

/** bpftrace's and dtrace's `system("CMD")` (with --unsafe, dtrace -w) runs CMD with /bin/sh. */
const TRACER_SHELL: readonly RegExp[] = [/(?<inline>)\bsystem\s*\(\s*"(?<cstring>(?:[^"\\]|\\.)*)"/s, /\bsystem\s*\((?<inline>)/];

/** ssh options that run a local command (`-o ProxyCommand=…`). */
const SSH_COMMAND: readonly RegExp[] = [/^\s*(?:ProxyCommand|LocalCommand|KnownHostsCommand)\s*(?:=|\s)\s*(?<code>.*)$/is];

/** VTE-style terminals: `-e STRING` / `--command=STRING` is a command line. */
const TERMINAL: EmbeddedCodeSpec = { words: { '-e': true, '--command': true }, stop: ['--', '-x', '--execute'] };

/** A git `ext::` URL: git runs the command it names, without a shell (see extCommand). */
export const GIT_EXT_URL: readonly RegExp[] = [/^\s*ext::(?<ext>.*)$/s];

/**
 * git sub-commands that reach another repository: options naming the command git runs for the other end (a shell runs
 * it, here for a local repository) and every word, for `ext::` URLs. Value options are listed so their values stay values.
 */
const gitRemote = (short: string, long: readonly string[], code: readonly string[]): EmbeddedCodeSpec => ({
  spec: { short, long }, options: Object.fromEntries(code.map((c) => [c, true])), anyWord: GIT_EXT_URL,
});
const GIT_FETCH_LONG = ['upload-pack', 'depth', 'deepen', 'shallow-since', 'shallow-exclude', 'refmap', 'jobs', 'server-option', 'filter', 'negotiation-tip', 'recurse-submodules-default', 'submodule-prefix', 'strategy', 'strategy-option', 'gpg-sign', 'cleanup'];
const GIT_REMOTES: Readonly<Record<string, EmbeddedCodeSpec>> = {
  'git clone': gitRemote('uobcj', ['upload-pack', 'origin', 'branch', 'config', 'depth', 'reference', 'reference-if-able', 'separate-git-dir', 'template', 'jobs', 'filter', 'server-option', 'shallow-since', 'shallow-exclude', 'bundle-uri', 'ref-format'], ['u', 'upload-pack']),
  'git fetch': gitRemote('jo', GIT_FETCH_LONG, ['upload-pack']),
  'git pull': gitRemote('jsXo', GIT_FETCH_LONG, ['upload-pack']),
  'git ls-remote': gitRemote('', ['upload-pack', 'exec', 'sort', 'server-option'], ['upload-pack', 'exec']),
  'git fetch-pack': gitRemote('', ['upload-pack', 'exec', 'depth', 'shallow-since', 'shallow-exclude'], ['upload-pack', 'exec']),
  'git push': gitRemote('o', ['receive-pack', 'exec', 'repo', 'push-option'], ['receive-pack', 'exec']),
  'git send-pack': gitRemote('', ['receive-pack', 'exec', 'remote', 'push-option'], ['receive-pack', 'exec']),
  'git archive': gitRemote('o', ['exec', 'remote', 'format', 'prefix', 'output', 'add-file', 'add-virtual-file', 'worktree-attributes'], ['exec']),
  'git remote': { anyWord: GIT_EXT_URL }, 'git submodule': { anyWord: GIT_EXT_URL, restAfter: ['foreach'] },
};

const GIT_FILTERS = ['setup', 'env-filter', 'tree-filter', 'index-filter', 'parent-filter', 'msg-filter', 'commit-filter', 'tag-name-filter'];
const GIT_MAIL_COMMANDS = ['sendmail-cmd', 'to-cmd', 'cc-cmd', 'header-cmd'];
/** git sub-commands that run shell code from their arguments (each through a shell). */
const GIT_COMMANDS: Readonly<Record<string, EmbeddedCodeSpec>> = {
  'git rebase': { spec: { short: 'xsXC', long: ['exec', 'strategy', 'strategy-option', 'onto', 'whitespace', 'empty'] }, options: { x: true, exec: true } },
  'git difftool': { spec: { short: 'xt', long: ['extcmd', 'tool'] }, options: { x: true, extcmd: true } },
  'git filter-branch': { spec: { short: 'd', long: [...GIT_FILTERS, 'subdirectory-filter', 'original', 'state-branch'] }, options: Object.fromEntries(GIT_FILTERS.map((f) => [f, true])) },
  'git send-email': { spec: { long: GIT_MAIL_COMMANDS }, options: Object.fromEntries(GIT_MAIL_COMMANDS.map((f) => [f, true])) },
  'git bisect': { restAfter: ['run'] },
};

const TAR: EmbeddedCodeSpec = {
  spec: TAR_OPTIONS,
  options: {
    'to-command': true, 'checkpoint-action': [/^exec=(?<code>.*)$/s], 'use-compress-program': true, I: true, 'rsh-command': true,
    'info-script': true, 'new-volume-script': true, F: true,
  },
};

const UGREP_PAGER: EmbeddedCodeSpec = { spec: TREE_COPIES.ugrep!.spec, options: { pager: true } };

/** bat's pager command (split into words and started when it pages); its value options listed so their values stay values. */
const BAT: EmbeddedCodeSpec = {
  spec: {
    short: 'lHmr',
    long: [
      'language', 'highlight-line', 'file-name', 'diff-context', 'tabs', 'wrap', 'terminal-width', 'color', 'italic-text', 'decorations', 'paging', 'pager',
      'map-syntax', 'ignored-suffix', 'theme', 'theme-light', 'theme-dark', 'style', 'line-range', 'binary', 'nonprintable-notation', 'strip-ansi', 'squeeze-limit',
    ],
  },
  options: { pager: true },
};

/** Emacs Lisp evaluated from the command line (`emacs --batch --eval EXPR`, `-eval`, emacsclient's running server): flagged like `python -c`. */
const ELISP: readonly RegExp[] = [/^(?<inline>[\s\S]*\S[\s\S]*)$/];
const EMACS: EmbeddedCodeSpec = { words: Object.fromEntries(['-eval', '--eval', '-execute', '--execute'].map((w) => [w, ELISP])), stop: ['--'] };

export const EMBEDDED_CODE: Readonly<Record<string, EmbeddedCodeSpec>> = {
  ...FILTER_CODE,
  emacs: EMACS, emacsclient: { words: { '-e': ELISP, '--eval': ELISP } },
  tar: TAR, gtar: TAR, bsdtar: TAR,
  zip: { words: { '-TT': true, '--unzip-command': true } },
  bash: BASH_RC, rbash: BASH_RC,
  vi: VIM, vim: VIM, nvim: { ...VIM, files: { ...VIM.files, '-l': LUA_FILE } }, view: VIM, vimdiff: VIM, gvim: VIM, ex: VIM, evim: VIM,
  less: LESS, zless: LESS, kitty: KITTY,
  // tmux -f: a configuration file (commands, hooks, run-shell) read when the server starts
  tmux: { spec: WRAPPERS.tmux!, options: { f: SETTINGS_FILE }, reads: 'tmux' },
  bat: BAT, batcat: BAT,
  // ugrep's pager runs through the shell (its --filter commands run on each file, see ugrep.ts)
  ugrep: UGREP_PAGER, ug: UGREP_PAGER, 'ugrep+': UGREP_PAGER, 'ug+': UGREP_PAGER,
  man: { spec: { short: 'CMLmSsepRrEP', attached: 'HX', long: ['pager', 'config-file', 'manpath', 'locale', 'systems', 'sections', 'extension', 'preprocessor', 'recode', 'encoding', 'prompt'] }, options: { P: true, pager: true, H: true } },
  gdb: GDB, 'gdb-multiarch': GDB, 'rust-gdb': GDB,
  lldb: LLDB, 'rust-lldb': LLDB,
  bpftrace: { spec: BPFTRACE, options: { e: TRACER_SHELL } }, dtrace: { spec: DTRACE, options: { n: TRACER_SHELL } },
  ssh: { spec: WRAPPERS.ssh!, options: { o: SSH_COMMAND } },
  scp: { spec: TRANSFER_OPTIONS.scp, options: { o: SSH_COMMAND } },
  'gnome-terminal': TERMINAL, 'mate-terminal': TERMINAL, 'xfce4-terminal': TERMINAL, terminator: TERMINAL, tilix: TERMINAL,
  // `git SUB …` as this program (see embeddedCode)
  ...GIT_REMOTES, ...GIT_COMMANDS,
};

const PROMPT: readonly RegExp[] = [/^(?<prompt>.*)$/s];

/** $LESS is options: a `+CMD` there (to a `$`, which ends an option string) is an initial command, as in `less +CMD`. */
const LESS_VARIABLE: readonly RegExp[] = LESS_SHELL.map((re) => new RegExp(`(?:^|[\\s$])(?:-[^\\s$]*)?\\+[^$]*?${re.source.replace('.*)$', '[^$]*)')}`, 's'));

/**
 * Variables whose value a program runs as shell code: bash before each prompt, and the substitutions in its prompts
 * (PS0-PS2; PS4 before each command under `set -x`); less for each file it opens
 * (LESSOPEN after its `|`, `||` and `-` markers, with or without them) and closes; git, man and others run
 * pagers, editors, git's ssh and external diff with `sh -c`. GIT_SSH and GIT_PROXY_COMMAND are left out:
 * git runs them as one program, not a command line.
 */
export const CODE_VARIABLES: Readonly<Record<string, CodeIn>> = {
  PROMPT_COMMAND: true, PS0: PROMPT, PS1: PROMPT, PS2: PROMPT, PS4: PROMPT,
  LESSOPEN: [/^\s*\|{0,2}-?(?<code>.*)$/s],
  LESSCLOSE: true,
  LESS: LESS_VARIABLE,
  GIT_SSH_COMMAND: true, GIT_PAGER: true, PAGER: true, MANPAGER: true, GIT_EDITOR: true, GIT_SEQUENCE_EDITOR: true, EDITOR: true, VISUAL: true,
  GIT_EXTERNAL_DIFF: true, PSQL_PAGER: true, PSQL_EDITOR: true,
  // more pagers and editors run with a shell (or split into a command line): systemd's, bat's, gh's, aws's, bash's fc, sudoedit
  SYSTEMD_PAGER: true, BAT_PAGER: true, GH_PAGER: true, AWS_PAGER: true, DELTA_PAGER: true, FCEDIT: true, SUDO_EDITOR: true,
  // programs run to ask for a password, and rsync's remote shell (as `rsync -e`) and daemon connection command
  GIT_ASKPASS: true, SSH_ASKPASS: true, SUDO_ASKPASS: true, RSYNC_RSH: true, RSYNC_CONNECT_PROG: true,
  // Ex commands vim (or vi) runs first, in place of a vimrc
  VIMINIT: EX_SHELL, EXINIT: EX_SHELL,
  // more of tar's own options (see VARIABLE_PROGRAMS): `--to-command=CMD` there runs CMD
  TAR_OPTIONS: [/^(?<args>.*\S.*)$/s],
  // fzf lists what this command prints (run with $SHELL), and reads more options (--bind 'start:execute(CMD)') from here
  FZF_DEFAULT_COMMAND: true, FZF_DEFAULT_OPTS: [/^(?<args>.*\S.*)$/s],
};

/** Variables a program reads as more of its options: their `args` are judged as that program's (`exec tar VALUE`). */
export const VARIABLE_PROGRAMS: Readonly<Record<string, string>> = { TAR_OPTIONS: 'tar', FZF_DEFAULT_OPTS: 'fzf' };

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
  'remote.*.url': GIT_EXT_URL, 'remote.*.pushurl': GIT_EXT_URL, 'submodule.*.url': GIT_EXT_URL,
  // git help's man viewer, imap-send's tunnel, a trailer's command, git gui's tools, the ssh signing key command (split
  // into words, not a shell: walked alike), and send-email's sendmail and address commands (an identity's too)
  'man.*.cmd': true, 'imap.tunnel': true, 'trailer.*.command': true, 'trailer.*.cmd': true, 'guitool.*.cmd': true, 'gpg.ssh.defaultkeycommand': true,
  'sendemail.sendmailcmd': true, 'sendemail.tocmd': true, 'sendemail.cccmd': true, 'sendemail.headercmd': true,
  'sendemail.*.sendmailcmd': true, 'sendemail.*.tocmd': true, 'sendemail.*.cccmd': true, 'sendemail.*.headercmd': true,
};

/** A path that points at nothing: `core.hooksPath=/dev/null` turns hooks off, `gdb -x /dev/null` reads no commands. */
export const NOWHERE: readonly string[] = ['/dev/null'];

/**
 * git keys (lower-case; a full key before its `*` forms) naming code the guard cannot read — a hooks directory, a
 * config file to include, a template directory (its hooks are copied) — or letting `ext::` URLs from such config run
 * their command; with the values that do neither.
 */
export const GIT_CONFIG_UNSEEN: Readonly<Record<string, readonly string[]>> = {
  'core.hookspath': NOWHERE, 'include.path': NOWHERE, 'includeif.*.path': NOWHERE, 'init.templatedir': NOWHERE,
  'protocol.ext.allow': ['never'], 'protocol.allow': ['never'],
};

/**
 * Environment variables that point a program at files of code the guard has not seen, with the canonical paths that
 * are fine: the script bash sources before every script and `bash -c`; git's other config file (which can set a pager,
 * aliases, hooks), the directory of its helper programs, a hooks template.
 */
export const ENV_UNSEEN: Readonly<Record<string, readonly string[]>> = {
  // less's lesskey file (#env can set LESSOPEN), its source and text
  LESSKEY: NOWHERE, LESSKEYIN: NOWHERE, LESSKEY_SRC: NOWHERE, LESSKEY_CONTENT: [],
  // kitty's configuration directory, zsh's start-up files (.zshenv runs for `zsh -c` too), screen's, python's interactive start-up
  KITTY_CONFIG_DIRECTORY: ['~/.config/kitty', '/dev/null'], ZDOTDIR: ['~/', '/dev/null'], SCREENRC: NOWHERE, SYSSCREENRC: NOWHERE, PYTHONSTARTUP: NOWHERE,
  BASH_ENV: NOWHERE, GIT_CONFIG_GLOBAL: NOWHERE, GIT_CONFIG_SYSTEM: NOWHERE, GIT_CONFIG: NOWHERE, GIT_EXEC_PATH: NOWHERE, GIT_TEMPLATE_DIR: NOWHERE,
};
/**
 * Variables that move where git finds the user's configuration (`$HOME/.gitconfig`, `$XDG_CONFIG_HOME/git/config`),
 * with the values that leave it where it is: judged for git and CONFIG_HOME_READERS only, as every program reads them.
 */
export const GIT_HOME_UNSEEN: Readonly<Record<string, readonly string[]>> = { HOME: ['~/', '/dev/null'], XDG_CONFIG_HOME: ['~/.config', '/dev/null'] };
/**
 * Programs besides git that read start-up files able to run commands from the home directory or $XDG_CONFIG_HOME each
 * time they start (kitty.conf, tmux.conf, a vimrc, .zshenv even for `zsh -c`, .screenrc, .gdbinit, .psqlrc, …): judged
 * like git when those move (GIT_HOME_UNSEEN).
 */
export const CONFIG_HOME_READERS: ReadonlySet<string> = new Set([
  'kitty', 'tmux', 'vim', 'nvim', 'view', 'vimdiff', 'gvim', 'zsh', 'screen', 'gdb', 'lldb', 'psql', 'sqlite3', 'mysql', 'less', 'irb', 'ipython', 'r', 'rscript',
]);
/**
 * Libraries loaded into every program started, whose constructors run first: one outside the system's library directories
 * (`LD_PRELOAD=/tmp/x.so`) is code the guard has not seen; `/usr/lib/…/libjemalloc.so` is not, nor an empty value.
 */
export const PRELOAD_VARIABLES: ReadonlySet<string> = new Set(['LD_PRELOAD', 'LD_AUDIT']);
export const SYSTEM_LIBRARY = /^\/(?:usr\/)?lib(?:32|64|x32)?\//;

/**
 * Variables an interpreter reads as more of its options, and the options there that load code: a module or file to load
 * first (node's --require, --import, --loader; ruby's -r; a Java agent, or the JVM's OnError/OnOutOfMemoryError commands)
 * is unseen; perl's -M/-m (`-Mstrict;system …` is code) and -d with PERL5DB (perl code itself) are inline code.
 */
export const ENV_CODE_OPTIONS: Readonly<Record<string, { readonly re: RegExp; readonly inline: boolean }>> = {
  // a path or URL, not a package name (`--require ts-node/register`, `-rbundler/setup`), which resolves where installs go
  NODE_OPTIONS: { re: /(?:^|\s)(?:-r|--require|--import|--loader|--experimental-loader)(?:=|\s+)['"]?(?:[./~]|file:|data:|https?:)/, inline: false },
  RUBYOPT: { re: /(?:^|\s)-[a-qs-zA-Z]*r\s*['"]?[./~]/, inline: false },
  PERL5OPT: { re: /(?:^|\s)-[A-Za-z]*[Mmd]/, inline: true },
  PERL5DB: { re: /\S/, inline: true },
  ...Object.fromEntries(['JAVA_TOOL_OPTIONS', '_JAVA_OPTIONS', 'JDK_JAVA_OPTIONS'].map((n) => [n, { re: /-(?:javaagent|agentpath|agentlib)[:=]|-XX:On(?:OutOfMemory)?Error/, inline: false }])),
};

/** git's list of allowed protocols (`a:b`): with `ext` in it, `ext::` URLs from config the guard has not seen run their command. */
export const GIT_PROTOCOL_LIST = 'GIT_ALLOW_PROTOCOL';

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
