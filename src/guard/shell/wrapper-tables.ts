import type { OptionSpec } from './flags.ts';
import type { BufferUse } from './tmux-buffers.ts';

/** Wrapper tables of the shell guard: programs that run another command, and programs that detach it. */

/** A program that runs another command given in its arguments. */
export interface WrapperSpec extends OptionSpec {
  /** Operands before the wrapped command (`timeout DURATION`, `chroot DIR`). */
  readonly positional?: number;
  /** Options after which nothing is run (`command -v`, `taskset -p`). */
  readonly noCommand?: readonly string[];
  /** The same, only when given no value (`sudo -h` is help, `sudo -h HOST` names a host). */
  readonly noCommandBare?: readonly string[];
  /** Options whose value is shell code (`su -c`, `flock -c`). */
  readonly code?: readonly string[];
  /** Everything after the options is shell code joined by spaces (`watch`, `ssh host …`). */
  readonly restIsCode?: boolean;
  /** Options whose value is the working directory of the command. */
  readonly chdir?: readonly string[];
  /** `env -S STRING`: the string is split into a command line. */
  readonly split?: readonly string[];
  /** `NAME=VALUE` operands before the command (env, sudo). */
  readonly assignments?: boolean;
  /** The code runs on another machine, in its home directory (ssh). */
  readonly remote?: boolean;
  /** The command gets operands the guard cannot see (xargs). */
  readonly appendsArgs?: boolean;
  /** Runs only code from its options, never its operands (su: operands name the user). */
  readonly codeOnly?: boolean;
  /**
   * Option words after which the rest of the line is the command (`xterm -e CMD…`, `gdb --args CMD…`,
   * `capsh -- ARGS`); the options before are not parsed. A lone word with blanks there is shell code.
   */
  readonly commandAfter?: readonly string[];
  /** The words after `commandAfter` are arguments of this shell (`capsh -- -c CODE` runs `bash -c CODE`). */
  readonly shellOf?: string;
  /** GNU parallel: inputs after `:::` fill `{}` (or are appended); without a command each input is a command. */
  readonly inputs?: boolean;
  /** Sub-commands that run shell code, separated by `;` words (tmux `new -d CODE`, `run-shell CODE`). */
  readonly subcommands?: Readonly<Record<string, SubcommandSpec>>;
  /** Only with this option, and then the operands are one sub-command (`screen -X stuff TEXT`). */
  readonly subcommandsWith?: string;
  /** Every sub-command name, when the program takes a unique prefix of one for it (`tmux split`, `run-s`). */
  readonly subcommandNames?: readonly string[];
}

/** A sub-command of a wrapper (tmux, screen) whose operands are shell code. */
export interface SubcommandSpec extends OptionSpec {
  /** Operands are text typed into a pane: tmux key names (`send-keys 'rm -rf /' Enter`) or screen's escapes (`stuff 'CMD\n'`). */
  readonly keys?: 'tmux' | 'screen';
  /** Only the first operand is code (`if-shell CODE tmux-command…`). */
  readonly first?: boolean;
  /** Operands are a command and its arguments (`screen -X screen CMD…`), after a first one matching `skip` (a window number). */
  readonly argv?: boolean;
  readonly skip?: RegExp;
  /** Operands (by index) that are tmux command strings (`if-shell COND CMD [ELSE]`, `confirm-before CMD`). */
  readonly commands?: readonly number[];
  /** Operands from this index on are one tmux command: a string, or its words (`bind-key KEY CMD [ARGS…]`). */
  readonly commandFrom?: number;
  /** With this option the operands are tmux commands, not shell code (`run-shell -C`). */
  readonly commandsWith?: string;
  /** The command strings are templates: `%%`, `%1` stand for what is typed at a prompt (`command-prompt`). */
  readonly template?: boolean;
  /** Operands are files of tmux commands the guard cannot see (`source-file`). */
  readonly files?: boolean;
  /** With this option the first operand is a format, not shell code (`if-shell -F`). */
  readonly formatWith?: string;
  /** Every operand is a screen command line of its own (`screen -X eval CMD…`). */
  readonly eachCommand?: boolean;
  /** Operands are menu items whose third words are tmux commands (`display-menu NAME KEY CMD …`). */
  readonly menu?: boolean;
  /** Operands are an option and its value, which tmux may run (`set-option -g default-command CMD`, a hook). */
  readonly option?: boolean;
  /** Operands are a variable and its value, which programs started later see (`set-environment LESSOPEN …`). */
  readonly environment?: boolean;
  /** This option's values are `NAME=VALUE` variables the code runs with (`new-window -e X=1 CMD`). */
  readonly envWith?: string;
  /** A paste-buffer command: what it reads, writes, holds or types (see tmux-buffers.ts). */
  readonly buffer?: BufferUse;
}

