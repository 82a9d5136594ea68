import { DEBUGGERS } from './debuggers.ts';
import type { OptionSpec } from './flags.ts';
import type { Arg } from './model.ts';
import { AUSTIN, HEAPTRACK } from './profilers.ts';
import { showArg } from './shell-state.ts';
import { literal } from './values.ts';
import { WRAPPERS } from './wrapper-tables.ts';

/** Programs that attach to a running process (tracers, profilers, stack dumpers, injectors) and how their command lines say so. */

export interface AttachSpec {
  /** How its options are spelled (after the sub-command, when it has them). */
  readonly spec?: OptionSpec;
  /** Options that name a running process (`-p PID`, `--attach-name NAME`). */
  readonly options?: readonly string[];
  /** Operands that name one: any operand, or one that may be a process id (digits, or not known). */
  readonly operands?: 'any' | 'pid';
  /** Options with which the operands are a program it starts instead (`frida -f PROG`). */
  readonly spawns?: readonly string[];
  /** Only under these sub-commands (`perf record`, `py-spy dump`), found after options spelled as `globals`. */
  readonly subcommands?: readonly string[];
  readonly globals?: OptionSpec;
  /** Forms no table says (`gdbserver --attach`, `node inspect -p`): what attaches, or null. */
  readonly other?: (args: readonly Arg[]) => string | null;
  /** A dump of the attached process's memory to a file (a heap dump): what dumps, or null. */
  readonly dumps?: (args: readonly Arg[]) => string | null;
}

/** perf's value options across record, top, trace and stat (a letter that takes none in one of them is read as one that does). */
const PERF: OptionSpec = {
  posix: true, short: 'eptrCcoFmGDujkdfEsMwixIb', attached: 'zS',
  long: [
    'event', 'filter', 'pid', 'tid', 'realtime', 'cpu', 'count', 'output', 'freq', 'mmap-pages', 'mmap-flush', 'call-graph', 'cgroup', 'delay', 'uid',
    'branch-filter', 'clockid', 'proc-map-timeout', 'clang-path', 'clang-opt', 'vmlinux', 'switch-output-event', 'switch-max-files', 'affinity',
    'max-size', 'num-thread-synthesize', 'pfm-events', 'control', 'synth', 'kallsyms', 'count-filter', 'sym-annotate', 'entries', 'sort', 'fields',
    'max-stack', 'min-stack', 'ignore-callees', 'dsos', 'comms', 'symbols', 'objdump', 'disassembler-style', 'prefix', 'prefix-strip', 'percent-limit',
    'percentage', 'column-widths', 'group-sort-idx', 'expr', 'input', 'filter-pids', 'duration', 'repeat', 'field-separator', 'interval-print',
    'interval-count', 'metrics', 'post', 'pre', 'log-fd', 'for-each-cgroup', 'bpf-prog', 'timeout', 'max-events', 'switch-on', 'switch-off',
  ],
};
/** Java's attach tools; `jmap -dump:…`, `jcmd PID GC.heap_dump FILE`, `jattach PID dumpheap FILE` write the heap to a file. */
const JAVA: AttachSpec = { operands: 'any' };
const HEAP_DUMP = 'writes its heap to a file';
const operandAt = (args: readonly Arg[], i: number): string | null => literal(args.filter((a) => !a.v.startsWith('-'))[i]?.v ?? '');
const FRIDA: AttachSpec = {
  spec: { short: 'DHfnNpWOlPCceto', long: ['device', 'host', 'file', 'attach-name', 'attach-identifier', 'attach-pid', 'await', 'options-file', 'load', 'parameters', 'cmodule', 'codeshare', 'eval', 'timeout', 'output', 'runtime', 'realm', 'stdio', 'aux', 'certificate', 'origin', 'token'] },
  options: ['p', 'attach-pid', 'n', 'attach-name', 'N', 'attach-identifier', 'F', 'attach-frontmost'], operands: 'any', spawns: ['f', 'file'],
};

