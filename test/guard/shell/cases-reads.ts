import type { ShellCase } from './cases-deny.ts';
import { SEC } from './rule-ids.ts';

/** A recursive search reads every file below its directory operands, like a recursive copy (review: these were allowed). */
export const TREE_READS: readonly ShellCase[] = [
  ['grep -r BEGIN /root', 'deny', SEC],
  ['grep -r key ~/.ssh', 'deny', SEC],
  ['grep -r key /home/bob/.ssh', 'deny', SEC],
  ['grep -rl x /', 'deny', SEC],
  ['grep -R password /etc', 'deny', SEC],
  ['grep -Rni secret ~/.aws', 'deny', SEC],
  ['grep --recursive token ~', 'deny', SEC],
  ['grep --rec token ~', 'deny', SEC],
  ['grep --dereference-recursive x /home/alice', 'deny', SEC],
  ['grep -d recurse x /root', 'deny', SEC],
  ['grep -drecurse x ~', 'deny', SEC],
  ['grep --directories=recurse x /root', 'deny', SEC],
  ['grep --directories recurse x /Users/bob', 'deny', SEC],
  ['egrep -r "a|b" /root', 'deny', SEC],
  ['fgrep -rl BEGIN ~/.ssh', 'deny', SEC],
  ['rgrep BEGIN /root', 'deny', SEC],
  // with -e or -f the first operand is a path, not the pattern
  ['grep -r -e BEGIN /root', 'deny', SEC],
  ['grep -rf patterns.txt /home/bob', 'deny', SEC],
  ['grep -r --include=*.pem BEGIN /', 'deny', SEC],
  ['grep -rc x --exclude-dir=.git ~', 'deny', SEC],
  ['grep -r x src /root', 'deny', SEC],
  ['sudo grep -r x /root', 'deny', SEC],
  ["bash -c 'grep -r x ~'", 'deny', SEC],
  // grep -r without a file operand searches the working directory, when it is known
  ['cd /root && grep -r x', 'deny', SEC],
  ['cd ~ && grep -rl x .', 'deny', SEC],
  // searchers that descend by default
  ['rg BEGIN /root', 'deny', SEC],
  ['rg PRIVATE ~/.ssh', 'deny', SEC],
  ['rg -e BEGIN /home', 'deny', SEC],
  ['rg --hidden -l token ~', 'deny', SEC],
  ['rg -r x key /etc', 'deny', SEC],
  ['cd ~ && rg password', 'deny', SEC],
  ['ag secret /root', 'deny', SEC],
  ['ag -l key ~/.aws', 'deny', SEC],
  ['ack password /home/alice', 'deny', SEC],
  ['pt token /root', 'deny', SEC],
  ['git grep --no-index BEGIN /root', 'deny', SEC],
  ['git grep --no-index -e key ~/.ssh', 'deny', SEC],
  ['git -C /root grep --no-index x', 'deny', SEC],
];

/** Look-alikes: a pattern that names a secret place, a search that does not descend, or lists names only. */
export const TREE_READS_ALLOWED: readonly ShellCase[] = ([
  'grep -r foo ./src', 'rg foo src', 'grep foo /etc/hosts', 'grep -r TODO .', 'grep -c x file', 'grep x /root', 'grep -rn TODO src tests',
  'grep -r /root src', 'grep -r ~/.ssh docs/', 'grep -e /root -r src', 'grep -r -f ~/patterns.txt src', 'grep -rl TODO /home/bob/project/src',
  'grep -r foo ~/projects', 'grep -r foo /etc/nginx', 'grep -r --exclude-dir=/root x src', 'grep -m1 x /etc/hosts', 'egrep -r "a|b" src',
  'grep -r foo', 'cd ~/projects && grep -r foo', 'cd /tmp && grep -r x .', 'ls -R /root', 'find /root -name "*.pem"',
  'rg foo', 'rg /root src', 'rg -e BEGIN src tests', 'rg -r /root foo src', 'rg -d 2 foo src', 'rg foo ~/projects/app', 'cd /tmp && rg foo',
  'rg --files ~/.ssh', 'cd ~ && cat notes.txt | rg foo', 'cd ~ && rg foo < notes.txt', 'ag foo src', 'ag -g pem /root /home', 'ack foo lib/',
  'pt foo .', 'git grep key', 'git grep -n BEGIN -- src', 'git grep --no-index foo src', 'git grep --no-index -e /root src',
] as const).map((c): ShellCase => [c, 'allow']);

