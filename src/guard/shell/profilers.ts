import { has, parseOptions, valueOf, type OptionSpec } from './flags.ts';
import type { Arg } from './model.ts';
import { UNKNOWN, literal, plain } from './values.ts';

/**
 * Profilers, recorders and benchmark tools that start the command they are given (`perf record CMD…`, `rr CMD…`,
 * `gdbserver COMM PROG…`, `hyperfine 'CODE'`): each read as its own parser reads it, so the command is not taken
 * for an option value, nor a value for the command.
 */

/** What a profiler runs: a command line, shell code, or both empty. */
export interface ProfiledRun {
  readonly rest: readonly Arg[];
  readonly code: string | null;
}

const NONE: ProfiledRun = { rest: [], code: null };
const word = (v: string, from?: Arg): Arg => ({ v, info: { computed: false, ansi: false, quoted: false, inner: [], raw: from?.info.raw ?? v } });
const runs = (rest: readonly Arg[]): ProfiledRun => ({ rest, code: null });
const sub = (args: readonly Arg[], i: number): string => literal(args[i]?.v ?? '') ?? '';

/** perf's global options, before the sub-command. */
const PERF_GLOBAL: OptionSpec = { posix: true, long: ['buildid-dir', 'debugfs-dir', 'debug', 'exec-path'] };
/**
 * perf record, stat and trace (builtin-*.c): options taking a value; optional values (`-I`, `-S`, `-z`, `--switch-output`)
 * are attached only, as perf's parser reads them. Flags are listed so an abbreviation resolves as perf resolves it.
 */
const PERF_RECORD: OptionSpec = {
  posix: true, short: 'eptrcomFCGDujk', attached: 'ISz',
  long: [
    'event', 'filter', 'exclude-perf', 'pid', 'tid', 'realtime', 'count', 'output', 'mmap-pages', 'mmap-flush', 'freq', 'cpu', 'cgroup', 'delay',
    'uid', 'branch-filter', 'clockid', 'call-graph', 'proc-map-timeout', 'switch-output-event', 'switch-max-files', 'affinity', 'max-size',
    'num-thread-synthesize', 'control', 'synth', 'pfm-events', 'setup-filter', 'off-cpu-thresh', 'vmlinux', 'kallsyms', 'clang-path',
  ],
  flags: [
    'all-cpus', 'no-inherit', 'no-buffering', 'no-samples', 'no-buildid', 'no-buildid-cache', 'no-bpf-event', 'sample-cpu', 'sample-identifier',
    'timestamp', 'period', 'data', 'phys-data', 'data-page-size', 'code-page-size', 'raw-samples', 'quiet', 'verbose', 'stat', 'weight',
    'transaction', 'per-thread', 'running-time', 'namespaces', 'all-cgroups', 'all-kernel', 'all-user', 'kernel-callchains', 'user-callchains',
    'timestamp-filename', 'timestamp-boundary', 'tail-synthesize', 'overwrite', 'strict-freq', 'buildid-all', 'buildid-mmap', 'kcore', 'off-cpu',
    'branch-any', 'sample-mem-info', 'latency', 'intr-regs', 'user-regs', 'snapshot', 'compression-level', 'switch-output', 'aux-sample', 'threads',
    'debuginfod', 'switch-events',
  ],
};
const PERF_STAT: OptionSpec = {
  posix: true, short: 'eptrCoIxGMDb',
  long: [
    'event', 'filter', 'pid', 'tid', 'repeat', 'cpu', 'output', 'log-fd', 'pre', 'post', 'interval-print', 'interval-count', 'timeout', 'field-separator',
    'cgroup', 'for-each-cgroup', 'metrics', 'delay', 'td-level', 'control', 'bpf-prog', 'bpf-attr-map', 'pfm-events', 'cputype', 'topdown-level',
  ],
  flags: [
    'all-cpus', 'no-inherit', 'null', 'verbose', 'big-num', 'no-aggr', 'sync', 'scale', 'transaction', 'quiet', 'detailed', 'metric-only', 'topdown',
    'smi-cost', 'per-socket', 'per-die', 'per-core', 'per-thread', 'per-node', 'per-cache', 'per-cluster', 'interval-clear', 'table', 'json',
    'metric-no-group', 'metric-no-merge', 'metric-no-threshold', 'percore-show-thread', 'bpf-counters', 'append', 'iostat', 'no-merge', 'hybrid-merge',
  ],
};
const PERF_TRACE: OptionSpec = {
  posix: true, short: 'eoptuCmGDi', attached: 'F',
  long: [
    'event', 'expr', 'output', 'pid', 'tid', 'uid', 'cpu', 'mmap-pages', 'cgroup', 'delay', 'input', 'duration', 'call-graph', 'max-stack', 'min-stack',
    'proc-map-timeout', 'max-events', 'switch-on', 'switch-off', 'filter-pids', 'map-dump', 'comm', 'sort-events', 'perf-config',
  ],
  flags: [
    'all-cpus', 'no-inherit', 'verbose', 'summary', 'with-summary', 'time', 'force', 'syscalls', 'failure', 'kernel-syscall-graph', 'errno-summary',
    'print-sample', 'tool_stats', 'no-syscalls', 'sched', 'show-on-off-events', 'summary-mode', 'pf', 'bpf-summary',
  ],
};
/** perf tools whose `record` is perf record's (they add options of their own before it, `perf mem -t load record`). */
const PERF_RECORDERS = ['sched', 'lock', 'mem', 'c2c', 'kmem', 'kwork', 'timechart', 'kvm'];

