import type { ShellCase } from './cases-deny.ts';
import { ATTACH, COMPUTED, CRED, RH, RR, UNSEEN } from './rule-ids.ts';

const allow = (list: readonly string[]): ShellCase[] => list.map((c): ShellCase => [c, 'allow']);
const attach = (list: readonly string[]): ShellCase[] => list.map((c): ShellCase => [c, 'ask', ATTACH]);
const denyRoot = (list: readonly string[]): ShellCase[] => list.map((c): ShellCase => [c, 'deny', RR]);
const DISRUPT = 'shell.service.disruptive';

/**
 * SIGUSR1 opens a node process's inspector, whoever delivers it: a unit's, session's or container's manager
 * (`systemctl kill`, `loginctl kill-user`, `docker kill`, `podman kill`, compose), procps skill, and SIGUSR1 by number
 * on any platform node runs on (10 Linux, 30 macOS and the BSDs, 16 illumos). `timeout -s USR1` signals only the
 * command it starts, which could as well run with `node --inspect`: allowed.
 */
export const SIGNAL_DELIVERY: readonly ShellCase[] = [
  ...attach([
    'systemctl kill -s USR1 echo-agent', 'systemctl kill --signal=SIGUSR1 echo-agent.service', 'systemctl kill --kill-whom=main -s USR1 app',
    'systemctl kill --kill-who=all --signal=SIGUSR1 app', 'systemctl --user kill --signal USR1 app', 'systemctl -s 10 kill app', 'sudo systemctl kill -s usr1 app',
    'docker kill --signal USR1 c1', 'docker kill -s USR1 c1', 'docker kill --signal=SIGUSR1 c1', 'docker kill c1 -s 10', 'docker container kill -s USR1 c1',
    'docker -H unix:///run/docker.sock kill -s USR1 c1', 'docker compose kill -s SIGUSR1 web', 'docker compose -f dev.yml kill -s USR1', 'docker-compose kill -s USR1 web',
    'podman kill -s USR1 c1', 'podman kill --signal USR1 c1', 'podman pod kill -s USR1 p1', 'nerdctl kill -s USR1 c1', 'sudo docker kill -s USR1 c1',
    'loginctl kill-user --signal=SIGUSR1 agent', 'loginctl kill-session -s USR1 3', 'machinectl kill --signal=USR1 box', 'skill -USR1 node', 'skill -10 -u agent',
    'kill -010 1234', 'kill -s +10 1234', 'kill -30 1234', 'kill -s 30 1234', 'kill -16 1234', 'pkill -30 node', 'killall -30 node', 'killall -s 30 node',
    // read before this round, kept
    'kill -s SIGUSR1 1234', 'kill --signal USR1 1234', '/bin/kill -USR1 1234', '/usr/bin/kill -s USR1 1234', 'env kill -USR1 1234', 'kill -10 1234', 'kill -s 10 1234',
    'pkill -10 node',
  ]),
  ['systemctl kill -s HUP nginx', 'ask', DISRUPT], ['systemctl kill nginx', 'ask', DISRUPT],
  ...allow([
    'kill -HUP 123', 'kill -s HUP 123', 'kill -12 123', 'kill -15 1234', 'kill -s 0x0a 1234', 'pkill -10 dd', 'killall -30 nginx', 'docker kill c1',
    'docker kill -s HUP c1', 'docker kill --signal=SIGTERM c1', 'docker compose kill web', 'podman kill c1', 'docker ps', 'loginctl kill-user --signal=HUP agent',
    'loginctl list-sessions', 'machinectl kill box', 'skill -HUP -c nginx', 'timeout -s USR1 5 node app.js', 'timeout --signal=SIGUSR1 10 ./server',
    'busybox timeout -s USR1 5 node x.js',
  ]),
];

/**
 * `uftrace --opt-file FILE` reads more options from FILE (`--run-cmd` among them) and the command when the line names
 * none (uftrace.c parse_opt_file): settings the guard cannot see. An analysis sub-command on the line keeps its mode.
 */
export const UFTRACE_OPT_FILES: readonly ShellCase[] = [
  ...[
    'uftrace --opt-file opts.txt', 'uftrace --opt-file=opts.txt ./a.out', 'uftrace record --opt-file opts.txt ./a.out', 'uftrace live --opt-file opts ./a.out',
    'uftrace recv --opt-file opts.txt', 'uftrace --opt opts.txt ./a.out', 'uftrace -F main --opt-file=o.txt',
  ].map((c): ShellCase => [c, 'ask', UNSEEN]),
  ...denyRoot(['uftrace --opt-file opts.txt rm -rf /']),
  ...allow(['uftrace replay --opt-file opts.txt', 'uftrace report --opt-file=opts.txt', 'uftrace dump --opt-file opts.txt', 'uftrace record ./a.out']),
];

