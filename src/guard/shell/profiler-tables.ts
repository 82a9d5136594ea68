import type { OptionSpec } from './flags.ts';

/**
 * How profilers, recorders and tracers spell their options: one table per program (or sub-command), read both when
 * they start a command (profilers.ts) and when they attach to a running process (attach-tables.ts). Checked against
 * perf 6.1's `-h`, rr 5.6's `rr help`, uftrace 0.13's `--help` and bpftrace 0.17's man page; names newer versions
 * added are kept, since an option a version lacks only makes it fail.
 */

/** perf's global options, before the sub-command. */
export const PERF_GLOBAL: OptionSpec = { posix: true, long: ['buildid-dir', 'debugfs-dir', 'debug', 'exec-path'] };
/**
 * perf record, stat, trace and top (builtin-*.c): options taking a value; optional values (`-I`, `-S`, `-z`,
 * `--switch-output`) are attached only, as perf's parser reads them. Flags are listed so an abbreviation resolves as
 * perf resolves it.
 */
export const PERF_RECORD: OptionSpec = {
  posix: true, short: 'eptrcomFCGDujk', attached: 'ISz',
  long: [
    'event', 'filter', 'pid', 'tid', 'realtime', 'count', 'output', 'mmap-pages', 'mmap-flush', 'freq', 'cpu', 'cgroup', 'delay',
    'uid', 'branch-filter', 'clockid', 'call-graph', 'proc-map-timeout', 'switch-output-event', 'switch-max-files', 'affinity', 'max-size',
    'num-thread-synthesize', 'control', 'synth', 'pfm-events', 'setup-filter', 'off-cpu-thresh', 'vmlinux', 'kallsyms', 'clang-path', 'clang-opt',
  ],
  flags: [
    'all-cpus', 'no-inherit', 'no-buffering', 'no-samples', 'no-buildid', 'no-buildid-cache', 'no-bpf-event', 'sample-cpu', 'sample-identifier',
    'timestamp', 'period', 'data', 'phys-data', 'data-page-size', 'code-page-size', 'raw-samples', 'quiet', 'verbose', 'stat', 'weight',
    'transaction', 'per-thread', 'running-time', 'namespaces', 'all-cgroups', 'all-kernel', 'all-user', 'kernel-callchains', 'user-callchains',
    'timestamp-filename', 'timestamp-boundary', 'tail-synthesize', 'overwrite', 'strict-freq', 'buildid-all', 'buildid-mmap', 'kcore', 'off-cpu',
    'branch-any', 'sample-mem-info', 'latency', 'intr-regs', 'user-regs', 'snapshot', 'compression-level', 'switch-output', 'aux-sample', 'threads',
    'debuginfod', 'switch-events', 'exclude-perf', 'group', 'dry-run', 'aio',
  ],
};
export const PERF_STAT: OptionSpec = {
  posix: true, short: 'eptrCoIxGMDb',
  long: [
    'event', 'filter', 'pid', 'tid', 'repeat', 'cpu', 'output', 'log-fd', 'pre', 'post', 'interval-print', 'interval-count', 'timeout', 'field-separator',
    'cgroup', 'for-each-cgroup', 'metrics', 'delay', 'td-level', 'control', 'bpf-prog', 'bpf-attr-map', 'pfm-events', 'cputype', 'topdown-level',
  ],
  flags: [
    'all-cpus', 'no-inherit', 'null', 'verbose', 'big-num', 'no-aggr', 'sync', 'scale', 'transaction', 'quiet', 'detailed', 'metric-only', 'topdown',
    'smi-cost', 'per-socket', 'per-die', 'per-core', 'per-thread', 'per-node', 'per-cache', 'per-cluster', 'interval-clear', 'table', 'json', 'json-output',
    'metric-no-group', 'metric-no-merge', 'metric-no-threshold', 'percore-show-thread', 'bpf-counters', 'append', 'iostat', 'no-merge', 'hybrid-merge',
    'group', 'summary', 'no-csv-summary', 'all-kernel', 'all-user',
  ],
};
/** `-F`/`--pf` takes the next word (perf's LASTARG_DEFAULT), but for a last one; see perfTrace in profilers.ts. */
export const PERF_TRACE: OptionSpec = {
  posix: true, short: 'eoptuCmGDiF',
  long: [
    'event', 'expr', 'output', 'pid', 'tid', 'uid', 'cpu', 'mmap-pages', 'cgroup', 'delay', 'input', 'duration', 'call-graph', 'max-stack', 'min-stack',
    'proc-map-timeout', 'max-events', 'switch-on', 'switch-off', 'filter-pids', 'map-dump', 'filter', 'pf',
  ],
  flags: [
    'all-cpus', 'no-inherit', 'verbose', 'summary', 'with-summary', 'time', 'force', 'syscalls', 'failure', 'kernel-syscall-graph', 'errno-summary',
    'print-sample', 'tool_stats', 'no-syscalls', 'sched', 'show-on-off-events', 'summary-mode', 'bpf-summary', 'comm', 'sort-events', 'libtraceevent_print',
  ],
};
/** perf top: no command, but `-p`, `-t`, `-u` name processes. */
export const PERF_TOP: OptionSpec = {
  posix: true, short: 'cCdEefFGjkMmprstuw',
  long: [
    'count', 'cpu', 'delay', 'entries', 'event', 'count-filter', 'freq', 'cgroup', 'branch-filter', 'vmlinux', 'disassembler-style', 'mmap-pages', 'pid',
    'realtime', 'sort', 'tid', 'uid', 'column-widths', 'call-graph', 'comms', 'dsos', 'fields', 'group-sort-idx', 'ignore-callees', 'kallsyms', 'max-stack',
    'num-thread-synthesize', 'objdump', 'percent-limit', 'percentage', 'prefix', 'prefix-strip', 'proc-map-timeout', 'switch-off', 'switch-on',
    'sym-annotate', 'symbols', 'addr2line', 'pfm-events',
  ],
  flags: [
    'all-cpus', 'branch-any', 'dump-symtab', 'no-inherit', 'hide_kernel_symbols', 'show-nr-samples', 'hide_user_symbols', 'verbose', 'zero', 'all-cgroups',
    'asm-raw', 'children', 'demangle-kernel', 'force', 'group', 'hierarchy', 'ignore-vmlinux', 'namespaces', 'no-bpf-event', 'overwrite', 'raw-trace',
    'show-on-off-events', 'show-total-period', 'source', 'stdio', 'stitch-lbr', 'tui',
  ],
};
export const PERF_FTRACE: OptionSpec = {
  posix: true, short: 'tpCDFNGgaTLm', long: ['tracer', 'pid', 'cpu', 'delay', 'funcs', 'notrace-funcs', 'graph-funcs', 'nograph-funcs', 'graph-opts', 'func-opts', 'buffer-size'],
};
/** perf tools whose `record` is perf record's (they add options of their own before it, `perf mem -t load record`). */
export const PERF_RECORDERS: readonly string[] = ['sched', 'lock', 'mem', 'c2c', 'kmem', 'kwork', 'timechart', 'kvm'];

