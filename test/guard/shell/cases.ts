import { ALLOW } from './cases-allow.ts';
import { AST_FORMS } from './cases-ast.ts';
import { EVASIONS } from './cases-evasions.ts';
import { ASK_EXEC, ASK_FAIL_CLOSED, ASK_FILES, ASK_SYSTEM } from './cases-ask.ts';
import { DENY_DEVICES, DENY_POWER, DENY_PROCESSES, DENY_SECRETS } from './cases-deny-other.ts';
import { DENY_RM_HOME, DENY_RM_ROOT, DENY_RM_SYSTEM, type ShellCase } from './cases-deny.ts';
import { CONTROL_PLANE, CONTROL_PLANE_READS } from './cases-control-plane.ts';
import {
  ECHOED_HOME, ECHOED_HOME_ALLOWED, HOME_SEARCHES, HOME_SEARCHES_ALLOWED, LISTED_READS, LISTED_READS_ALLOWED, TREE_READS, TREE_READS_ALLOWED, UGREP_ALLOWED, UGREP_READS,
} from './cases-reads.ts';
import { NESTED_ENV, NESTED_ENV_ALLOWED } from './cases-nested-env.ts';
import { CODE_FILE_LOOKALIKES, DEBUGGER_FILES, NAMEREF_ASSIGNMENTS, PROMPTS_AND_STARTUP } from './cases-code-files.ts';
import { GIT_ALIAS_LOOKALIKES, GIT_ALIASES, GIT_COMMANDS, GIT_LOOKALIKES, GIT_TRANSPORTS, GIT_UNSEEN_FILES } from './cases-git-code.ts';
import { SETTINGS_CODE, SETTINGS_LOOKALIKES, SETTINGS_UNSEEN } from './cases-settings.ts';
import {
  FD_EXEC, FD_EXEC_ALLOWED, LISTED_LOOPS, LISTED_LOOPS_ALLOWED, XARGS_SHELLS, XARGS_SHELLS_LOOKALIKES,
} from './cases-round6.ts';
import {
  GIT_ALIASES_SET, GIT_ALIASES_SET_ALLOWED, SUDO_ENV, SUDO_ENV_LOOKALIKES, TILDE_ASSIGNMENTS, TILDE_ASSIGNMENTS_LOOKALIKES, UGREP_COMMANDS, UGREP_COMMANDS_ALLOWED,
} from './cases-round6b.ts';
import {
  DOWNLOAD_CLUSTERS, DOWNLOAD_CLUSTERS_ALLOWED, GIT_CONFIG_COUNTS, GIT_CONFIG_COUNTS_JUDGED, LISTING_FILES, LISTING_FILES_ALLOWED, QUOTED_PLACEHOLDERS,
  QUOTED_PLACEHOLDERS_LOOKALIKES, RG_FILES, RG_FILES_LOOKALIKES, SU_FAMILY, SU_FAMILY_LOOKALIKES,
} from './cases-round7.ts';
import {
  COMPOUND_LISTINGS, COMPOUND_LISTINGS_LOOKALIKES, NAME_LIST_LOOKALIKES, NAME_LIST_READS, PARALLEL_INPUTS, QUOTED_NAMES_JUDGED, SEARCH_LISTERS,
  SEARCH_LISTERS_LOOKALIKES, SERVER_NAMED_DOWNLOADS, SERVER_NAMED_LOOKALIKES,
} from './cases-round8.ts';
import {
  DOWNLOADED_TREES, DOWNLOADED_TREES_LOOKALIKES, FILES0_READS, PARALLEL_DRY_RUN, PARALLEL_DRY_RUN_JUDGED, PARALLEL_FLAGS, SOURCE_DELETES, SOURCE_DELETES_LOOKALIKES,
} from './cases-round9.ts';
import {
  PROC_LOOKALIKES, PROC_SECRETS, PROC_TREES, PROCESS_DUMPERS, SOURCE_FILE_DELETES, SOURCE_FILE_DELETES_LOOKALIKES,
} from './cases-round10.ts';
import { ARG_FILE_LOOKALIKES, ARG_FILE_READS } from './cases-round11.ts';
import { ATTACH_LOOKALIKES, ATTACHED_DUMPS, GIT_CODE_WRITES, PROCESS_ATTACH, TRACED_COMMANDS } from './cases-round12.ts';
import { DEBUGGER_SHELLS, PROFILED_COMMANDS, PROFILER_CODE, PROFILER_LOOKALIKES } from './cases-round13.ts';
import {
  COMPUTED_PROFILERS, DEBUGGER_RUN_ARGS, DOWNLOADED_DEBUGGER_COMMANDS, INSPECTOR_SIGNALS, OPTION_TABLES, RR_DEBUGGERS, SYSTEM_TRACERS,
} from './cases-round14.ts';
import { DEBUGGER_PROGRAMS, SIGNAL_DELIVERY, SYSTEMCTL_OPTIONS, UFTRACE_OPT_FILES } from './cases-round15.ts';
import { GIT_GLOBAL_VALUES, KILL_OPTIONS, PARTITIONER_OPTION_VALUES, UNKNOWN_WRAPPER_OPTIONS, WRAPPER_OPTION_VALUES } from './cases-round16.ts';
import {
  KITTY_REMOTE, READER_OPTIONS, SGDISK_OPTIONS, TMUX_PREFIXES, UFTRACE_UNSEEN, UNKNOWN_SHORT_OPTIONS, WRAPPER_TABLES_AUDITED,
} from './cases-round17.ts';
import { KITTY_SETTINGS, LESS_OPTIONS, SGDISK_TABLES, SUDO_HOST, TMUX_NESTED } from './cases-round18.ts';
import { ROUND19_TABLES } from './cases-round19.ts';
import { ROUND20_TABLES } from './cases-round20.ts';
import { ROUND21_TABLES } from './cases-round21.ts';
import { ROUND22_TABLES } from './cases-round22.ts';
import { ROUND23_TABLES } from './cases-round23.ts';
import { ROUND24_TABLES } from './cases-round24.ts';
import { ROUND25_TABLES } from './cases-round25.ts';
import { ROUND26_TABLES } from './cases-round26.ts';
import { ROUND27_TABLES } from './cases-round27.ts';
import { DETACHED, TREE_ALLOWED, TREE_SECRETS, WRAPPED_HARD_BLOCKS, WRAPPER_LOOKALIKES } from './cases-wrappers.ts';