const P = { posix: true } as const;

/** docker's, podman's and nerdctl's global options, which end at the verb (cobra). */
export const CONTAINER_GLOBALS: OptionSpec = {
  posix: true, short: 'cHl',
  long: [
    'config', 'context', 'host', 'log-level', 'tlscacert', 'tlscert', 'tlskey', 'namespace', 'address', 'snapshotter', 'cgroup-manager', 'connection', 'url',
    'identity', 'root', 'runroot', 'runtime', 'storage-driver', 'storage-opt', 'tmpdir', 'events-backend', 'hooks-dir', 'module', 'network-cmd-path',
    'volumepath', 'imagestore', 'conmon', 'runtime-flag', 'ssh',
  ],
};
/**
 * `docker exec` and `podman exec` options taking a value; podman's `-l`/`--latest` names no container, so the command
 * starts at the first operand (podman-exec(1)).
 */
export const CONTAINER_EXEC: OptionSpec = { posix: true, short: 'euw', long: ['env', 'env-file', 'user', 'workdir', 'detach-keys', 'preserve-fds', 'preserve-fd', 'cidfile'] };

/** bwrap options taking one value, and those taking several (`--bind SRC DEST`). */
const BWRAP_ONE = [
  'args', 'argv0', 'uid', 'gid', 'hostname', 'chdir', 'unsetenv', 'lock-file', 'sync-fd', 'info-fd', 'json-status-fd', 'block-fd', 'userns-block-fd',
  'seccomp', 'add-seccomp-fd', 'exec-label', 'file-label', 'userns', 'userns2', 'pidns', 'remount-ro', 'dir', 'tmpfs', 'proc', 'dev', 'mqueue',
  'cap-add', 'cap-drop', 'perms', 'size', 'overlay-src', 'tmp-overlay', 'ro-overlay',
];
const BWRAP_MANY: Readonly<Record<string, number>> = {
  bind: 2, 'bind-try': 2, 'dev-bind': 2, 'dev-bind-try': 2, 'ro-bind': 2, 'ro-bind-try': 2, 'bind-fd': 2, 'ro-bind-fd': 2, symlink: 2, setenv: 2,
  chmod: 2, file: 2, 'bind-data': 2, 'ro-bind-data': 2, overlay: 3,
};
const PARALLEL = {
  short: 'aCdEIjLlnNsS',
  long: [
    'jobs', 'sshlogin', 'sshloginfile', 'slf', 'arg-file', 'colsep', 'delimiter', 'eof', 'max-lines', 'max-args', 'max-replace-args', 'max-chars', 'timeout', 'delay',
    'retries', 'joblog', 'results', 'res', 'tmpdir', 'tagstring', 'workdir', 'wd', 'basefile', 'bf', 'return', 'transferfile', 'tf', 'env', 'halt', 'memfree',
    'load', 'nice', 'block', 'block-size', 'recstart', 'recend', 'termseq', 'limit', 'ssh', 'sqlmaster', 'sqlworker', 'rpl', 'profile',
  ],
  // flags whose names begin value options' (`--tag` is not `--tagstring`): without them the command became a value;
  // `--shebang-wrap` takes none either (the script path after it is the command)
  flags: ['tag', 'transfer', 'shebang', 'shebang-wrap', 'plus', 'pipe', 'pipepart'],
} as const;
/** strace's options (strace.c): those taking a value, and the long ones taking none or only after `=`. */
const STRACE: WrapperSpec = {
  ...P, short: 'abeEIoOpPsSuUX', shortFlags: 'AcCdDfFhiknqrtTvVwxyYzZ',
  long: [
    'columns', 'detach-on', 'env', 'interruptible', 'stack-trace-frame-limit', 'syscall-limit', 'output', 'summary-syscall-overhead', 'attach',
    'trace-path', 'string-limit', 'summary-sort-by', 'user', 'summary-columns', 'const-print-style', 'argv0', 'trace', 'trace-fds', 'abbrev',
    'verbose', 'raw', 'signals', 'status', 'read', 'write', 'fault', 'inject', 'kvm', 'decode-pids',
  ],
  flags: [
    'output-append-mode', 'summary-only', 'summary', 'debug', 'daemonize', 'daemonised', 'daemonized', 'follow-forks', 'output-separately', 'help',
    'instruction-pointer', 'kill-on-exit', 'stack-trace', 'stack-traces', 'syscall-number', 'relative-timestamps', 'absolute-timestamps', 'timestamps',
    'syscall-times', 'no-abbrev', 'version', 'summary-wall-clock', 'strings-in-hex', 'pidns-translation', 'successful-only', 'failed-only',
    'failing-only', 'seccomp-bpf', 'tips', 'quiet', 'silent', 'silence', 'decode-fds', 'secontext',
  ],
};
/** gdb's `--args` as getopt_long_only reads it: one dash or two, and down to `ar` (`-a` is ambiguous with `-annotate`). */
export const GDB_ARGS: readonly string[] = ['args', 'arg', 'ar'].flatMap((n) => [`--${n}`, `-${n}`]);
/** Terminal emulators: `-e` and the rest of the line is the command. */
const TERM_E: WrapperSpec = { commandAfter: ['-e'] };
/** VTE terminals: `--` or `-x` and the rest is the command; `-e STRING` is shell code (see EMBEDDED_CODE). */
const TERM_X: WrapperSpec = { commandAfter: ['--', '-x', '--execute'] };