/** `perf [G] record|stat|trace [O] [--] CMD…`, `perf stat record CMD…`, `perf sched record CMD…`, `perf ftrace [trace] CMD…`. */
function perf(args: readonly Arg[]): ProfiledRun {
  const g = parseOptions(args, PERF_GLOBAL).operands;
  const name = sub(g, 0);
  let words = g.slice(1);
  let spec: OptionSpec | null = name === 'record' ? PERF_RECORD : name === 'stat' ? PERF_STAT : name === 'trace' ? PERF_TRACE : null;
  if (name === 'ftrace') return runs(parseOptions(sub(words, 0) === 'trace' ? words.slice(1) : words, { posix: true, short: 'tpCDFNGgaTLm', long: ['tracer', 'pid', 'cpu', 'delay', 'funcs', 'notrace-funcs', 'graph-funcs', 'nograph-funcs', 'graph-opts', 'func-opts', 'buffer-size'] }).operands);
  if (spec === null && PERF_RECORDERS.includes(name)) {
    // the tool's own options come before `record`; what follows is read as perf record reads it
    const at = words.findIndex((a) => literal(a.v) === 'record');
    if (at < 0) return NONE;
    words = words.slice(at + 1);
    spec = PERF_RECORD;
  }
  if (spec === null) return NONE;
  let p = parseOptions(words, spec);
  // `perf stat record [O] CMD…` records; `perf stat report` runs nothing
  if (name === 'stat' && sub(p.operands, 0) === 'report') return NONE;
  if (name === 'stat' && sub(p.operands, 0) === 'record') p = parseOptions(p.operands.slice(1), PERF_STAT);
  if (name === 'trace' && sub(p.operands, 0) === 'record') p = parseOptions(p.operands.slice(1), PERF_RECORD);
  return runs(p.operands);
}

/** rr's global options, and record's (RecordCommand.cc); a first word no sub-command names is recorded (`rr CMD`). */
const RR_GLOBAL: OptionSpec = { posix: true, short: 'ACDT', long: ['microarch', 'checksum', 'dump-on', 'dump-at', 'resource-path', 'log'] };
const RR_RECORD: OptionSpec = {
  posix: true, short: 'cipotv',
  long: [
    'num-cpu-ticks', 'ignore-signal', 'print-trace-dir', 'output-trace-dir', 'continue-through-signal', 'env', 'syscall-buffer-size',
    'syscall-buffer-sig', 'nested', 'bind-to-cpu', 'disable-cpuid-features', 'disable-cpuid-features-ext', 'disable-cpuid-features-xsave', 'num-cores',
    'ignore-error', 'tracee-fd',
  ],
  flags: [
    'no-read-cloning', 'no-file-cloning', 'scarce-fds', 'setuid-sudo', 'stap-sdt', 'unmap-vdso', 'disable-avx-512', 'asan', 'tsan', 'chaos',
    'no-syscall-buffer', 'always-switch', 'cpu-unbound', 'wait', 'wait-all', 'force-syscall-buffer', 'ignore-nested', 'intel-pt', 'check-outside-mmaps',
  ],
};
/** rr's sub-commands that run no new command (`rr replay` re-runs a recording). */
const RR_OTHER = ['replay', 'dump', 'ps', 'pack', 'sources', 'traceinfo', 'buildid', 'cpufeatures', 'gdbinit', 'lldbinit', 'ls', 'rm', 'mv', 'help', 'explain', 'rerecord'];