/**
 * Searches rooted at the home directory (`~`, `$HOME`, the working directory after `cd`), which holds ~/.ssh and
 * ~/.aws: read like any recursive search of a secret directory. `find START -exec READER {}` is one too (review: allowed).
 */
export const HOME_SEARCHES: readonly ShellCase[] = [
  ['rg foo ~', 'deny', SEC],
  ['grep -r foo ~', 'deny', SEC],
  ['grep -r foo $HOME', 'deny', SEC],
  ['grep -rn foo "$HOME"', 'deny', SEC],
  ['grep -r foo ${HOME}/', 'deny', SEC],
  ['rg -uuu foo ~/', 'deny', SEC],
  ['rg foo -- ~', 'deny', SEC],
  ['cd && grep -r foo', 'deny', SEC],
  ['cd "$HOME" && rg foo .', 'deny', SEC],
  ['H=~; rg foo $H', 'deny', SEC],
  ['find ~ -type f -exec grep foo {} +', 'deny', SEC],
  ['find ~ -name id_rsa -exec cat {} \\;', 'deny', SEC],
  ['find $HOME -type f -exec cp {} /tmp/x \\;', 'deny', SEC],
  ['find -L ~ -exec grep -l token {} +', 'deny', SEC],
  ['cd ~ && find -type f -exec grep x {} +', 'deny', SEC],
  ["find / -name '*.pem' -exec cat {} +", 'deny', SEC],
  ['find ~ -exec sudo cat {} \\;', 'deny', SEC],
];

/** Look-alikes: searches below the home directory, or find running no reader. */
export const HOME_SEARCHES_ALLOWED: readonly ShellCase[] = ([
  'rg foo src', 'grep -r foo ./src', 'grep -r foo $HOME/projects', 'rg foo ~/projects', 'rg foo ~/*', "find . -name '*.py' -exec grep -l foo {} +",
  'find src -type f -exec cat {} +', "find ~ -name '*.tmp' -exec ls -l {} \\;", 'find ~/projects -exec grep foo {} +',
  "find /var/log -name '*.log' -exec grep error {} +", 'find ~ -name x -print',
] as const).map((c): ShellCase => [c, 'allow']);

/**
 * ugrep and `ug` (review: allowed): a directory operand is searched one level deep even without -r, deeper with -r, -R or
 * a depth (-3), and the working directory recursively when no operand is given; a secret operand is read like `cat`.
 */
export const UGREP_READS: readonly ShellCase[] = [
  ['ugrep -r foo ~', 'deny', SEC],
  ['ug -r foo ~', 'deny', SEC],
  ['ugrep -R foo /root', 'deny', SEC],
  ['ug foo ~/.ssh/id_rsa', 'deny', SEC],
  ['ugrep BEGIN ~/.ssh/id_ed25519', 'deny', SEC],
  ['ugrep -rl BEGIN ~/.ssh', 'deny', SEC],
  ['ugrep --recursive token /home/bob', 'deny', SEC],
  ['ug -3 key ~', 'deny', SEC],
  ['ugrep -e BEGIN -r /etc', 'deny', SEC],
  ['ugrep --regexp=BEGIN ~/.ssh', 'deny', SEC],
  ['ugrep -t yaml -r password ~', 'deny', SEC],
  ['ug -Q ~/.ssh', 'deny', SEC],
  ['ugrep root /etc', 'deny', SEC],
  ['ug token ~', 'deny', SEC],
  ['ugrep+ -r x ~/.aws', 'deny', SEC],
  ['ug+ secret ~/.aws/credentials', 'deny', SEC],
  ['cd ~ && ug -r token', 'deny', SEC],
  ['cd /root && ugrep token', 'deny', SEC],
  ['sudo ugrep -r x /root', 'deny', SEC],
  ["bash -c 'ug -r x ~'", 'deny', SEC],
  // the other searchers, rooted at home
  ['ack foo ~', 'deny', SEC],
  ['ag foo ~', 'deny', SEC],
  ['git grep --no-index foo ~', 'deny', SEC],
];