/** tmux sub-commands that run shell code in the tmux server, with the options that take a value. */
const TMUX: Readonly<Record<string, SubcommandSpec>> = (() => {
  const out: Record<string, SubcommandSpec> = {};
  const add = (names: readonly string[], spec: SubcommandSpec): void => { for (const n of names) out[n] = { posix: true, ...spec }; };
  add(['new-session', 'new'], { short: 'cefFnstxy', envWith: 'e' });
  add(['new-window', 'neww'], { short: 'ceFnt', envWith: 'e' });
  add(['split-window', 'splitw'], { short: 'celtFp', envWith: 'e' });
  add(['respawn-pane', 'respawnp', 'respawn-window', 'respawnw'], { short: 'cet', envWith: 'e' });
  add(['run-shell', 'run'], { short: 'cdt', commandsWith: 'C' });
  add(['display-popup', 'popup'], { short: 'bcdehsStTwxy', envWith: 'e' });
  add(['pipe-pane', 'pipep'], { short: 't' });
  add(['if-shell', 'if'], { short: 't', first: true, commands: [1, 2], formatWith: 'F' });
  add(['send-keys', 'send'], { short: 'cNt', keys: 'tmux' });
  // tmux commands run later (a key, a hook, a confirmation, a prompt's template) and files of them
  add(['bind-key', 'bind'], { short: 'NT', commandFrom: 1 });
  add(['set-hook'], { short: 't', commandFrom: 1 });
  add(['confirm-before', 'confirm'], { short: 'cpt', commands: [0] });
  add(['command-prompt'], { short: 'IptT', commands: [0], template: true });
  add(['source-file', 'source'], { short: 't', files: true });
  // menu items, and the template a chooser runs on what is picked (`%%` the pick)
  add(['display-menu', 'menu'], { short: 'bcCHsStTxy', menu: true });
  add(['choose-tree', 'choose-client', 'choose-buffer'], { short: 'FfKOt', commands: [0], template: true });
  add(['display-panes', 'displayp'], { short: 'dt', commands: [0], template: true });
  add(['set-option', 'set', 'set-window-option', 'setw'], { short: 't', option: true });
  add(['set-environment', 'setenv'], { short: 't', environment: true });
  add(['load-buffer', 'loadb'], { short: 'bt', buffer: 'load' });
  add(['save-buffer', 'saveb'], { short: 'b', buffer: 'save' });
  add(['set-buffer', 'setb'], { short: 'btn', buffer: 'set' });
  add(['paste-buffer', 'pasteb'], { short: 'bst', buffer: 'paste' });
  return out;
})();

