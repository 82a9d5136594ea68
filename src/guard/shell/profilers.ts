import { lldbRun } from './debugger-launch.ts';
import { has, parseOptions, valueOf, type OptionSpec } from './flags.ts';
import type { Arg } from './model.ts';
import {
  AUSTIN, BPFTRACE, DTRACE, HEAPTRACK, MEMRAY_RUN, PERF_FTRACE, PERF_GLOBAL, PERF_RECORD, PERF_RECORDERS, PERF_STAT, PERF_TOP, PERF_TRACE, PY_SPY, RR_GLOBAL,
  RR_OTHER, RR_RECORD, RR_REPLAY, UFTRACE, UFTRACE_OTHER,
} from './profiler-tables.ts';
import { UNKNOWN, display, literal, plain } from './values.ts';

/**
 * Profilers, recorders and benchmark tools that start the command they are given (`perf record CMD…`, `rr CMD…`,
 * `gdbserver COMM PROG…`, `hyperfine 'CODE'`): each read as its own parser reads it, so the command is not taken
 * for an option value, nor a value for the command (their option tables: profiler-tables.ts).
 */

/** What a profiler runs: a command line, shell code, or both empty. */
export interface ProfiledRun {
  readonly rest: readonly Arg[];
  readonly code: string | null;
  /** Settings it reads from a file the guard cannot see, which may change what runs (`uftrace --opt-file`). */
  readonly unseen?: string;
}

const NONE: ProfiledRun = { rest: [], code: null };
const word = (v: string, from?: Arg): Arg => ({ v, info: { computed: false, ansi: false, quoted: false, inner: [], raw: from?.info.raw ?? v } });
const runs = (rest: readonly Arg[]): ProfiledRun => ({ rest, code: null });
const sub = (args: readonly Arg[], i: number): string => literal(args[i]?.v ?? '') ?? '';

/** Where a perf command line's options are and how they are spelled, segment by segment (`perf stat [O] record [O] CMD…`). */
export interface PerfSegment {
  readonly spec: OptionSpec;
  readonly words: readonly Arg[];
}
const PERF_SUBCOMMANDS: Readonly<Record<string, OptionSpec>> = { record: PERF_RECORD, stat: PERF_STAT, trace: PERF_TRACE, top: PERF_TOP, ftrace: PERF_FTRACE };

/**
 * `perf [G] record|stat|trace|top [O] [--] CMD…`, `perf stat record CMD…`, `perf sched record CMD…`, `perf ftrace [trace] CMD…`:
 * the segments whose options perf reads (the last one's operands are the command), and whether that command runs; null for others.
 */
export function perfLine(args: readonly Arg[]): { segments: readonly PerfSegment[]; runs: boolean } | null {
  const g = parseOptions(args, PERF_GLOBAL).operands;
  let name = sub(g, 0);
  let words: readonly Arg[] = g.slice(1);
  if (name === 'ftrace' && sub(words, 0) === 'trace') words = words.slice(1);
  if (PERF_RECORDERS.includes(name)) {
    // the tool's own options come before `record`; what follows is read as perf record reads it
    const at = words.findIndex((a) => literal(a.v) === 'record');
    if (at < 0) return null;
    [name, words] = ['record', words.slice(at + 1)];
  }
  const spec = Object.hasOwn(PERF_SUBCOMMANDS, name) ? PERF_SUBCOMMANDS[name]! : null;
  if (spec === null) return null;
  if (name === 'trace') words = pageFaults(words);
  const first: PerfSegment = { spec, words };
  const next = sub(parseOptions(words, spec).operands, 0);
  // `perf stat record [O] CMD…` and `perf trace record [O] CMD…` record; `perf stat report` runs nothing
  if (name === 'stat' && next === 'report') return null;
  if ((name === 'stat' || name === 'trace') && next === 'record') {
    const rest = parseOptions(words, spec).operands.slice(1);
    return { segments: [first, { spec: name === 'stat' ? PERF_STAT : PERF_RECORD, words: rest }], runs: true };
  }
  return { segments: [first], runs: name !== 'top' };
}

/**
 * `perf trace -F WORD`: -F takes the next word, and perf refuses one that is not all, maj or min and exits; such a
 * word is read as though -F took none (then the command is judged from it: stricter, as nothing would run).
 */
const PAGE_FAULTS = ['all', 'maj', 'min'];
function pageFaults(words: readonly Arg[]): readonly Arg[] {
  return words.map((a, i) => {
    const next = words[i + 1] ? literal(words[i + 1]!.v) : null;
    return (a.v === '-F' || a.v === '--pf') && next !== null && !PAGE_FAULTS.includes(next) ? word('--pf=maj', a) : a;
  });
}

function perf(args: readonly Arg[]): ProfiledRun {
  const line = perfLine(args);
  if (!line?.runs) return NONE;
  const last = line.segments[line.segments.length - 1]!;
  return runs(parseOptions(last.words, last.spec).operands);
}

