import type { ShellCase } from './cases-deny.ts';
import { DETACH, RR } from './rule-ids.ts';

const allow = (list: readonly string[]): ShellCase[] => list.map((c): ShellCase => [c, 'allow']);
const denyRoot = (list: readonly string[]): ShellCase[] => list.map((c): ShellCase => [c, 'deny', RR]);
const PARTITION = 'shell.device.partition';

/**
 * Wrappers whose option tables were wrong about which options take a value, so that the word after the option (or
 * the option's value) was judged as the program: sudo --auth-type, doas -a, env's `--default-signal[=SIG]` and BSD -L,
 * flock --wait, nsenter's optional -w/--wd, unshare --propagation and friends, fakeroot -b/-f, faketime's flag -f and
 * its -p PID, xvfb-run's flag -l and -w, watch's optional -d, systemd-run's flag -t and -C/--json, xargs's optional
 * --max-lines, torsocks's long options, run0 --lightweight, podman exec -l/--preserve-fds, docker's global options.
 */
export const WRAPPER_OPTION_VALUES: readonly ShellCase[] = [
  ...denyRoot([
    'sudo --auth-type x rm -rf /', 'sudo --apparmor-profile x rm -rf /', 'doas -a style rm -rf /', 'env --default-signal rm -rf /',
    'env --ignore-signal rm -rf /', 'env --block-signal rm -rf /', 'env -L class rm -rf /', 'flock --wait 5 /tmp/l rm -rf /', 'nsenter -t 1 -w rm -rf /',
    'nsenter --target 1 --wd rm -rf /', 'unshare --propagation private rm -rf /', 'unshare --setgroups deny rm -rf /', 'unshare --map-users 0:1000:1 rm -rf /',
    'fakeroot -b 3 rm -rf /', 'fakeroot -f /usr/bin/faked rm -rf /', 'faketime -f +2d rm -rf /', 'faketime -p 1 +1d rm -rf /', 'xvfb-run -l rm -rf /',
    'xvfb-run -w 3 rm -rf /', 'watch -d rm -rf /', 'echo / | xargs --max-lines rm -rf', 'torsocks --address 127.0.0.1 rm -rf /',
    'run0 --lightweight yes rm -rf /', 'podman exec -l rm -rf /', 'podman exec --latest rm -rf /', 'podman exec --preserve-fds 1 c1 rm -rf /',
    'docker -H unix:///run/docker.sock exec c1 rm -rf /', 'docker --context prod exec c1 rm -rf /', 'podman --root /x container exec -it c1 rm -rf /',
    'docker container exec c1 rm -rf /',
  ]),
  ['systemd-run -t rm -rf /', 'deny', RR], ['systemd-run --json short rm -rf /', 'deny', RR], ['systemd-run -C cap rm -rf /', 'deny', RR],
  // read right before this round, kept
  ...denyRoot([
    'env --default-signal=PIPE rm -rf /', 'nsenter -t 1 -m -w/tmp rm -rf /', 'nsenter --target 1 --wd=/tmp rm -rf /', 'watch -d=cumulative rm -rf /',
    'xvfb-run -a rm -rf /', 'xvfb-run -s "-screen 0 1x1x8" rm -rf /', 'echo / | xargs --max-lines=1 rm -rf', 'echo / | xargs --replace rm -rf {}',
    'flock -w 5 /tmp/l rm -rf /', 'faketime 2020-01-01 rm -rf /', 'sudo -E rm -rf /',
  ]),
  ['systemd-run --on-calendar daily rm -rf /', 'deny', RR], ['systemd-run --user true', 'ask', DETACH],
  ...allow([
    'docker exec c1 ls', 'podman exec -l ls', 'docker -H unix:///run/docker.sock exec c1 ls', 'env --default-signal=PIPE seq 3', 'faketime -f +2d date',
    'xvfb-run -a npm test', 'watch -d ls', 'flock --wait 5 /tmp/l make', 'unshare --propagation private true', 'torsocks --address 127.0.0.1 curl https://example.com',
  ]),
];

/**
 * git's own options before its sub-command that take the next word (git.c handle_options): --attr-source and
 * --shallow-file, so the sub-command is the word after their value.
 */
export const GIT_GLOBAL_VALUES: readonly ShellCase[] = [
  ['git --attr-source HEAD reset --hard', 'ask', 'shell.git.reset_hard'], ['git --shallow-file x push --force', 'ask', 'shell.git.force_push'],
  ['git -C x --shallow-file y clean -fdx', 'ask', 'shell.git.clean'], ['git --attr-source=HEAD reset --hard', 'ask', 'shell.git.reset_hard'],
  ...allow(['git --attr-source HEAD status', 'git --shallow-file x log', 'git --attr-source HEAD reset --soft HEAD~1']),
];

/** Partitioners' value letters are not their list or print options (`parted -aopt`: -a takes `opt`). */
export const PARTITIONER_OPTION_VALUES: readonly ShellCase[] = [
  ['parted -aopt /dev/sda mklabel gpt', 'ask', PARTITION], ['fdisk -tgpt /dev/sda', 'ask', PARTITION], ['sfdisk -Xgpt /dev/sda', 'ask', PARTITION],
  ['parted -a optimal /dev/sda mkpart p 1MiB 100%', 'ask', PARTITION],
  ...allow(['fdisk -l /dev/sda', 'fdisk -tgpt -l /dev/sda', 'parted -l', 'parted /dev/sda print', 'sfdisk -l /dev/sda']),
];

/**
 * A long option no wrapper table knows (another version's, or one still missed): the line is judged as if it took
 * the next word too, so a table that lags the program fails safe; a real flag read that way leaves only arguments.
 */
export const UNKNOWN_WRAPPER_OPTIONS: readonly ShellCase[] = [
  ...denyRoot([
    'sudo --not-yet-invented x rm -rf /', 'timeout --not-yet-invented x 5 rm -rf /', 'doas --not-yet-invented style rm -rf /',
    'env --not-yet-invented v rm -rf /', 'flock --not-yet-invented 5 /tmp/l rm -rf /', 'stdbuf --not-yet-invented x rm -rf /',
    'nice --not-yet-invented 5 rm -rf /', 'sudo --login --not-yet-invented x rm -rf /',
    // `--login` is sudo's -i, a flag: it was read as an abbreviation of --login-class, which takes a value
    'sudo --login rm -rf /', 'sudo --shell rm -rf /', 'sudo --set-home rm -rf /',
  ]),
  ...allow([
    'sudo --login ls -la', 'sudo --preserve-env ls -la /tmp', 'sudo --login --preserve-env cat /etc/hostname',
    'timeout --foreground 5 ls', 'env --not-yet-invented ls -la', 'nice --not-yet-invented ls',
  ]),
];

/** kill's own options read as util-linux does: `-q VALUE` is sigqueue's value, not a pid (it read as a signal to init). */
export const KILL_OPTIONS: readonly ShellCase[] = [
  ['kill -q 5 -9 1', 'deny', 'shell.system.power'], ['kill --timeout 100 KILL -TERM 1', 'deny', 'shell.system.power'],
  ['kill -a -9 1', 'deny', 'shell.system.power'], ['kill -9 -1', 'deny', 'shell.process.kill_all'], ['kill -- -1', 'deny', 'shell.process.kill_all'],
  ...allow(['kill -q 1 -s HUP 123', 'kill -q 1 123', 'kill --queue 1 -s TERM 4242', 'kill -HUP 1']),
];