/** rr's global options, and record's and replay's (RecordCommand.cc, ReplayCommand.cc); `rr help` for 5.6. */
export const RR_GLOBAL: OptionSpec = { posix: true, short: 'ACDT', long: ['microarch', 'checksum', 'dump-on', 'dump-at', 'resource-path', 'log'] };
export const RR_RECORD: OptionSpec = {
  posix: true, short: 'cipotv',
  long: [
    'num-cpu-ticks', 'ignore-signal', 'print-trace-dir', 'output-trace-dir', 'continue-through-signal', 'env', 'syscall-buffer-size',
    'syscall-buffer-sig', 'nested', 'bind-to-cpu', 'disable-cpuid-features', 'disable-cpuid-features-ext', 'disable-cpuid-features-xsave', 'num-cores',
    'ignore-error', 'tracee-fd', 'trace-id',
  ],
  flags: [
    'no-read-cloning', 'no-file-cloning', 'scarce-fds', 'setuid-sudo', 'stap-sdt', 'unmap-vdso', 'disable-avx-512', 'asan', 'tsan', 'chaos',
    'no-syscall-buffer', 'always-switch', 'cpu-unbound', 'wait', 'wait-all', 'force-syscall-buffer', 'ignore-nested', 'intel-pt', 'check-outside-mmaps',
    'copy-preload-src',
  ],
};
/** `rr replay`: `-d FILE` is the debugger it starts, `-o OPT`, `-x FILE` and the words after `--` are that debugger's options. */
export const RR_REPLAY: OptionSpec = {
  posix: true, short: 'fgopdhstxi',
  long: ['onfork', 'goto', 'debugger-option', 'onprocess', 'debugger', 'dbghost', 'dbgport', 'trace', 'gdb-x', 'interpreter', 'stats', 'tty'],
  flags: ['autopilot', 'goto-exit', 'fullname', 'no-redirect-output', 'keep-listening', 'cpu-unbound', 'serve-files'],
};
/** rr's sub-commands that run no new command (`rr replay` starts a debugger: see profilers.ts). */
export const RR_OTHER: readonly string[] = [
  'dump', 'ps', 'pack', 'sources', 'explicit-sources', 'filename', 'traceinfo', 'buildid', 'cpufeatures', 'gdbinit', 'lldbinit', 'ls', 'rm', 'mv', 'help',
  'explain', 'rerecord', 'rerun',
];