function rr(args: readonly Arg[]): ProfiledRun {
  const g = parseOptions(args, RR_GLOBAL).operands;
  const name = sub(g, 0);
  if (RR_OTHER.includes(name) || g.length === 0) return NONE;
  return runs(parseOptions(name === 'record' ? g.slice(1) : g, RR_RECORD).operands);
}

/**
 * `gdbserver [--OPT…] COMM PROG ARGS…`: options are `--name` or `--name=value` but `--wrapper WRAPPER… --`, which runs
 * PROG; `--attach` names a process instead. PROG starts through the shell, its arguments escaped but with `--no-escape-args`.
 */
function gdbserver(args: readonly Arg[]): ProfiledRun {
  const wrapper: Arg[] = [];
  let raw = false;
  let i = 0;
  for (; i < args.length; i++) {
    const w = literal(args[i]!.v) ?? '';
    if (!w.startsWith('--') || w === '--') break;
    if (w === '--attach') return NONE;
    if (w === '--no-escape-args') raw = true;
    if (w === '--wrapper') while (++i < args.length && args[i]!.v !== '--') wrapper.push(args[i]!);
  }
  const [, prog, ...rest] = args.slice(args[i]?.v === '--' ? i + 1 : i);
  if (!prog) return NONE;
  if (raw) return { rest: [], code: [...wrapper, prog, ...rest].map((a) => plain(a.v)).join(' ') };
  return runs([...wrapper, prog, ...rest]);
}

/** py-spy record|top: the command after `--` (or after the options). */
const PY_SPY: OptionSpec = { posix: true, short: 'pofdr', long: ['pid', 'output', 'format', 'duration', 'rate', 'delay'], flags: ['subprocesses', 'native', 'nonblocking', 'gil', 'idle', 'threads', 'function', 'nolineno', 'full-filenames', 'hideprogress'] };
function pySpy(args: readonly Arg[]): ProfiledRun {
  if (!['record', 'top'].includes(sub(args, 0))) return NONE;
  return runs(parseOptions(args.slice(1), PY_SPY).operands);
}

/**
 * bpftrace -c 'CMD ARGS': the string split at blanks, without a shell (child.cpp). `-d` is left a flag: where it
 * takes a value, that value is then an operand, and `-c` is still found.
 */
const BPFTRACE: OptionSpec = { short: 'BfoepcI', long: ['include'], flags: ['usdt-file-activation', 'dry-run', 'unsafe', 'info', 'no-warnings', 'btf'] };
function bpftrace(args: readonly Arg[]): ProfiledRun {
  const c = valueOf(parseOptions(args, BPFTRACE), 'c');
  if (!c) return NONE;
  // each word keeps what the value was made of: `-c "$CMD"` is a program not known
  return runs(c.v.split(/\s+/).filter((s) => s !== '').map((v): Arg => ({ v, info: c.info })));
}

/** `memray run [O] [-c|-m] ARGS…`: ARGS are Python's (a script, `-m MODULE`, `-c CODE`), run as `python` runs them. */
const MEMRAY_RUN: OptionSpec = { posix: true, short: 'op', long: ['output', 'live-port'], flags: ['live', 'live-remote', 'native', 'follow-fork', 'trace-python-allocators', 'aggregate', 'quiet', 'force', 'no-compress'] };
function memray(args: readonly Arg[]): ProfiledRun {
  if (sub(args, 0) !== 'run') return NONE;
  const p = parseOptions(args.slice(1), MEMRAY_RUN);
  if (p.operands.length === 0) return NONE;
  const how = has(p, 'c') ? [word('-c')] : has(p, 'm') ? [word('-m')] : [];
  return runs([word('python'), ...how, ...p.operands]);
}

/** austin and heaptrack: options, then the command; `heaptrack -a FILE` only analyses a recording. */
export const AUSTIN: OptionSpec = { posix: true, short: 'iotpwx', long: ['interval', 'output', 'timeout', 'pid', 'where', 'exposure'] };
export const HEAPTRACK: OptionSpec = { posix: true, short: 'opa', long: ['output', 'pid', 'analyze'] };

