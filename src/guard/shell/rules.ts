import type { GuardFinding } from '../types.ts';

/** One shell rule: a stable id, its verdict, and why, for a person. */
export interface ShellRule {
  readonly id: string;
  readonly severity: 'deny' | 'ask';
  readonly reason: string;
}

/** Every rule of the shell guard (SPEC §6): hard blocks deny, soft blocks ask. */
export const SHELL_RULES: readonly ShellRule[] = Object.freeze([
  // hard block
  { id: 'shell.rm.recursive_root', severity: 'deny', reason: 'Recursively deleting the root directory (or everything in it) destroys the whole system.' },
  { id: 'shell.rm.recursive_system_path', severity: 'deny', reason: 'Recursively deleting a system directory breaks the operating system.' },
  { id: 'shell.rm.recursive_home', severity: 'deny', reason: 'Recursively deleting the home directory destroys all of the user\'s files.' },
  { id: 'shell.device.write', severity: 'deny', reason: 'Writing straight to a block device overwrites a disk and its file systems.' },
  { id: 'shell.device.wipe', severity: 'deny', reason: 'Wiping or discarding a device erases everything on it.' },
  { id: 'shell.device.mkfs', severity: 'deny', reason: 'Creating a file system or swap area on a device erases what it holds.' },
  { id: 'shell.system.power', severity: 'deny', reason: 'Shutting down or rebooting the machine stops everything running on it.' },
  { id: 'shell.secret.read', severity: 'deny', reason: 'Reading password hashes, private keys (SSH, GnuPG, TLS, Kerberos keytabs), stored cloud, registry, cluster and git credentials, or a process\'s environment, command line, memory or another process\'s open files (where echo-agent keeps its configuration\'s secrets), directly or by copying, archiving, searching or dumping them, exposes credentials for the whole machine and beyond.' },
  { id: 'shell.process.fork_bomb', severity: 'deny', reason: 'A function that keeps spawning copies of itself exhausts the machine (fork bomb).' },
  { id: 'shell.process.kill_all', severity: 'deny', reason: 'Signalling process -1, or every process a pattern matching all names selects (pkill ., killall -r ., kill $(pgrep .)), kills every process the user may signal.' },
  // soft block
  { id: 'shell.rm.recursive', severity: 'ask', reason: 'Recursive deletion removes whole directory trees and cannot be undone.' },
  { id: 'shell.rm.system_file', severity: 'ask', reason: 'Deleting a file inside a system directory can break the operating system.' },
  { id: 'shell.chmod.permissive', severity: 'ask', reason: 'Making files writable by everyone (or setuid) lets any user tamper with them or gain privileges.' },
  { id: 'shell.chmod.recursive', severity: 'ask', reason: 'Changing permissions recursively affects every file below the path.' },
  { id: 'shell.chown.recursive', severity: 'ask', reason: 'Changing ownership recursively affects every file below the path.' },
  { id: 'shell.service.disruptive', severity: 'ask', reason: 'Stopping, restarting, disabling or masking a service interrupts what depends on it.' },
  { id: 'shell.download.exec', severity: 'ask', reason: 'Running downloaded or decoded content executes code nobody has reviewed.' },
  { id: 'shell.echo_agent.control', severity: 'ask', reason: 'The command answers or changes echo-agent\'s own approvals, grants or jobs, which a person does from a terminal of their own, not a tool call.' },
  { id: 'shell.process.detach', severity: 'ask', reason: 'The command starts work outside the tool\'s process group or session (setsid, systemd-run, at, a detached screen or tmux session, a crontab entry, …), where its timeout, its kill and the product\'s own job approval do not reach.' },
  { id: 'shell.process.attach', severity: 'ask', reason: 'A debugger, tracer or profiler attached to a running process can read its memory and environment (echo-agent\'s own hold its configuration\'s secrets), run code in it or change what it does.' },
  { id: 'shell.container.host_access', severity: 'ask', reason: 'The command starts a container or Kubernetes pod (from its options, or a manifest or compose file the line wrote), or enters namespaces, with the host given to it (its root or system directories, secrets, a disk or the container engine\'s socket mounted, --privileged, --pid=host or hostPID, host capabilities, a node debug pod, nsenter into PID 1, systemd-nspawn on /), which is root access to the host.' },
  { id: 'shell.network.private_target', severity: 'ask', reason: 'A downloader or network client is aimed at a non-public address or an internal name (loopback, private, cloud metadata, *.internal, …).' },
  { id: 'shell.interpreter.inline', severity: 'ask', reason: 'Inline code given to an interpreter runs whatever it says; review it first.' },
  { id: 'shell.expansion.prompt', severity: 'ask', reason: 'A prompt expansion (${var@P}) runs the command substitutions in a value the guard cannot see.' },
  { id: 'shell.code.unseen_setting', severity: 'ask', reason: 'A variable or git setting whose value a program runs as code, or that points it at code (PROMPT_COMMAND, LESSOPEN, a pager or editor, the shell vim, sudo -s, su -m, script, tmux or make start, a git hooks directory or config file, BASH_ENV, git\'s ext:: transport, a computed key, a PATH entry the line can fill with programs), is set from something the guard cannot see, so what will run cannot be checked.' },
  { id: 'shell.interpreter.unseen_script', severity: 'ask', reason: 'A shell, interpreter, editor or debugger runs a script whose text the guard cannot see: from a process substitution or a redirected file, each file a search finds, or the text a pager, editor or filter is given.' },
  { id: 'shell.credential.read', severity: 'ask', reason: 'Reading out a settings file that holds a login (.netrc, .npmrc, .pypirc, .my.cnf, Maven\'s settings.xml), a dotenv file (.env, .env.local) or a file named like a private key (privkey.pem, *-key.pem, *.ppk) hands its password or registry token to whoever sees the output; the programs that use it (curl, npm, pip, twine, mysql, mvn) read it by themselves.' },
  { id: 'shell.credential.write', severity: 'ask', reason: 'Writing credential or start-up files (shell, login and loader settings, /usr/local/bin, pip, conda, direnv, VS Code tasks), or a git repository\'s configuration or hooks (a gitfile named .git, a config with git\'s command-running sections), can leak secrets or plant commands that run later (a login, an approved git status).' },
  { id: 'shell.history.erase', severity: 'ask', reason: 'Emptying or deleting a shell or REPL history file, clearing the shell\'s history list or turning history off (unset HISTFILE, HISTFILE=/dev/null, HISTSIZE=0, set +o history) hides what was run from whoever reviews it later.' },
  { id: 'shell.sql.destructive', severity: 'ask', reason: 'The statement drops, truncates or deletes data without a WHERE clause.' },
  { id: 'shell.find.delete', severity: 'ask', reason: 'find deleting what it matches can remove many files at once.' },
  { id: 'shell.git.force_push', severity: 'ask', reason: 'A force push rewrites history on the remote and can discard others\' work.' },
  { id: 'shell.git.reset_hard', severity: 'ask', reason: 'git reset --hard throws away uncommitted changes.' },
  { id: 'shell.git.clean', severity: 'ask', reason: 'git clean -f deletes untracked (and with -x ignored) files for good.' },
  { id: 'shell.device.partition', severity: 'ask', reason: 'Editing a partition table can make a disk\'s data unreachable.' },
  { id: 'shell.program.computed', severity: 'ask', reason: 'The program name is computed at run time, so what runs cannot be known in advance.' },
  { id: 'shell.program.eval', severity: 'ask', reason: 'eval runs text as a new command line, hiding what it executes.' },
  { id: 'shell.input.unparseable', severity: 'ask', reason: 'The command does not parse as shell, so it cannot be checked (fail closed).' },
  { id: 'shell.input.oversized', severity: 'ask', reason: 'The command is too large to check (fail closed).' },
  { id: 'shell.input.too_complex', severity: 'ask', reason: 'The command nests or expands beyond what the guard checks (fail closed).' },
  { id: 'shell.input.dialect', severity: 'ask', reason: 'The code goes to a shell that reads it differently from bash (ANSI-C $\'…\' quoting), so what it runs cannot be checked.' },
  { id: 'shell.input.hidden_chars', severity: 'ask', reason: 'The command contains control or bidirectional characters that can hide what it does.' },
]) as readonly ShellRule[];

export const SHELL_RULE_BY_ID: ReadonlyMap<string, ShellRule> = new Map(SHELL_RULES.map((r) => [r.id, r]));

const MAX_MATCHED = 240;

export function shellFinding(id: string, matched: string): GuardFinding {
  const rule = SHELL_RULE_BY_ID.get(id);
  if (!rule) throw new Error(`unknown shell rule ${id}`);
  const m = matched.length > MAX_MATCHED ? matched.slice(0, MAX_MATCHED - 1) + '…' : matched;
  return { rule: rule.id, severity: rule.severity, matched: m, reason: rule.reason };
}