/** tmux's command names (cmd.c's table, 3.5): a unique prefix of one names it (cmd_find); aliases count only whole. */
const TMUX_COMMANDS: readonly string[] = [
  'attach-session', 'bind-key', 'break-pane', 'capture-pane', 'choose-buffer', 'choose-client', 'choose-tree', 'clear-history', 'clear-prompt-history',
  'clock-mode', 'command-prompt', 'confirm-before', 'copy-mode', 'customize-mode', 'delete-buffer', 'detach-client', 'display-menu', 'display-message',
  'display-panes', 'display-popup', 'find-window', 'has-session', 'if-shell', 'join-pane', 'kill-pane', 'kill-server', 'kill-session', 'kill-window',
  'last-pane', 'last-window', 'link-window', 'list-buffers', 'list-clients', 'list-commands', 'list-keys', 'list-panes', 'list-sessions', 'list-windows',
  'load-buffer', 'lock-client', 'lock-server', 'lock-session', 'move-pane', 'move-window', 'new-session', 'new-window', 'next-layout', 'next-window',
  'paste-buffer', 'pipe-pane', 'previous-layout', 'previous-window', 'refresh-client', 'rename-session', 'rename-window', 'resize-pane', 'resize-window',
  'respawn-pane', 'respawn-window', 'rotate-window', 'run-shell', 'save-buffer', 'select-layout', 'select-pane', 'select-window', 'send-keys', 'send-prefix',
  'server-access', 'set-buffer', 'set-environment', 'set-hook', 'set-option', 'set-window-option', 'show-buffer', 'show-environment', 'show-hooks',
  'show-messages', 'show-options', 'show-prompt-history', 'show-window-options', 'source-file', 'split-window', 'start-server', 'suspend-client', 'swap-pane',
  'swap-window', 'switch-client', 'unbind-key', 'unlink-window', 'wait-for',
];

/** screen commands sent to a running session with -X that type or start a command in one of its windows. */
const SCREEN: Readonly<Record<string, SubcommandSpec>> = {
  stuff: { keys: 'screen' },
  screen: { posix: true, short: 'thT', argv: true, skip: /^\d+$/ },
  // exec's optional first word redirects the window's file descriptors (`.!.`, `!..|`)
  exec: { posix: true, argv: true, skip: /^[.!:|]+$/ },
  // screen commands held: each `eval` operand, `at WINDOW CMD…`, a key's binding; `source FILE` reads a file of them;
  // `shell PROGRAM` is what new windows start
  eval: { eachCommand: true }, at: { posix: true, commandFrom: 1 }, bind: { posix: true, commandFrom: 1 }, source: { files: true },
  shell: { argv: true }, defshell: { argv: true },
};

/**
 * Wrappers that start an interactive shell when they are given no command, which then reads its
 * script from stdin (`curl … | sudo -s`): always, or only with one of the listed options.
 */
export const SHELL_WHEN_NO_COMMAND: Readonly<Record<string, readonly string[] | 'always'>> = {
  su: 'always', runuser: 'always', run0: 'always', machinectl: 'always', chroot: 'always', nsenter: 'always', unshare: 'always',
  sudo: ['s', 'shell', 'i', 'login'], doas: ['s'],
  // parallel with neither a command nor `:::` reads its command lines from stdin
  parallel: 'always',
  // nix-shell without --run/--command, `nix develop` and `nix shell` without -c start an interactive bash (or $SHELL)
  'nix-shell': 'always', nix: 'always',
};