/** py-spy record, top and dump (clap): the options with a value, and flags. */
export const PY_SPY: OptionSpec = {
  posix: true, short: 'pofdr', long: ['pid', 'output', 'format', 'duration', 'rate', 'delay'],
  flags: ['subprocesses', 'native', 'nonblocking', 'gil', 'idle', 'threads', 'function', 'nolineno', 'full-filenames', 'hideprogress', 'locals', 'json'],
};

/** bpftrace (getopt_long: options anywhere). `-d` is left a flag: where it takes a value, that value is then an operand, and `-c` is still found. */
export const BPFTRACE: OptionSpec = { short: 'BfoepcI', long: ['include'], flags: ['usdt-file-activation', 'dry-run', 'unsafe', 'info', 'no-warnings', 'btf'] };

/** dtrace (illumos, and Oracle's for Linux): options end at the first operand; `-c CMD` runs CMD, `-p PID` grabs a process. */
export const DTRACE: OptionSpec = { posix: true, short: 'bcDfiILmnopPsUxX' };

/** `memray run`'s options. */
export const MEMRAY_RUN: OptionSpec = { posix: true, short: 'op', long: ['output', 'live-port'], flags: ['live', 'live-remote', 'native', 'follow-fork', 'trace-python-allocators', 'aggregate', 'quiet', 'force', 'no-compress'] };

/** austin and heaptrack: options, then the command; `heaptrack -a FILE` only analyses a recording. */
export const AUSTIN: OptionSpec = { posix: true, short: 'iotpwx', long: ['interval', 'output', 'timeout', 'pid', 'where', 'exposure'] };
export const HEAPTRACK: OptionSpec = { posix: true, short: 'opa', long: ['output', 'pid', 'analyze'] };

/** uftrace (argp): `record` and `live` (the default when the first word names none) run the command after their options. */
export const UFTRACE: OptionSpec = {
  posix: true, short: 'FNTtDLbdARPUZECSWHfKrsp',
  long: [
    'filter', 'notrace', 'trigger', 'time-filter', 'depth', 'library-path', 'buffer', 'data', 'argument', 'retval', 'patch', 'unpatch', 'size-filter',
    'event', 'caller-filter', 'script', 'watch', 'hide', 'output-fields', 'kernel-depth', 'time-range', 'sort', 'pid', 'match', 'signal', 'max-stack',
    'num-thread', 'logfile', 'color', 'demangle', 'rt-prio', 'clock', 'tid', 'column-offset', 'sample-time', 'host', 'port', 'opt-file', 'with-syms',
    'loc-filter', 'kernel-buffer', 'libmcount-path', 'debug-domain', 'diff', 'diff-policy', 'format', 'run-cmd', 'sort-column',
  ],
  flags: [
    'auto-args', 'avg-self', 'avg-total', 'chrome', 'column-view', 'disable', 'estimate-return', 'event-full', 'flame-graph', 'flat', 'force', 'agent',
    'graphviz', 'kernel', 'keep-pid', 'kernel-full', 'kernel-only', 'kernel-skip-out', 'libmcount-single', 'list-event', 'nest-libcall', 'libname',
    'no-args', 'no-comment', 'no-event', 'no-sched', 'no-sched-preempt', 'no-libcall', 'no-merge', 'no-pager', 'no-pltbind', 'no-randomize-addr', 'nop',
    'record', 'report', 'srcline', 'symbols', 'task', 'task-newline', 'time', 'debug', 'verbose', 'help', 'usage', 'version',
  ],
};
export const UFTRACE_OTHER: readonly string[] = ['replay', 'report', 'info', 'dump', 'graph', 'script', 'tui', 'recv'];