/**
 * The program a debugger's `run` starts: gdb's `-e`/`--exec`/`-se PROG` and `file`/`exec-file PROG` commands; lldb's
 * target (`lldb PROG ARGS`, `-f PROG -- ARGS`, `target create PROG`, `file PROG`) launched by `process launch [--] ARGS`,
 * `run ARGS` or `settings set target.run-args ARGS`, its `-o FILE` a redirection. Several gdb programs: not known.
 */
export const DEBUGGER_PROGRAMS: readonly ShellCase[] = [
  ...denyRoot([
    "gdb -batch -ex 'run -rf /' -e /bin/rm", "gdb -batch --exec=/bin/rm -ex 'run -rf /'", "gdb -batch -se /bin/rm -ex 'run -rf /'",
    "gdb -batch -ex 'file /bin/rm' -ex 'run -rf /'", "gdb -batch -ex 'exec-file /bin/rm' -ex 'r -rf /'", "gdb -batch -ex \"file '/bin/rm'\" -ex 'run -rf /'",
    "gdb -ex 'set args -rf /' -ex run -e /bin/rm", "gdb --eval-command='file /bin/rm' -ex 'run -rf /'", "gdb -iex 'file /bin/rm' -ex 'run -rf /'",
    "lldb /bin/rm -o 'process launch -- -rf /'", "lldb -f /bin/rm -o 'process launch -- -rf /'", "lldb --one-line 'process launch -- -rf /' /bin/rm",
    "lldb -o 'pro la -s -- -rf /' -- /bin/rm", "lldb -o 'target create /bin/rm' -o 'process launch -- -rf /'", "lldb -o 'file /bin/rm' -o 'process launch -- -rf /'",
    "lldb -b -o 'r -rf /' /bin/rm", "lldb -o 'settings set target.run-args -rf /' -o run /bin/rm", 'lldb -f /bin/rm -- -rf /', 'rust-lldb -- rm -rf /',
    "lldb -o 'process launch -- $(rm -rf /)' ./prog",
  ]),
  ["lldb -o 'process launch -- -rf ~' /bin/rm", 'deny', RH],
  ["gdb -batch -ex 'file /bin/ls' -ex 'run -rf /' /bin/rm", 'ask', COMPUTED],
  ["lldb -o 'process launch -- -rf /' -f \"$P\"", 'ask', COMPUTED],
  ["lldb -o 'process launch -o ~/.bashrc -- hi' /bin/echo", 'ask', CRED], ["lldb -o 'process launch --stdout=/home/u/.bashrc' /bin/echo", 'ask', CRED],
  ...allow([
    "gdb -batch -ex 'run -la' -e /bin/ls", "gdb -batch -ex 'file ./prog' -ex 'run a b'", 'gdb -e ./prog -ex run', 'gdb -batch -e ./prog -c core',
    "gdb -ex 'file ./prog' -ex 'run x' ./prog", "lldb -o 'process launch -- a b' ./prog", "lldb -o 'process launch' ./prog",
    "lldb -o 'process launch -w /tmp -- x' ./prog", 'lldb ./prog', 'lldb -c core ./prog', "lldb -o 'target create ./prog' -o 'process launch -- --verbose'",
    "lldb -o 'process launch -o out.txt -- a' ./prog",
  ]),
];

/** systemctl's verb after the options systemd's getopt table gives a value (-C, --legend, --check-inhibitors, --image…), and -T, which takes none. */
export const SYSTEMCTL_OPTIONS: readonly ShellCase[] = [
  ['systemctl -T poweroff', 'deny', 'shell.system.power'],
  ['systemctl -T stop sshd', 'ask', 'shell.service.disruptive'],
  ['systemctl --show-transaction restart nginx', 'ask', 'shell.service.disruptive'],
  ['systemctl --check-inhibitors no poweroff', 'deny', 'shell.system.power'],
  ['systemctl --check-inhibitors=no reboot', 'deny', 'shell.system.power'],
  ['systemctl --legend no stop sshd', 'ask', 'shell.service.disruptive'],
  ['systemctl --image x stop sshd', 'ask', 'shell.service.disruptive'],
  ['systemctl --image-policy x stop sshd', 'ask', 'shell.service.disruptive'],
  ['systemctl --preset-mode full stop sshd', 'ask', 'shell.service.disruptive'],
  ['systemctl --boot-loader-menu 5 reboot', 'deny', 'shell.system.power'],
  ['systemctl -C x stop sshd', 'ask', 'shell.service.disruptive'],
  ['systemctl --capsule x stop sshd', 'ask', 'shell.service.disruptive'],
  ['systemctl --kill-who all kill sshd', 'ask', 'shell.service.disruptive'],
  // an option this build does not know may take a value: the word after it is judged as a verb too
  ['systemctl --not-yet-invented x stop sshd', 'ask', 'shell.service.disruptive'],
  ['systemctl --not-yet-invented x poweroff', 'deny', 'shell.system.power'],
  ['systemctl -T status sshd', 'allow'],
  ['systemctl --legend no list-units', 'allow'],
  ['systemctl --check-inhibitors no status poweroff.target', 'allow'],
  ['systemctl --not-yet-invented status sshd', 'allow'],
];
