import type { ShellCase } from './cases-deny.ts';
import { ATTACH, COMPUTED, INLINE, RR } from './rule-ids.ts';

const allow = (list: readonly string[]): ShellCase[] => list.map((c): ShellCase => [c, 'allow']);
const denyRoot = (list: readonly string[]): ShellCase[] => list.map((c): ShellCase => [c, 'deny', RR]);

/**
 * Profilers, recorders and benchmark tools start the command they are given (review: each hid `rm -rf /`): perf
 * record/stat/trace (and the tools whose `record` is perf record's), rr (whose default sub-command is record),
 * gdbserver COMM PROG, py-spy record/top, bpftrace -c, austin, heaptrack, uftrace, hyperfine's shell commands, chronic,
 * and `time -v` where time is no keyword. Their options with values before the command, `--`, wrappers, quoting.
 */
export const PROFILED_COMMANDS: readonly ShellCase[] = denyRoot([
  // perf
  'perf record rm -rf /', 'perf stat rm -rf /', 'perf trace rm -rf /', 'perf record -- rm -rf /', 'perf record -o x.data rm -rf /',
  'perf stat -e cycles rm -rf /', 'perf trace -e open rm -rf /', 'perf record -g rm -rf /', 'perf record -F 99 -g -- rm -rf /',
  'perf record --call-graph dwarf rm -rf /', 'perf record --call-graph=dwarf -o /tmp/p.data rm -rf /', 'perf record -e cycles -c 1000 rm -rf /',
  'perf record -I rm -rf /', 'perf record --switch-output rm -rf /', 'perf stat -r 5 rm -rf /', 'perf stat -x , -e cycles rm -rf /',
  'perf stat -d -d rm -rf /', 'perf stat record rm -rf /', 'perf stat record -o x rm -rf /', 'perf trace -F rm -rf /', 'perf trace record rm -rf /',
  'perf --no-pager record rm -rf /', 'perf --debug verbose=1 stat rm -rf /', 'perf sched record rm -rf /', 'perf mem record rm -rf /',
  'perf c2c record -- rm -rf /', 'perf ftrace rm -rf /', 'perf ftrace trace -t function_graph rm -rf /', 'sudo perf record -a -g -- rm -rf /',
  "'perf' \"record\" rm -rf /", 'timeout 60 perf stat -- rm -rf /', "bash -c 'perf record -g rm -rf /'",
  // rr: record, and a first word that names no sub-command
  'rr record rm -rf /', 'rr record -n rm -rf /', 'rr record --chaos -o /tmp/t rm -rf /', 'rr -M record rm -rf /', 'rr /bin/rm -rf /',
  'rr -A intel record rm -rf /', 'rr record -v FOO=1 rm -rf /', 'rr record --env=FOO=1 -- rm -rf /', 'env rr record rm -rf /',
  // gdbserver COMM PROG ARGS, its --wrapper command, and its arguments unescaped through the shell
  'gdbserver :1234 rm -rf /', 'gdbserver --once localhost:1 rm -rf /', 'gdbserver - rm -rf /', 'gdbserver stdio rm -rf /',
  'gdbserver --multi :1 rm -rf /', 'gdbserver --debug --remote-debug :1 rm -rf /', 'gdbserver --wrapper env FOO=1 -- :1 rm -rf /',
  'gdbserver --wrapper rm -rf / -- :1 ./prog', "gdbserver --no-escape-args :1 ./prog ';' rm -rf /", 'sudo gdbserver :2345 /bin/rm -rf /',
  // py-spy, bpftrace (-c split at blanks), austin, heaptrack, uftrace
  'py-spy record -- rm -rf /', 'py-spy top -- rm -rf /', 'py-spy record -o x.svg -- rm -rf /', 'py-spy record --rate 100 -o x.svg rm -rf /',
  'py-spy top -r 10 -- rm -rf /', 'py-spy record --subprocesses -- rm -rf /', "bpftrace -c 'rm -rf /' -e 'BEGIN{}'", "bpftrace -e 'BEGIN{}' -c 'rm -rf /'",
  "bpftrace -c '/bin/rm -rf /' trace.bt", "bpftrace -d -c 'rm -rf /' x.bt", "bpftrace -o out.txt -c 'rm -rf /' x.bt", 'austin rm -rf /',
  'austin -i 100 rm -rf /', 'austin -o x -C rm -rf /', 'heaptrack rm -rf /', 'heaptrack -o x rm -rf /', 'heaptrack --record-only rm -rf /',
  'uftrace rm -rf /', 'uftrace record rm -rf /', 'uftrace -F main rm -rf /', 'uftrace live -D 3 rm -rf /', 'uftrace record -d /tmp/x -- rm -rf /',
  // hyperfine: operands and --setup/--prepare/--cleanup/--conclude/--reference are shell code; -L values fill {NAME}
  "hyperfine 'rm -rf /'", "hyperfine -w 3 'rm -rf /'", "hyperfine --prepare 'rm -rf /' 'ls'", "hyperfine -s 'rm -rf /' ls", "hyperfine -c 'rm -rf /' ls",
  "hyperfine --conclude 'rm -rf /' ls", "hyperfine ls --reference 'rm -rf /'", "hyperfine -N 'rm -rf /'", "hyperfine -P n 1 3 'rm -rf /{n}'",
  "hyperfine -L d /,/tmp 'rm -rf {d}'", "hyperfine --parameter-list d /,/tmp 'rm -rf {d}'", "hyperfine 'ls' 'rm -rf /'",
  // chronic; time -v (dash has no time keyword: /usr/bin/time runs the command)
  'chronic rm -rf /', 'chronic -e rm -rf /', 'sudo chronic rm -rf /', 'time -v rm -rf /', 'time -f %e -o x rm -rf /',
  // nested: a profiler under a profiler, a shell under one
  'perf stat rr record rm -rf /', "perf stat bash -c 'rm -rf /'", "py-spy record -- sh -c 'rm -rf /'", "rr sh -c 'rm -rf /'",
  'chronic perf record -- gdbserver - rm -rf /',
]);

