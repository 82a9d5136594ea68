import type { ShellCase } from './cases-deny.ts';
import { DETACH, RR, SEC, UNSEEN, WIPE } from './rule-ids.ts';

const allow = (list: readonly string[]): ShellCase[] => list.map((c): ShellCase => [c, 'allow']);
const denyRoot = (list: readonly string[]): ShellCase[] => list.map((c): ShellCase => [c, 'deny', RR]);
const PARTITION = 'shell.device.partition';

/**
 * sgdisk read with its own popt table: `-l FILE` loads a backup onto the disk and `-h` builds a hybrid MBR (they were
 * taken for list and help), and a print or verify beside a change does not make the change a look.
 */
export const SGDISK_OPTIONS: readonly ShellCase[] = [
  ...[
    'sgdisk -l backup.gpt /dev/sda', 'sgdisk -h 1:2 /dev/sda', 'sgdisk -n 1:0:0 -p /dev/sda', 'sgdisk -d 1 -v /dev/sda', 'sgdisk -t 1:8300 --print /dev/sda',
    'sgdisk -R /dev/sdb -p /dev/sda', 'sgdisk -A 1:set:2 -p /dev/sda', 'sgdisk -c1:boot /dev/sda', 'sgdisk --load-backup=backup.gpt /dev/sda',
  ].map((c): ShellCase => [c, 'ask', PARTITION]),
  ['sgdisk -Z /dev/sda', 'deny', WIPE], ['sgdisk --zap-all /dev/sda', 'deny', WIPE], ['sgdisk -t 1:8300 -o /dev/sda', 'deny', WIPE],
  ...allow(['sgdisk -p /dev/sda', 'sgdisk --print /dev/sda', 'sgdisk -v /dev/sda', 'sgdisk -i 1 /dev/sda', 'sgdisk -L', 'sgdisk -b /tmp/sda.gpt /dev/sda', 'sgdisk -A 1:show /dev/sda']),
];

/**
 * Wrapper tables checked against their programs' parsers: numactl's -c/--cpubind and -w/--weighted-interleave take a
 * value; chpst's programs under their own names (setuidgid, envdir, softlimit, …); screen's -h/-s/-S/-t/-T take the next
 * word with the cluster going on, and -R takes a session name and starts the command after it; proot's -p is a flag
 * in one build and takes a port map in another.
 */
export const WRAPPER_TABLES_AUDITED: readonly ShellCase[] = [
  ...denyRoot([
    'numactl -w 0 rm -rf /', 'numactl -c 0 rm -rf /', 'numactl -c0 -w 1 rm -rf /', 'setuidgid nobody rm -rf /', 'envuidgid nobody rm -rf /',
    'envdir ./env rm -rf /', 'softlimit -m 100000 rm -rf /', 'pgrphack rm -rf /', 'setlock -n /tmp/l rm -rf /', 'screen -R name rm -rf /',
    'screen -d -R name rm -rf /', 'screen -Sdm name rm -rf /', 'screen -tdm title rm -rf /', 'screen -hL 1000 rm -rf /', 'proot -p 1:2 rm -rf /',
  ]),
  // read right before this round, kept
  ...denyRoot(['screen -dmS name rm -rf /', 'screen -R -S name rm -rf /', 'numactl --cpubind 0 rm -rf /', 'setpriv --ptracer any rm -rf /', 'proot -0 -r /srv/root rm -rf /']),
  ...allow([
    'numactl -w 0 ls', 'numactl --show', 'numactl -H', 'numactl -c 0 make', 'setuidgid nobody ls', 'envdir ./env make', 'softlimit -m 100000 ./server',
    'screen -r name', 'screen -R name', 'screen -ls', 'screen -list', 'screen -x name', 'screen -S name -X quit', 'proot -0 ls', 'proot -p ls',
    'setpriv --reset-env ls', 'setpriv --reuid 1000 --init-groups id',
  ]),
];