export const WRAPPERS: Readonly<Record<string, WrapperSpec>> = {
  // sudo's parse_args.c: `--auth-type` is -a (BSD auth); `--apparmor-profile` in newer releases
  // its flags listed too: `--login` is a flag, not an abbreviation of `--login-class` (getopt_long takes an exact name first)
  // -h: a host attached, or the next word when `-h` stands alone and that word is no option nor NAME=VALUE (parse_args.c's
  // is_envar: not starting with `/` or `=`); else help
  sudo: { ...P, assignments: true, short: 'aCcDgpRrTtUu', attached: 'h', optionalWord: 'h', notOptionalWord: /^[^/=][^]*=/, shortFlags: 'ABbEeHiKklNnPSsVv', long: ['user', 'group', 'chdir', 'close-from', 'host', 'prompt', 'role', 'type', 'other-user', 'command-timeout', 'chroot', 'login-class', 'auth-type', 'apparmor-profile'],
    flags: ['askpass', 'background', 'bell', 'edit', 'help', 'list', 'login', 'no-update', 'non-interactive', 'preserve-env', 'preserve-groups', 'remove-timestamp', 'reset-timestamp', 'set-home', 'shell', 'stdin', 'validate', 'version'], noCommand: ['l', 'list', 'v', 'validate', 'k', 'K', 'reset-timestamp', 'remove-timestamp', 'e', 'edit', 'V', 'version', 'help'], noCommandBare: ['h'], chdir: ['D', 'chdir'] },
  // OpenBSD doas.c getopt "a:C:Lnsu:" (-a login style)
  doas: { ...P, short: 'auC', shortFlags: 'Lns', noCommand: ['L'] },
  run0: {
    ...P, short: 'ugDE', long: ['user', 'group', 'chdir', 'unit', 'property', 'description', 'slice', 'nice', 'setenv', 'background', 'machine', 'shell-prompt-prefix', 'lightweight', 'area'],
    flags: ['slice-inherit', 'no-ask-password', 'pty', 'pipe', 'help', 'version'], chdir: ['D', 'chdir'],
  },
  pkexec: { ...P, long: ['user'] },
  su: { short: 'cgGsw', long: ['command', 'group', 'supp-group', 'shell', 'whitelist-environment', 'session-command'], code: ['c', 'command', 'session-command'], codeOnly: true },
  runuser: { ...P, short: 'cgGsuw', long: ['command', 'group', 'supp-group', 'shell', 'user', 'whitelist-environment', 'session-command'], code: ['c', 'command', 'session-command'] },
  // sg GROUP [-c] CMD: CMD is /bin/sh code with or without -c
  sg: { ...P, short: 'c', code: ['c'], positional: 1, restIsCode: true },
  // GNU env's signal options take a value only after `=` (`--default-signal[=SIG]`); BSD env has -L and -P, uutils -f and -a
  env: {
    ...P, short: 'uCSPLfa', shortFlags: 'iv0', long: ['unset', 'chdir', 'split-string', 'file', 'argv0'], flags: ['block-signal', 'default-signal', 'ignore-signal', 'list-signal-handling', 'ignore-environment', 'null', 'debug'],
    chdir: ['C', 'chdir'], split: ['S', 'split-string'], assignments: true,
  },
  nice: { ...P, short: 'n', long: ['adjustment'], digits: true },
  nohup: P,
  timeout: { ...P, short: 'sk', shortFlags: 'vfp', long: ['signal', 'kill-after'], positional: 1 },
  command: { ...P, shortFlags: 'p', noCommand: ['v', 'V'] },
  builtin: P,
  exec: { ...P, short: 'a', shortFlags: 'cl' },
  // BSD xargs: -J REPLSTR (the word replaced by all names), -R and -S counts
  // GNU xargs "+0a:E:e::i::I:l::L:n:prs:txP:d:": --eof, --replace and --max-lines take a value only after `=`
  xargs: { ...P, short: 'adEILnPsJRS', attached: 'eil', shortFlags: '0prtxo', long: ['arg-file', 'delimiter', 'max-args', 'max-procs', 'max-chars', 'process-slot-var'], flags: ['max-lines', 'eof', 'replace'], alias: { 'max-lines': 'l', replace: 'i', eof: 'e' }, appendsArgs: true },
  busybox: P,
  toybox: P,
  time: { ...P, short: 'fo', shortFlags: 'apqvV', long: ['format', 'output'] },
  stdbuf: { ...P, short: 'ioe', long: ['input', 'output', 'error'] },
  ionice: { ...P, short: 'cnpPu', shortFlags: 'thV', long: ['class', 'classdata', 'pid', 'pgid', 'uid'], noCommand: ['p', 'pid', 'P', 'pgid', 'u', 'uid'] },
  setsid: { ...P, shortFlags: 'cfwhV' },
  chrt: { ...P, short: 'TPD', shortFlags: 'abdefiphmorRvV', long: ['sched-runtime', 'sched-period', 'sched-deadline'], positional: 1, noCommand: ['p', 'pid', 'm', 'max'] },
  taskset: { ...P, shortFlags: 'acphV', positional: 1, noCommand: ['p', 'pid'] },
  unbuffer: P,
  caffeinate: { ...P, short: 'tw' },
  // util-linux flock.c: `--wait` is `--timeout`; `--start` and `--length` with --fcntl
  flock: { ...P, short: 'wEc', shortFlags: 'sexnouFhV', long: ['timeout', 'wait', 'conflict-exit-code', 'command', 'start', 'length'], code: ['c', 'command'], positional: 1 },
  chroot: { ...P, long: ['userspec', 'groups'], positional: 1 },
  // nsenter.c "+ahVt:m::u::i::n::p::C::U::T::S:G:r::w::W::ecFZ": -r, -w, -W and the namespaces take a value only attached
  nsenter: { ...P, short: 'tSG', shortFlags: 'ahVecFZmuinpCUTrwW', long: ['target', 'setuid', 'setgid'], flags: ['root', 'wd', 'wdns', 'mount', 'uts', 'ipc', 'net', 'pid', 'cgroup', 'user', 'time', 'all', 'env', 'no-fork', 'preserve-credentials', 'keep-caps', 'user-parent', 'join-cgroup', 'follow-context'] },
  // unshare.c: these long options require a value
  unshare: { ...P, short: 'RwSG', shortFlags: 'fhVmuinpCTUrc', long: ['root', 'wd', 'setuid', 'setgid', 'map-user', 'map-users', 'map-group', 'map-groups', 'propagation', 'setgroups', 'monotonic', 'boottime', 'load-interp'] },
  // the fakeroot script's getopt: "+l:f:i:s:ub:vh" and --lib, --faked, --fd-base
  fakeroot: { ...P, short: 'lfsib', shortFlags: 'uvh', long: ['lib', 'faked', 'fd-base'] },
  eatmydata: P,
  nocache: P,
  // systemd's inhibit.c (--list runs nothing), cpulimit (-p/-e/-P limit a process already running), trickle's getopt
  // "hvVsw:n:u:d:t:l:L:", entr (with -s its first argument is shell code, without it a command: read as code either way)
  'systemd-inhibit': { ...P, long: ['what', 'who', 'why', 'mode'], flags: ['list', 'no-pager', 'no-legend', 'no-ask-password', 'help', 'version'], noCommand: ['list'] },
  cpulimit: { ...P, short: 'pePlcs', long: ['pid', 'exe', 'path', 'limit', 'cpu', 'signal'], noCommand: ['p', 'pid', 'e', 'exe', 'P', 'path'] },
  trickle: { ...P, short: 'wnudtlL', shortFlags: 'hvVs' },
  entr: { ...P, shortFlags: 'acdnprsz', restIsCode: true },
  // tracers: with `-p PID` they attach to it and still run the command given (see checks/attach.ts)
  strace: STRACE,
  // ltrace.c "+cfhiLrStTVb" + C and the value letters; `-w`/`--where` only where an unwinder is built in
  ltrace: { ...P, short: 'aADeFlnopsuwxX', shortFlags: 'cfhiLrStTVbC', long: ['align', 'config', 'debug', 'indent', 'library', 'output', 'where'], flags: ['demangle', 'help', 'version', 'no-signals', 'no-plt'] },
  valgrind: P,
  torsocks: { ...P, short: 'upaP', long: ['user', 'pass', 'address', 'port'] },
  proxychains: { ...P, short: 'f' },
  proxychains4: { ...P, short: 'f' },
  // faketime.c: -f (advanced format) and -m take no value; -p PID and --date-prog PATH do
  faketime: { ...P, short: 'p', long: ['date-prog'], positional: 1 },
  // numactl.c builds its short options from its long ones: -c/--cpubind, -w/--weighted-interleave and the shm ones take a value too
  numactl: {
    ...P, short: 'iwpPcNCmSfoLMI', shortFlags: 'aslHtdDuTVb',
    long: ['interleave', 'weighted-interleave', 'preferred', 'preferred-many', 'cpubind', 'cpunodebind', 'physcpubind', 'membind', 'shm', 'file', 'offset', 'length', 'shmmode', 'shmid'],
    flags: ['all', 'show', 'localalloc', 'hardware', 'strict', 'dump', 'dump-nodes', 'huge', 'touch', 'verify', 'balancing', 'cpu-compress', 'version'],
    noCommand: ['s', 'show', 'H', 'hardware'],
  },
  // systemd's run.c "+hrC:H:M:E:p:tPqGdSu:": -t is --pty, a flag
  'systemd-run': {
    ...P, short: 'uCpEMH', shortFlags: 'hrtPqGdS',
    long: [
      'unit', 'capsule', 'property', 'description', 'slice', 'uid', 'gid', 'nice', 'working-directory', 'setenv', 'expand-environment', 'service-type', 'on-calendar',
      'on-active', 'on-boot', 'on-startup', 'on-unit-active', 'on-unit-inactive', 'timer-property', 'path-property', 'socket-property', 'machine', 'host', 'job-mode', 'background', 'json',
    ],
    flags: ['slice-inherit', 'scope', 'user', 'system', 'remain-after-exit', 'send-sighup', 'wait', 'tty', 'pty', 'pipe', 'quiet', 'on-timezone-change', 'on-clock-change', 'no-block', 'no-ask-password', 'collect', 'same-dir', 'shell', 'ignore-failure'],
    chdir: ['working-directory'],
  },
  cgexec: { ...P, short: 'g', shortFlags: 'h' },
  catchsegv: P,
  // moreutils: runs the command, printing its output only when it fails
  chronic: { ...P },
  'dbus-run-session': P,
  // xvfb-run's getopt "+ae:f:hn:lp:s:w:": -l is --listen-tcp, a flag
  'xvfb-run': { ...P, short: 'efnpsw', shortFlags: 'ahl', long: ['server-num', 'server-args', 'error-file', 'auth-file', 'xauth-protocol', 'wait'] },
  firejail: P,
  // procps watch "+bCcefd::ghq:n:prs:twvx": -d/--differences take a value only attached
  watch: { ...P, short: 'nqs', shortFlags: 'bCcefghprtwvxd', long: ['interval', 'equexit', 'shotsdir'], flags: ['differences'], restIsCode: true },
  script: { ...P, short: 'cEIOTBm', long: ['command', 'echo', 'log-in', 'log-out', 'log-timing', 'log-io', 'logging-format'], code: ['c', 'command'], codeOnly: true },
  ssh: { ...P, short: 'BbcDEeFIiJLlmOopQRSWw', positional: 1, restIsCode: true, remote: true },
  npx: { ...P, short: 'cp', long: ['call', 'package'], code: ['c', 'call'], codeOnly: true },
  // credentials, limits and sandboxes that then run the command
  // util-linux setpriv.c "+dhV"; its flags listed so an abbreviation resolves among every name (`--reset` is --reset-env)
  setpriv: {
    ...P, shortFlags: 'dhV',
    long: ['ruid', 'euid', 'rgid', 'egid', 'reuid', 'regid', 'groups', 'inh-caps', 'ambient-caps', 'bounding-set', 'securebits', 'pdeathsig', 'selinux-label', 'apparmor-profile', 'landlock-access', 'landlock-rule', 'seccomp-filter', 'ptracer'],
    flags: ['dump', 'nnp', 'no-new-privs', 'list-caps', 'clear-groups', 'keep-groups', 'init-groups', 'reset-env', 'help', 'version'],
    noCommand: ['d', 'dump', 'list-caps', 'h', 'help', 'V', 'version'],
  },
  // resource options take their limits attached only (`--nofile=10`, `-n10`)
  prlimit: { ...P, short: 'po', attached: 'cdefilmnqrstuvxy', long: ['pid', 'output'], noCommand: ['p', 'pid'] },
  bwrap: {
    ...P, long: [...BWRAP_ONE, ...Object.keys(BWRAP_MANY)], arity: BWRAP_MANY, chdir: ['chdir'],
  },
  // PRoot's cli.h; `-p` is a flag in Termux's build and takes a port map upstream (--port), so it stays unknown: read both ways
  proot: {
    ...P, short: 'rRSbmqwkiv', shortFlags: 'Vh0lLHn', long: ['rootfs', 'bind', 'mount', 'qemu', 'pwd', 'cwd', 'kernel-release', 'change-id', 'verbose', 'port'],
    flags: ['kill-on-exit', 'version', 'about', 'help', 'usage', 'root-id', 'link2symlink', 'link2symlink-dirent', 'sysvipc', 'ashmem-memfd', 'netcoop'], chdir: ['w', 'pwd', 'cwd'],
  },
  // runit's chpst.c "+u:U:b:e:m:d:o:p:f:c:r:t:/:C:n:l:L:vP012V"; run under their own names, its (and daemontools') programs take fewer
  chpst: { ...P, short: 'uUbe/CnlLmdopfcrt', shortFlags: 'vP012V', chdir: ['C'] },
  setuidgid: { ...P, shortFlags: 's', positional: 1 }, envuidgid: { ...P, positional: 1 }, envdir: { ...P, positional: 1 }, pgrphack: P,
  softlimit: { ...P, short: 'acdflmoprst' }, setlock: { ...P, shortFlags: 'nNxX', positional: 1 },
  capsh: { commandAfter: ['--'], shellOf: 'bash' },
  // GNU parallel and sem run their command through a shell, once per input
  parallel: { ...P, short: PARALLEL.short, long: PARALLEL.long, flags: PARALLEL.flags, inputs: true },
  sem: { ...P, short: PARALLEL.short, long: [...PARALLEL.long, 'id', 'semaphorename', 'semaphoretimeout', 'st'], flags: PARALLEL.flags, inputs: true },
  // terminal multiplexers and emulators: the command runs in a session or window of its own
  // screen.c reads its own options: -c, -e, -p take the rest of the word or the next one; -h, -s, -S, -t, -T always the next
  // word, the cluster going on (`-dmS NAME`, `-Sdm NAME`); -r, -R, -x a session name when the next word is no option, and
  // -R starts the command after it when no session matches
  screen: {
    ...P, short: 'cep', nextWord: 'hsStT', optionalWord: 'rRx', shortFlags: 'aA46dDfilLmOqQUvXw', noCommand: ['r', 'x', 'X', 'Q', 'v'], subcommands: SCREEN, subcommandsWith: 'X',
  },
  tmux: { ...P, short: 'cfLST', shortFlags: '2CDdhlNquUvV', code: ['c'], codeOnly: true, subcommands: TMUX, subcommandNames: TMUX_COMMANDS },
  xterm: TERM_E, uxterm: TERM_E, 'x-terminal-emulator': TERM_E, urxvt: TERM_E, urxvtc: TERM_E, rxvt: TERM_E, st: TERM_E, konsole: TERM_E, lxterminal: TERM_E,
  alacritty: { commandAfter: ['-e', '--command'] },
  'gnome-terminal': TERM_X, 'mate-terminal': TERM_X, 'xfce4-terminal': TERM_X, terminator: TERM_X, tilix: TERM_X,
  // kitty's cli.py: --app-id is --class, --working-directory --directory; -1 and -e (xterm's, ignored) take no value
  kitty: {
    ...P, short: 'codTw', shortFlags: '1veh',
    long: [
      'config', 'override', 'class', 'app-id', 'name', 'title', 'directory', 'working-directory', 'session', 'listen-on', 'start-as', 'instance-group', 'watcher',
      'os-window-tag', 'detached-log', 'replay-commands', 'dump-bytes',
    ],
    flags: ['detach', 'grab-keyboard', 'hold', 'single-instance', 'wait-for-single-instance-window-close', 'dump-commands', 'debug-rendering', 'debug-gl', 'debug-input', 'debug-keyboard', 'debug-font-fallback', 'version', 'execute', 'help'],
    chdir: ['d', 'directory', 'working-directory'],
  },
  // a debugger starts the program it is given (lldb's target and arguments: see debugger-launch.ts)
  gdb: { commandAfter: GDB_ARGS },
};