/**
 * gdb commands that run a shell: `target remote | CMD` and `target extended-remote | CMD` (gdb starts CMD with /bin/sh -c),
 * prefixes of shell and pipe; and debugger commands a static echo, printf, heredoc or here-string feeds gdb or lldb on
 * stdin, read as from a command file.
 */
export const DEBUGGER_SHELLS: readonly ShellCase[] = [
  ...denyRoot([
    "gdb -batch -ex 'target remote | rm -rf /'", "gdb -batch -ex 'target extended-remote | rm -rf /'", "gdb -ex 'tar rem | rm -rf /'",
    "gdb -ex 'target remote |rm -rf /'", "gdb -batch -iex 'target extended-remote | ssh h gdbserver - ./a; rm -rf /'",
    "gdb -ex 'target remote | gdbserver - rm -rf /'", "gdb -ex 'she rm -rf /'", "gdb -ex 'pip bt | rm -rf /'",
    "echo 'shell rm -rf /' | gdb -q", "printf 'shell rm -rf /\\n' | gdb -q ./prog", "gdb -q <<'EOF'\nrun\nshell rm -rf /\nEOF", "gdb -q <<< '!rm -rf /'",
    "echo 'platform shell rm -rf /' | lldb", "echo 'shell rm -rf /' | sudo gdb", "echo 'target remote | rm -rf /' | gdb -q ./prog",
  ]),
  ["echo 'python import os' | gdb -q", 'ask', INLINE],
  ["echo 'attach 1' | gdb", 'ask', ATTACH],
  ["printf 'process attach -p 1\\n' | lldb", 'ask', ATTACH],
];

/** What profilers run besides commands: Python code under memray, a process heaptrack attaches to, a command not known. */
export const PROFILER_CODE: readonly ShellCase[] = [
  ["memray run -c 'import os; os.system(\"rm -rf /\")'", 'ask', INLINE],
  ['heaptrack -p 1', 'ask', ATTACH],
  ['heaptrack --pid $(pgrep node)', 'ask', ATTACH],
  ["gdbserver --no-escape-args :1 sh -c 'rm -rf /'", 'ask', INLINE],
  ['bpftrace -c "$CMD" x.bt', 'ask', COMPUTED],
  ['perf record -- $CMD', 'ask', COMPUTED],
];

/** Look-alikes: profiled programs of the workspace, sub-commands that run nothing, remote targets that are addresses. */
export const PROFILER_LOOKALIKES: readonly ShellCase[] = allow([
  'perf stat ls', 'perf record -g ./prog', 'perf report', 'perf report -i perf.data', 'perf script', 'perf annotate', 'perf list', 'perf top',
  'perf record -o perf.data -- ./prog -t 5', 'perf stat -e cycles -r 3 make', 'perf trace ls', 'perf stat report', 'perf sched latency',
  'perf mem report', 'perf record -- rm -f ./tmpfile', 'rr replay', 'rr replay -a', 'rr ps', 'rr record ./prog', 'rr ./prog arg', 'rr pack',
  'rr ls', 'rr rm old-trace', 'rr', 'gdbserver :1234 ./prog', 'gdbserver --once :1234 ./prog arg', 'gdbserver --multi :1234', 'gdbserver --version',
  'valgrind ./prog', 'valgrind --leak-check=full ./prog', 'py-spy record -o out.svg -- python app.py', 'py-spy top -- python app.py', 'py-spy --version',
  "bpftrace -e 'BEGIN { exit(); }'", 'bpftrace -c ./prog x.bt', 'bpftrace -l', 'memray run app.py', 'memray run -m http.server', 'memray flamegraph out.bin',
  'austin python app.py', 'heaptrack ./prog', 'heaptrack -a heaptrack.prog.1.zst', 'heaptrack --analyze x.zst', 'uftrace ./a.out', 'uftrace record ./a.out',
  'uftrace replay', 'uftrace report -s total', 'uftrace tui', "hyperfine 'sleep 0.1'", "hyperfine -w 2 'make' 'make -j4'", "hyperfine -P n 1 3 'sleep {n}'",
  "hyperfine -L d a,b 'echo {d}'", 'chronic make', 'time ls -la', 'time -p make', 'time -v ./prog',
  "gdb -batch -ex 'target remote :1234' ./prog", "gdb -ex 'target remote localhost:1234' ./prog", "gdb -ex 'target extended-remote host:1' ./prog",
  "gdb -ex 'info target' ./prog", "gdb -ex 'target remote | gdbserver - ./prog' ./prog", "gdb -ex 'shell ls' ./prog", 'echo run | gdb -q ./prog',
  "echo 'bt' | gdb -q ./prog core", "printf 'run\\nbt\\n' | gdb ./prog", "echo 'shell ls' | gdb -q", "echo 'target remote | rm -rf /' > notes.txt",
  "echo 'shell rm -rf /' | cat", "echo 'attach 1' > notes.txt",
]);