function rr(args: readonly Arg[]): ProfiledRun {
  const g = parseOptions(args, RR_GLOBAL).operands;
  const name = sub(g, 0);
  if (name === 'replay') return runs(rrDebugger(g.slice(1)));
  if (RR_OTHER.includes(name) || g.length === 0) return NONE;
  // a first word no sub-command names is recorded (`rr CMD`; rr replays it if it is a trace directory)
  return runs(parseOptions(name === 'record' ? g.slice(1) : g, RR_RECORD).operands);
}

/**
 * `rr replay [O] [TRACE] [-- OPTS…]` starts a debugger (gdb, or the program `-d FILE` names) with `-o OPT`, `-x FILE`
 * and the words after `--` among its options; `-a` and `-s PORT` start none.
 */
const RR_PASSED: Readonly<Record<string, string | null>> = { o: null, 'debugger-option': null, x: '-x', 'gdb-x': '-x', i: '-i', interpreter: '-i' };
function rrDebugger(words: readonly Arg[]): Arg[] {
  const end = words.findIndex((a) => a.v === '--');
  const p = parseOptions(end < 0 ? words : words.slice(0, end), RR_REPLAY);
  if (has(p, 'a', 'autopilot', 's', 'dbgport')) return [];
  const passed = p.opts.flatMap((o): Arg[] => {
    if (o.name === 'fullname') return [o.arg];
    if (!Object.hasOwn(RR_PASSED, o.name) || !o.value) return [];
    const flag = RR_PASSED[o.name];
    return flag ? [word(flag, o.arg), o.value] : [o.value];
  });
  return [valueOf(p, 'd', 'debugger') ?? word('gdb'), ...passed, ...(end < 0 ? [] : words.slice(end + 1))];
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
function pySpy(args: readonly Arg[]): ProfiledRun {
  if (!['record', 'top'].includes(sub(args, 0))) return NONE;
  return runs(parseOptions(args.slice(1), PY_SPY).operands);
}

/** bpftrace -c 'CMD ARGS' (child.cpp) and dtrace -c 'CMD ARGS': the string split at blanks, without a shell. */
function splitCommand(spec: OptionSpec): (args: readonly Arg[]) => ProfiledRun {
  return (args) => {
    const c = valueOf(parseOptions(args, spec), 'c');
    if (!c) return NONE;
    // each word keeps what the value was made of: `-c "$CMD"` is a program not known
    return runs(c.v.split(/\s+/).filter((s) => s !== '').map((v): Arg => ({ v, info: c.info })));
  };
}

/** `memray run [O] [-c|-m] ARGS…`: ARGS are Python's (a script, `-m MODULE`, `-c CODE`), run as `python` runs them. */
function memray(args: readonly Arg[]): ProfiledRun {
  if (sub(args, 0) !== 'run') return NONE;
  const p = parseOptions(args.slice(1), MEMRAY_RUN);
  if (p.operands.length === 0) return NONE;
  const how = has(p, 'c') ? [word('-c')] : has(p, 'm') ? [word('-m')] : [];
  return runs([word('python'), ...how, ...p.operands]);
}

/**
 * uftrace: `record` and `live` (the default when the first word names none) run the command after their options; `--run-cmd CMD` runs CMD after recording (`recv` too).
 * `--opt-file FILE` reads more options from FILE (`--run-cmd` among them) and the command too when the line names
 * none (uftrace.c, parse_opt_file); the guard cannot see them: an unseen setting. An analysis
 * sub-command named on the line keeps its mode (the file's is ignored) and runs nothing.
 */
function uftrace(args: readonly Arg[]): ProfiledRun {
  const first = parseOptions(args, UFTRACE);
  const name = sub(first.operands, 0);
  const named = UFTRACE_OTHER.includes(name) || name === 'record' || name === 'live';
  const p = named ? parseOptions(first.operands.slice(1), UFTRACE) : first;
  const after = valueOf(p, 'run-cmd') ?? valueOf(first, 'run-cmd');
  const rest = UFTRACE_OTHER.includes(name) ? [] : p.operands;
  const code = after ? plain(after.v) : null;
  const file = valueOf(p, 'opt-file') ?? valueOf(first, 'opt-file');
  if (!file || (UFTRACE_OTHER.includes(name) && name !== 'recv')) return { rest, code };
  return { rest, code, unseen: `uftrace --opt-file=${display(file.v)} (options the guard cannot see, which may name the command or add --run-cmd)` };
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
  perf, rr, gdbserver, lldb: lldbRun, 'rust-lldb': lldbRun, 'py-spy': pySpy, bpftrace: splitCommand(BPFTRACE), dtrace: splitCommand(DTRACE), memray, uftrace, hyperfine,
  austin: (args) => runs(parseOptions(args, AUSTIN).operands),
  heaptrack: (args) => { const p = parseOptions(args, HEAPTRACK); return has(p, 'a', 'analyze') ? NONE : runs(p.operands); },
};

/** What a profiler on this line runs; null when `name` is none of them. */
export function profiledRun(name: string, args: readonly Arg[]): ProfiledRun | null {
  const f = PROFILERS[name];
  return f ? f(args) : null;
}