/** uftrace: `record` and `live` (the default when the first word names none) run the command after their options. */
const UFTRACE: OptionSpec = {
  posix: true, short: 'FNTtDLbdARPUZECSWHfKrsp',
  long: [
    'filter', 'notrace', 'trigger', 'time-filter', 'depth', 'library-path', 'buffer', 'data', 'argument', 'retval', 'patch', 'unpatch', 'size-filter',
    'event', 'caller-filter', 'script', 'watch', 'hide', 'output-fields', 'kernel-depth', 'time-range', 'sort', 'pid', 'match', 'signal', 'max-stack',
    'num-thread', 'logfile', 'color', 'demangle', 'rt-prio', 'clock', 'tid', 'column-offset', 'sample-time', 'host', 'port', 'opt-file', 'with-syms',
    'loc-filter', 'auto-args',
  ],
};
const UFTRACE_OTHER = ['replay', 'report', 'info', 'dump', 'graph', 'script', 'tui', 'recv'];
function uftrace(args: readonly Arg[]): ProfiledRun {
  let p = parseOptions(args, UFTRACE);
  const name = sub(p.operands, 0);
  if (UFTRACE_OTHER.includes(name)) return NONE;
  if (name === 'record' || name === 'live') p = parseOptions(p.operands.slice(1), UFTRACE);
  return runs(p.operands);
}

/**
 * hyperfine: every operand is a command run through a shell (or split with `-N`: judged as code all the same), and so
 * are --setup, --prepare, --conclude, --cleanup and --reference; `{NAME}` takes each value of `-L NAME A,B`, and one
 * not known for `-P NAME MIN MAX`.
 */
const HYPERFINE: OptionSpec = {
  short: 'wmMrspcDSun',
  long: [
    'warmup', 'min-runs', 'max-runs', 'runs', 'setup', 'prepare', 'conclude', 'cleanup', 'parameter-scan', 'parameter-step-size', 'parameter-list',
    'shell', 'style', 'sort', 'time-unit', 'export-asciidoc', 'export-csv', 'export-json', 'export-markdown', 'export-orgmode', 'output', 'input',
    'reference', 'reference-name', 'command-name', 'min-benchmarking-time',
  ],
  flags: ['ignore-failure', 'show-output', 'help', 'version', 'debug-mode', 'no-shell'],
  arity: { 'parameter-scan': 3, 'parameter-list': 2 },
};
const HYPERFINE_CODE = ['s', 'setup', 'p', 'prepare', 'c', 'cleanup', 'conclude', 'reference'];
const MAX_RUNS = 16;
function hyperfine(args: readonly Arg[]): ProfiledRun {
  // -P VAR MIN MAX and -L VAR LIST take several words, as their long forms do
  const words = args.map((a) => (a.v === '-P' ? word('--parameter-scan', a) : a.v === '-L' ? word('--parameter-list', a) : a));
  const p = parseOptions(words, HYPERFINE);
  let codes = [...p.opts.filter((o) => HYPERFINE_CODE.includes(o.name) && o.value).map((o) => o.value!), ...p.operands].map((a) => plain(a.v));
  for (const o of p.opts) {
    if ((o.name !== 'parameter-scan' && o.name !== 'parameter-list') || !o.value) continue;
    const at = words.indexOf(o.value);
    const list = o.name === 'parameter-list' ? literal(words[at + 1]?.v ?? '') : null;
    const values = list === null ? [UNKNOWN] : list.split(',');
    const name = `{${plain(o.value.v)}}`;
    codes = codes.flatMap((c) => (c.includes(name) ? values.map((v) => c.split(name).join(v)) : [c])).slice(0, MAX_RUNS);
  }
  return { rest: [], code: codes.length > 0 ? codes.join('\n') : null };
}

const PROFILERS: Readonly<Record<string, (args: readonly Arg[]) => ProfiledRun>> = {
  perf, rr, gdbserver, 'py-spy': pySpy, bpftrace, memray, uftrace, hyperfine,
  austin: (args) => runs(parseOptions(args, AUSTIN).operands),
  heaptrack: (args) => { const p = parseOptions(args, HEAPTRACK); return has(p, 'a', 'analyze') ? NONE : runs(p.operands); },
};

/** What a profiler on this line runs; null when `name` is none of them. */
export function profiledRun(name: string, args: readonly Arg[]): ProfiledRun | null {
  const f = PROFILERS[name];
  return f ? f(args) : null;
}