/** Look-alikes: ugrep below a project, a pattern naming a secret place, ugrep reading a fed stdin. */
export const UGREP_ALLOWED: readonly ShellCase[] = ([
  'ugrep -r TODO src', 'ug -r TODO .', 'ugrep foo README.md', 'ug -rn BEGIN docs/', 'ugrep -r ~/.ssh src', 'ugrep -e /root -r src',
  'ug foo ~/projects', 'ugrep -r foo ~/projects/app', 'cd ~ && cat notes.txt | ug foo', 'ugrep -t yaml -r key config', 'ugrep+ -r invoice ~/Documents',
  'ugrep --regexp=x -r src tests', 'ugrep -l foo /etc/hosts',
] as const).map((c): ShellCase => [c, 'allow']);

/** `$(echo ~)`: the shell expands the tilde before echo prints it, so the output is the home directory (review: read as a file named `~`). */
export const ECHOED_HOME: readonly ShellCase[] = [
  ['rg foo "$(echo ~)"', 'deny', SEC],
  ['rg foo $(echo ~)', 'deny', SEC],
  ['grep -r foo "$(printf ~)"', 'deny', SEC],
  ['rg foo "$(printf %s ~)"', 'deny', SEC],
  ['grep -rn token "$(echo $HOME)"', 'deny', SEC],
  ['x=$(echo ~); rg foo "$x"', 'deny', SEC],
  ['cd "$(echo ~)" && grep -r x', 'deny', SEC],
  ['tar czf x.tgz "$(echo ~)"', 'deny', SEC],
  ['rg key "$(echo ~/.ssh)"', 'deny', SEC],
  ['echo ~ | xargs grep -r foo', 'deny', SEC],
  ["printf '%s\\n' ~ | xargs rg foo", 'deny', SEC],
];

/** Look-alikes: a quoted tilde is a name, a directory below home is no secret place, listing home reads nothing. */
export const ECHOED_HOME_ALLOWED: readonly ShellCase[] = ([
  'rg foo "$(echo ~/projects)"', 'rg foo "$(echo \'~\')"', 'ls "$(echo ~)"', 'cd "$(echo ~)" && ls', 'echo ~', 'rg foo "$(echo ~)/src"',
  'grep -r foo "$(pwd)"',
] as const).map((c): ShellCase => [c, 'allow']);

/** `find START | xargs READER` reads what find lists, everything below START, like `find START -exec READER {} +` (review: allowed). */
export const LISTED_READS: readonly ShellCase[] = [
  ['find ~ | xargs grep foo', 'deny', SEC],
  ['find ~ -print0 | xargs -0 cat', 'deny', SEC],
  ['find ~/.ssh | xargs cat', 'deny', SEC],
  ['find ~/.ssh -type f | xargs -n1 cat', 'deny', SEC],
  ['find /root -type f | sort | xargs head', 'deny', SEC],
  ['find $HOME -name "*.txt" | xargs -I{} cp {} /tmp/out', 'deny', SEC],
  ['cd ~ && find . | xargs cat', 'deny', SEC],
  ['find ~ -type f | xargs sudo cat', 'deny', SEC],
  ['find ~/.aws | xargs grep key', 'deny', SEC],
  ['find / -name "*.pem" | xargs cat', 'deny', SEC],
  ['find -L ~ | xargs tar czf all.tgz', 'deny', SEC],
  ['find ~ -type f | xargs ugrep token', 'deny', SEC],
];

/** Look-alikes: find below a project, or xargs running something that reads no file's content. */
export const LISTED_READS_ALLOWED: readonly ShellCase[] = ([
  "find . -name '*.ts' | xargs grep foo", 'find src -type f | xargs wc -l', 'find ~ -type f | xargs ls -l', "find ~/projects -name '*.py' | xargs grep import",
  "find ~ -name '*.tmp' | xargs stat", 'find . | xargs cat', 'git ls-files | xargs grep foo', 'find ~ -maxdepth 1 -name x | xargs echo',
] as const).map((c): ShellCase => [c, 'allow']);