export const ATTACHERS: Readonly<Record<string, AttachSpec>> = {
  strace: { spec: WRAPPERS.strace!, options: ['p', 'attach'] },
  ltrace: { spec: WRAPPERS.ltrace!, options: ['p'] },
  // `perf -p` before the sub-command pages its output
  perf: { globals: { long: ['buildid-dir', 'debugfs-dir', 'debug'] }, subcommands: ['record', 'top', 'trace', 'stat'], spec: PERF, options: ['p', 'pid', 't', 'tid', 'u', 'uid'] },
  'py-spy': { subcommands: ['record', 'top', 'dump'], spec: { posix: true, short: 'pofdr', long: ['pid', 'output', 'format', 'duration', 'rate'] }, options: ['p', 'pid'] },
  rbspy: { subcommands: ['record', 'snapshot'], spec: { posix: true, short: 'prdfo', long: ['pid', 'rate', 'duration', 'file', 'raw-file', 'format', 'flame-min-width', 'force-version'] }, options: ['p', 'pid'] },
  // the same option tables as when they start the command they are given (profilers.ts)
  austin: { spec: AUSTIN, options: ['p', 'pid', 'w', 'where'] },
  heaptrack: { spec: HEAPTRACK, options: ['p', 'pid'] },
  'eu-stack': { spec: { short: 'pen', long: ['pid', 'core', 'executable', 'debuginfo-path', 'sysroot'] }, options: ['p', 'pid'] },
  pstack: { operands: 'pid' }, gstack: { operands: 'pid' },
  bpftrace: { spec: { short: 'BfoepcI', long: ['include'] }, options: ['p'] },
  pyrasite: { spec: { long: ['gdb-prefix', 'output'] }, operands: 'pid' },
  memray: { subcommands: ['attach'], spec: { short: 'o', long: ['output', 'method', 'duration'] }, operands: 'pid' },
  frida: FRIDA, 'frida-trace': FRIDA,
  // gdbserver takes `--attach` (exactly) among the options before COMM; `--wrapper CMD… --` runs a program
  gdbserver: {
    other: (args) => {
      for (let i = 0; i < args.length; i++) {
        if (args[i]!.v === '--wrapper') { while (++i < args.length && args[i]!.v !== '--'); continue; }
        if (!args[i]!.v.startsWith('--')) return null;
        if (args[i]!.v === '--attach') return '--attach';
      }
      return null;
    },
  },
  // node's debugger client: `node inspect -p PID` starts the inspector in a running node process (echo-agent is one), `HOST:PORT` joins one already listening
  node: { other: nodeInspect }, nodejs: { other: nodeInspect },
  jstack: JAVA, jinfo: JAVA, jcmd: { ...JAVA, dumps: (args) => (/^GC\.heap_dump$/i.test(operandAt(args, 1) ?? '') ? HEAP_DUMP : null) },
  jmap: { ...JAVA, dumps: (args) => (args.some((a) => /^-dump(?::|$)/.test(a.v)) ? HEAP_DUMP : null) },
  jattach: { ...JAVA, dumps: (args) => (operandAt(args, 1) === 'dumpheap' ? HEAP_DUMP : null) },
  jhsdb: { subcommands: ['clhsdb', 'hsdb', 'jstack', 'jmap', 'jinfo', 'jsnap', 'debugd'], spec: { long: ['pid', 'core', 'exe', 'dumpfile'], flags: ['binaryheap'] }, options: ['pid'], dumps: (args) => (args.some((a) => a.v === '--binaryheap') ? HEAP_DUMP : null) },
};

function nodeInspect(args: readonly Arg[]): string | null {
  if (args[0]?.v !== 'inspect') return null;
  if (args[1]?.v === '-p') return args.slice(1, 3).map((a) => showArg(a.v)).join(' ');
  return /^[^:\s]+:(\d+|\u0000)$/.test(args[1]?.v ?? '') ? literal(args[1]!.v) ?? 'HOST:PORT' : null;
}

/** The programs the rule looks at (a glob in program position is matched against them). */
export const ATTACH_PROGRAMS: readonly string[] = [...Object.keys(ATTACHERS), ...Object.keys(DEBUGGERS)];