/** When a program starts work outside the caller's process group or session, beyond a tool's timeout and kill. */
export interface DetachSpec {
  /** Only with one of these options (`screen -d`), parsed with `spec` or the program's wrapper spec. */
  readonly options?: readonly string[];
  /** Never with one of these (`crontab -l` only lists the schedule). */
  readonly except?: readonly string[];
  /** Only when it runs code through a sub-command (tmux `new -d …`, `run-shell …`). */
  readonly runsCode?: boolean;
  /** Only when its first word is this (`kitty @ launch …`: a window of the running kitty). */
  readonly first?: string;
  readonly spec?: OptionSpec;
}

export const DETACHERS: Readonly<Record<string, DetachSpec>> = {
  setsid: {}, 'systemd-run': {}, daemonize: {}, 'start-stop-daemon': {}, at: {}, batch: {},
  dtach: { options: ['n', 'N'] }, abduco: { options: ['n'] },
  screen: { options: ['d', 'D'], except: ['r', 'R', 'x'] },
  tmux: { runsCode: true },
  kitty: { runsCode: true, first: '@' }, kitten: { runsCode: true, first: '@' },
  // a user crontab schedules commands outside the product's own cronjob (and its approval)
  crontab: { except: ['l'], spec: { short: 'u' } },
};
