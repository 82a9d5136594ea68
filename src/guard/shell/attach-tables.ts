import { DEBUGGERS } from './debuggers.ts';
import type { FileReader } from './embedded-code.ts';
import type { OptionSpec } from './flags.ts';
import { INSPECTOR_SIGNALS } from './inspector-signal.ts';
import type { Arg } from './model.ts';
import { AUSTIN, BPFTRACE, HEAPTRACK, PY_SPY } from './profiler-tables.ts';
import { perfLine, type PerfSegment } from './profilers.ts';
import { showArg } from './shell-state.ts';
import { bpftraceProbes, dtraceProbes, sysdigCapture } from './system-tracers.ts';
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
  /** Only under these sub-commands (`py-spy dump`), found after options spelled as `globals`. */
  readonly subcommands?: readonly string[];
  readonly globals?: OptionSpec;
  /** Where its options are read, segment by segment, when a sub-command has a table of its own (`perf stat -p 1 record`); null: none attaches. */
  readonly locate?: (args: readonly Arg[]) => readonly PerfSegment[] | null;
  /** Forms no table says (`gdbserver --attach`, `node inspect -p`, probes on every process): what attaches, or null. */
  readonly other?: (args: readonly Arg[], read: FileReader) => string | null;
  /** A dump of the attached process's memory to a file (a heap dump): what dumps, or null. */
  readonly dumps?: (args: readonly Arg[]) => string | null;
}

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
  // each perf sub-command's own table (`perf -p` before the sub-command pages its output)
  perf: { locate: (args) => perfLine(args)?.segments ?? null, options: ['p', 'pid', 't', 'tid', 'u', 'uid'] },
  'py-spy': { subcommands: ['record', 'top', 'dump'], spec: PY_SPY, options: ['p', 'pid'] },
  rbspy: { subcommands: ['record', 'snapshot'], spec: { posix: true, short: 'prdfo', long: ['pid', 'rate', 'duration', 'file', 'raw-file', 'format', 'flame-min-width', 'force-version'] }, options: ['p', 'pid'] },
  // the same option tables as when they start the command they are given (profiler-tables.ts)
  austin: { spec: AUSTIN, options: ['p', 'pid', 'w', 'where'] },
  heaptrack: { spec: HEAPTRACK, options: ['p', 'pid'] },
  'eu-stack': { spec: { short: 'pen', long: ['pid', 'core', 'executable', 'debuginfo-path', 'sysroot'] }, options: ['p', 'pid'] },
  pstack: { operands: 'pid' }, gstack: { operands: 'pid' },
  bpftrace: { spec: BPFTRACE, options: ['p'], other: bpftraceProbes },
  // tracers of the whole machine (system-tracers.ts)
  dtrace: { other: dtraceProbes }, sysdig: { other: sysdigCapture }, csysdig: { other: sysdigCapture },
  // SIGUSR1 opens a node process's inspector (inspector-signal.ts)
  ...Object.fromEntries(Object.entries(INSPECTOR_SIGNALS).map(([name, other]) => [name, { other }])),
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