/** tmux takes a unique prefix of a command's name for it (cmd_find): `split`, `run-s`, `send-k`; an ambiguous one runs nothing. */
export const TMUX_PREFIXES: readonly ShellCase[] = [
  ...denyRoot([
    "tmux split 'rm -rf /'", "tmux new-s -d 'rm -rf /'", "tmux run-s 'rm -rf /'", "tmux send-k -t 0 'rm -rf /' Enter", "tmux split-w -d 'rm -rf /'",
    "tmux respawn-p -k 'rm -rf /'", "tmux if-s 'rm -rf /' ''", "tmux display-po 'rm -rf /'", "tmux pipe -o 'rm -rf /'",
  ]),
  ...allow(["tmux sen 'rm -rf /' Enter", "tmux respawn 'rm -rf /'", 'tmux list-s', 'tmux ls', "tmux display-m 'rm -rf /'"]),
];

/** kitty's remote control: `launch`, `new-window` and `run` start a command; `send-text` types into a window's shell. */
export const KITTY_REMOTE: readonly ShellCase[] = [
  ...denyRoot([
    'kitty @ launch rm -rf /', 'kitty @ launch --type=tab --cwd /tmp rm -rf /', 'kitten @ launch --hold rm -rf /', 'kitty @ --to unix:/tmp/kitty launch rm -rf /',
    'kitten @ run rm -rf /', 'kitty @ new-window --title t rm -rf /', "kitty @ send-text 'rm -rf /\\r'", "kitty @ send-text -m title:x 'rm -rf /\\n'",
  ]),
  // the window belongs to the running kitty, beyond the tool's timeout and kill, as a tmux window does
  ['kitty @ launch --type=tab htop', 'ask', DETACH], ["kitty @ send-text 'ls\\r'", 'ask', DETACH], ['kitten @ run make', 'ask', DETACH],
  ...allow(['kitty @ ls', 'kitty @ set-font-size 14', 'kitty --hold htop']),
];

/**
 * A program's code in options of readers: gawk's -d takes a value only attached (the program was taken for its value,
 * the file for the program), bat's --pager starts a command.
 */
export const READER_OPTIONS: readonly ShellCase[] = [
  ["gawk -d '{print}' /etc/shadow", 'deny', SEC], ["awk -d '1' /root/.ssh/id_rsa", 'deny', SEC], ["gawk -F: -d '{print $1}' /etc/shadow", 'deny', SEC],
  ...denyRoot(["bat --pager 'rm -rf /' README.md", "batcat --paging=always --pager='rm -rf /' notes.txt"]),
  ...allow(["gawk -d '{print}' notes.txt", "awk -F: '{print $1}' /etc/passwd", "bat --pager 'less -R' README.md", 'bat -l py x.py', 'grep -E /etc/shadow log.txt']),
];

/**
 * A lone short option no wrapper table knows is read as taking the next word too, as unknown long ones are; a known
 * flag is not (`sudo -E echo rm -rf /` prints).
 */
export const UNKNOWN_SHORT_OPTIONS: readonly ShellCase[] = [
  ...denyRoot([
    'timeout -Z x 5 rm -rf /', 'sudo -Z x rm -rf /', 'nice -Z x rm -rf /', 'env -Z x rm -rf /', 'doas -Z x rm -rf /', 'stdbuf -Z x rm -rf /',
    'chpst -Z x rm -rf /', 'ionice -Z x rm -rf /', 'proot -Z x rm -rf /', 'numactl -Z x rm -rf /', 'ltrace -Z x rm -rf /', 'sudo -E -Z x -Y y rm -rf /',
  ]),
  ...allow(['sudo -E ls -la', 'sudo -E echo rm -rf /', 'timeout -v 5 ls', 'nice -Z ls', 'env -Z ls -la', 'timeout -Z 5 ls', 'env -i PATH=/bin ls']),
];

/** `uftrace --opt-file FILE`: options from a file the guard cannot see, an unseen setting (it was a computed program). */
export const UFTRACE_UNSEEN: readonly ShellCase[] = [
  ['uftrace --opt-file opts.txt ./a.out', 'ask', UNSEEN], ['uftrace record --opt-file=o.txt', 'ask', UNSEEN],
];