export type { ShellCase };

/** Every table-driven shell case, by theme. */
export const SHELL_CASE_TABLES: Readonly<Record<string, readonly ShellCase[]>> = {
  'recursive delete of /': DENY_RM_ROOT,
  'recursive delete of a system directory': DENY_RM_SYSTEM,
  'recursive delete of the home directory': DENY_RM_HOME,
  'block devices': DENY_DEVICES,
  'power': DENY_POWER,
  'secrets': DENY_SECRETS,
  'fork bombs and kill -1': DENY_PROCESSES,
  'files, permissions and credentials': ASK_FILES,
  'interpreters, downloads and computed programs': ASK_EXEC,
  'services, SQL, git and partitions': ASK_SYSTEM,
  'fail closed': ASK_FAIL_CLOSED,
  'benign commands and look-alikes': ALLOW,
  'forms only a full parse tree shows': AST_FORMS,
  'evasions found in review': EVASIONS,
  'hard blocks behind wrappers and in option values': WRAPPED_HARD_BLOCKS,
  'detached sessions and schedules': DETACHED,
  'wrapper and option look-alikes': WRAPPER_LOOKALIKES,
  'recursive copies and archives of secrets': TREE_SECRETS,
  'recursive copies and archives elsewhere': TREE_ALLOWED,
  'recursive searches through secrets': TREE_READS,
  'recursive searches elsewhere': TREE_READS_ALLOWED,
  "echo-agent's own approvals, grants and jobs": CONTROL_PLANE,
  "echo-agent's state read": CONTROL_PLANE_READS,
  'code in git config, debugger calls and assigning builtins': SETTINGS_CODE,
  'git config, debugger and builtin settings the guard cannot see': SETTINGS_UNSEEN,
  'git config, debugger and builtin look-alikes': SETTINGS_LOOKALIKES,
  'git config files, helpers and hooks the guard has not seen': GIT_UNSEEN_FILES,
  'git transports that run commands (upload-pack, receive-pack, ext::)': GIT_TRANSPORTS,
  'git sub-commands that run shell code': GIT_COMMANDS,
  'git look-alikes': GIT_LOOKALIKES,
  'debugger command files': DEBUGGER_FILES,
  'assignments through name references': NAMEREF_ASSIGNMENTS,
  'prompt strings and BASH_ENV': PROMPTS_AND_STARTUP,
  'command file, name reference and prompt look-alikes': CODE_FILE_LOOKALIKES,
  'searches rooted at the home directory': HOME_SEARCHES,
  'searches below the home directory': HOME_SEARCHES_ALLOWED,
  'ugrep and ug searches through secrets': UGREP_READS,
  'ugrep and ug searches elsewhere': UGREP_ALLOWED,
  'the home directory printed by echo or printf': ECHOED_HOME,
  'echo and printf look-alikes': ECHOED_HOME_ALLOWED,
  'find | xargs reading what find lists': LISTED_READS,
  'find | xargs elsewhere or reading nothing': LISTED_READS_ALLOWED,
  'exported variables and assignments in nested shells': NESTED_ENV,
  'variables for programs other than git': NESTED_ENV_ALLOWED,
  'git aliases given on the command line': GIT_ALIASES,
  'git alias look-alikes': GIT_ALIAS_LOOKALIKES,
  'loops and substitutions reading what find lists': LISTED_LOOPS,
  'loops over find elsewhere or reading nothing': LISTED_LOOPS_ALLOWED,
  'xargs and find -exec running a shell': XARGS_SHELLS,
  'xargs shell look-alikes': XARGS_SHELLS_LOOKALIKES,
  'fd running a command on what it finds': FD_EXEC,
  'fd look-alikes': FD_EXEC_ALLOWED,
  'ugrep filters, pager and configuration files': UGREP_COMMANDS,
  'ugrep filter and configuration look-alikes': UGREP_COMMANDS_ALLOWED,
  'git aliases set earlier on the line': GIT_ALIASES_SET,
  'git alias setting look-alikes': GIT_ALIASES_SET_ALLOWED,
  'the home directory after = and : in assignments': TILDE_ASSIGNMENTS,
  'tilde look-alikes': TILDE_ASSIGNMENTS_LOOKALIKES,
  'variables set before sudo, which may not reach the command': SUDO_ENV,
  'sudo environment look-alikes': SUDO_ENV_LOOKALIKES,
  'curl and wget option clusters saving a script that then runs': DOWNLOAD_CLUSTERS,
  'downloads saved and only read': DOWNLOAD_CLUSTERS_ALLOWED,
  'listings written to a file and read back': LISTING_FILES,
  'listing file look-alikes': LISTING_FILES_ALLOWED,
  'xargs and find -exec names inside quoted code': QUOTED_PLACEHOLDERS,
  'quoted name look-alikes': QUOTED_PLACEHOLDERS_LOOKALIKES,
  'GIT_CONFIG_COUNT and the pairs git reads': GIT_CONFIG_COUNTS,
  'git config pairs below the count or with a count unseen': GIT_CONFIG_COUNTS_JUDGED,
  'su, runuser, run0 and machinectl shell': SU_FAMILY,
  'su family look-alikes': SU_FAMILY_LOOKALIKES,
  'rg --files and fd listing hidden files': RG_FILES,
  'rg --files and fd look-alikes': RG_FILES_LOOKALIKES,
  'tar -T, cpio, zip -@, rsync --files-from reading a listing': NAME_LIST_READS,
  'name list look-alikes': NAME_LIST_LOOKALIKES,
  'block and subshell output written to a listing file': COMPOUND_LISTINGS,
  'block output look-alikes': COMPOUND_LISTINGS_LOOKALIKES,
  'downloads named by the server, and globs over written files': SERVER_NAMED_DOWNLOADS,
  'server-named download look-alikes': SERVER_NAMED_LOOKALIKES,
  'ag -g, ack -f and pt -g listing files': SEARCH_LISTERS,
  'ag and ack listing look-alikes': SEARCH_LISTERS_LOOKALIKES,
  'parallel inputs and xargs -J': PARALLEL_INPUTS,
  'quoted {} and parallel judged as before': QUOTED_NAMES_JUDGED,
  'tar --remove-files, zip -m, rsync --remove-source-files, 7z -sdel and mv deleting a protected tree': SOURCE_DELETES,
  'moving or archiving away workspace files': SOURCE_DELETES_LOOKALIKES,
  'parallel --dry-run printing what it would run': PARALLEL_DRY_RUN,
  'parallel --dry-run whose output goes on, or that runs anyway': PARALLEL_DRY_RUN_JUDGED,
  'parallel flags read as options taking the command': PARALLEL_FLAGS,
  'wget -r trees and downloads saved where the guard cannot tell': DOWNLOADED_TREES,
  'wget -r look-alikes': DOWNLOADED_TREES_LOOKALIKES,
  'wc --files0-from reading a listing': FILES0_READS,
  'process environments, command lines and memory under /proc': PROC_SECRETS,
  '/proc and process directories read whole': PROC_TREES,
  'ps printing environments and gcore dumping memory': PROCESS_DUMPERS,
  '/proc, ps and gcore look-alikes': PROC_LOOKALIKES,
  'zip -m, rsync --remove-source-files, tar --remove-files deleting one system file; parallel --shebang-wrap': SOURCE_FILE_DELETES,
  'moving away files outside system directories': SOURCE_FILE_DELETES_LOOKALIKES,
  'argument files xargs and parallel read (-a, --arg-file, ::::)': ARG_FILE_READS,
  'argument file look-alikes': ARG_FILE_LOOKALIKES,
  'debuggers, tracers and profilers attached to a running process': PROCESS_ATTACH,
  'attached debuggers dumping memory or printing the environment; heap dumps': ATTACHED_DUMPS,
  'commands run under tracers and debuggers, their options read as they parse them': TRACED_COMMANDS,
  'programs run under a debugger, core files and attach look-alikes': ATTACH_LOOKALIKES,
  'writes to a repository\'s git config and hooks, and to the user\'s git config': GIT_CODE_WRITES,
  'commands run under profilers, recorders, gdbserver and hyperfine': PROFILED_COMMANDS,
  'gdb target remote | CMD, and debugger commands fed on stdin': DEBUGGER_SHELLS,
  'Python under memray, heaptrack -p, gdbserver arguments through the shell': PROFILER_CODE,
  'profiler, recorder and debugger stdin look-alikes': PROFILER_LOOKALIKES,
  'perf, rr, py-spy and uftrace read with one option table each': OPTION_TABLES,
  'rr replay starting a debugger with the options it is given': RR_DEBUGGERS,
  'gdb and lldb run ARGS through /bin/sh': DEBUGGER_RUN_ARGS,
  'downloads piped into gdb or lldb': DOWNLOADED_DEBUGGER_COMMANDS,
  'SIGUSR1 opening a node process\'s inspector': INSPECTOR_SIGNALS,
  'tracers whose probes see every process': SYSTEM_TRACERS,
  'a glob or variable naming a profiler or debugger': COMPUTED_PROFILERS,
  'SIGUSR1 through systemctl, loginctl, docker, podman, skill and signal numbers': SIGNAL_DELIVERY,
  'uftrace options read from a file': UFTRACE_OPT_FILES,
  'the program a gdb or lldb run starts, named by option or command': DEBUGGER_PROGRAMS,
  'systemctl verbs after options that take a value, and after unknown ones': SYSTEMCTL_OPTIONS,
  'wrapped commands after options that take a value, and not after flags': WRAPPER_OPTION_VALUES,
  'git sub-commands after --attr-source and --shallow-file': GIT_GLOBAL_VALUES,
  'partitioners whose option values hold l or p': PARTITIONER_OPTION_VALUES,
  'wrapper options no table knows, read as taking a value too': UNKNOWN_WRAPPER_OPTIONS,
  'kill options that take a value of their own': KILL_OPTIONS,
  'sgdisk read with its own option table': SGDISK_OPTIONS,
  'numactl, chpst\'s programs, screen and proot read as their parsers read them': WRAPPER_TABLES_AUDITED,
  'tmux commands named by a unique prefix': TMUX_PREFIXES,
  'kitty remote control launching, running and typing commands': KITTY_REMOTE,
  'gawk -d and bat --pager': READER_OPTIONS,
  'wrapper short options no table knows, read as taking a value too': UNKNOWN_SHORT_OPTIONS,
  'uftrace --opt-file as an unseen setting': UFTRACE_UNSEEN,
  'sudo -h naming a host, attached or as a word of its own': SUDO_HOST,
  'kitty shell overrides, settings files, +runpy and @ action': KITTY_SETTINGS,
  'tmux commands inside tmux commands, formats and settings files': TMUX_NESTED,
  'less lesskey files and log files': LESS_OPTIONS,
  'sgdisk -j, -k and -B taking a number': SGDISK_TABLES,
  ...ROUND19_TABLES,
  ...ROUND20_TABLES,
  ...ROUND21_TABLES,
  ...ROUND22_TABLES,
  ...ROUND23_TABLES,
  ...ROUND24_TABLES,
  ...ROUND25_TABLES,
  ...ROUND26_TABLES,
  ...ROUND27_TABLES,
};

export const ALL_SHELL_CASES: readonly ShellCase[] = Object.values(SHELL_CASE_TABLES).flat();

/** Cases per expected verdict, for the closing note. */
export function countByDecision(cases: readonly ShellCase[] = ALL_SHELL_CASES): Record<'deny' | 'ask' | 'allow', number> {
  const out = { deny: 0, ask: 0, allow: 0 };
  for (const [, d] of cases) out[d]++;
  return out;
}
