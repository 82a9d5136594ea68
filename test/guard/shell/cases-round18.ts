import type { ShellCase } from './cases-deny.ts';
import { COMPUTED, CRED, DW, INLINE, RR, UNSEEN } from './rule-ids.ts';

const allow = (list: readonly string[]): ShellCase[] => list.map((c): ShellCase => [c, 'allow']);
const denyRoot = (list: readonly string[]): ShellCase[] => list.map((c): ShellCase => [c, 'deny', RR]);
const asking = (rule: string, list: readonly string[]): ShellCase[] => list.map((c): ShellCase => [c, 'ask', rule]);

/**
 * sudo's -h (parse_args.c): a host attached (`-hHOST`), or the next word when `-h` stands alone and that word is no
 * option; otherwise help, which runs nothing (`-h -u x CMD` and `-Eh HOST CMD` are usage errors). `sudo -h rm -rf /`
 * names host `rm`, role `f` and runs `/`. Every -h was read as help, hiding the command after a host.
 */
export const SUDO_HOST: readonly ShellCase[] = [
  ...denyRoot([
    'sudo -h host rm -rf /', 'sudo -hhost rm -rf /', 'sudo -u root -h host rm -rf /', 'sudo -h host -u root rm -rf /', 'sudo -h db1 env rm -rf /',
    'sudo -h rm -- rm -rf /',
  ]),
  // read right before this round, kept
  ...denyRoot(['sudo --host=h rm -rf /', 'sudo --host h rm -rf /']),
  ...allow(['sudo -h', 'sudo --help', 'sudo -h rm -rf /', 'sudo -h -u x rm -rf /', 'sudo -Eh host rm -rf /', 'sudo -l -h host']),
];

/**
 * kitty: `-o shell=CMD` is what its windows run; config, session and watcher files are settings the guard cannot see
 * (`NONE`, `none`, /dev/null read none); `+runpy CODE` is Python like `python -c`; `@ action NAME ARGS` runs a mappable
 * action, `launch` and its kin starting a command.
 */
export const KITTY_SETTINGS: readonly ShellCase[] = [
  ...denyRoot([
    'kitty -o shell="rm -rf /"', "kitty --override 'shell=rm -rf /'", 'kitty @ action launch rm -rf /', "kitty @ action 'launch --type=tab rm -rf /'",
    'kitty @ action new_window rm -rf /', 'kitty @ action combine : next_tab : launch rm -rf /', "kitty @ action send_text all 'rm -rf /\\r'",
    'kitty @ action remote_control launch rm -rf /',
  ]),
  ...asking(UNSEEN, ['kitty -c k.conf', 'kitty --config=k.conf htop', 'kitty --session s.kitty', 'kitty -o startup_session=s.conf', 'kitty --watcher w.py']),
  ...asking(INLINE, ["kitty +runpy 'import os; os.system(\"ls\")'", 'kitty + runpy "print(1)"']),
  ...allow([
    'kitty @ ls', 'kitty -o font_size=14', 'kitty -o shell=.', 'kitty -c NONE htop', 'kitty -c /dev/null', 'kitty --session none', 'kitty @ action next_tab',
    'kitty +kitten icat x.png',
  ]),
];

/**
 * tmux commands held by tmux commands (if-shell's branches, bind-key, confirm-before, set-hook, run-shell -C, `{ … }`
 * blocks) are read as tmux commands; `#(CMD)` in a format runs CMD; `-f FILE` and `source-file FILE` are settings the
 * guard cannot see; a command-prompt template runs what is typed.
 */
export const TMUX_NESTED: readonly ShellCase[] = [
  ...denyRoot([
    "tmux if-shell true 'run-shell \"rm -rf /\"'", "tmux bind-key x run-shell 'rm -rf /'", "tmux bind x 'run-shell \"rm -rf /\"'",
    "tmux confirm-before -p 'ok?' 'run-shell \"rm -rf /\"'", "tmux run-shell -C 'run-shell \"rm -rf /\"'", "tmux set-hook -g session-created 'run \"rm -rf /\"'",
    "tmux if true 'new-window; run-shell \"rm -rf /\"'", "tmux if true 'if true { run-shell \"rm -rf /\" }'",
    "tmux if-shell -F 1 'display-message hi' 'run-shell \"rm -rf /\"'", "tmux bind-key -n C-x send-keys 'rm -rf /' Enter",
    "tmux display-message -p '#(rm -rf /)'", "tmux set -g status-right '#(rm -rf /) #{session_name}'",
  ]),
  ...asking(UNSEEN, ['tmux -f x.conf new -s w', 'tmux source-file x.conf', 'tmux bind r source-file ~/.tmux.conf', 'tmux if true "$X"']),
  ["tmux command-prompt -p cmd: \"run-shell '%%'\"", 'ask', COMPUTED],
  ...allow([
    'tmux new -s work', 'tmux ls', 'tmux -f /dev/null ls', 'tmux bind-key x new-window', 'tmux bind-key -T prefix x split-window', 'tmux confirm-before kill-server',
    'tmux source-file /dev/null', "tmux command-prompt -p name: \"rename-window '%%'\"", "tmux set -g status-right '#[fg=red]#S'",
  ]),
];

/**
 * less: a lesskey file, source or text (keys bound to `!CMD`, LESSOPEN in #env) is a setting the guard cannot see;
 * `-o`/`-O`/`--log-file` write the file named, judged like any write (options may follow the files).
 */
export const LESS_OPTIONS: readonly ShellCase[] = [
  ...asking(UNSEEN, [
    'less -k keys README', 'less --lesskey-file=keys README', 'less --lesskey-src=k.src README', "less --lesskey-content='x noaction !rm -rf /\\n' +x README",
    'zless -k keys x.gz', 'LESSKEY=keys less README', 'LESSKEY_CONTENT="#env" less README',
  ]),
  ...asking(CRED, [
    'less -o ~/.bashrc README', 'less -O ~/.profile README', 'less --log-file=.git/hooks/pre-commit x', 'less README -o ~/.bashrc', 'zless -o ~/.profile x.gz',
    'cat notes | less -O ~/.ssh/authorized_keys',
  ]),
  ['cat x | less -O/dev/sda', 'deny', DW], ['less -o /dev/sda README', 'deny', DW],
  ...allow(['less README.md', 'less -o out.log README', 'less -k /dev/null README', 'less -R +G log.txt', 'less -p pattern README', 'export LESSKEYIN=/dev/null; less x']),
];

/**
 * sgdisk's -j (--move-main-table; the man page's --adjust-main-table is no option), -k (--move-backup-table) and -B
 * (--byte-swap-name) take a number: a letter after them is their (bad) value, not -o or -Z.
 */
export const SGDISK_TABLES: readonly ShellCase[] = [
  ...asking('shell.device.partition', [
    'sgdisk -j 2048 /dev/sda', 'sgdisk --move-main-table=2048 -p /dev/sda', 'sgdisk -k 4000 /dev/sda', 'sgdisk -B 1 /dev/sda', 'sgdisk -ko /dev/sda', 'sgdisk -jZ /dev/sda',
  ]),
  ['sgdisk -j 2048 -Z /dev/sda', 'deny', 'shell.device.wipe'],
  ...allow(['sgdisk -p /dev/sda']),
];
