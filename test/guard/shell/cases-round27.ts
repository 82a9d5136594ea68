import type { ShellCase } from './cases-deny.ts';
import { CRED, KA, RH, RR, SEC } from './rule-ids.ts';

const LOGIN_READ = 'shell.credential.read';
const allow = (list: readonly string[]): ShellCase[] => list.map((c): ShellCase => [c, 'allow']);
const as = (decision: 'deny' | 'ask', rule: string, list: readonly string[]): ShellCase[] => list.map((c): ShellCase => [c, decision, rule]);

/**
 * A gitfile (`.git` holding `gitdir: DIR`) makes DIR a repository whose config and hooks run on `git status`: the
 * gitfile itself, the config and hooks of repositories inside `.git` (submodules, worktrees) and bare ones, and a
 * `config` written with git's command-running sections or with unseen text ask.
 */
const GIT_DIRS: readonly ShellCase[] = [
  ...as('ask', CRED, [
    "echo 'gitdir: x' > sub/.git", "echo 'gitdir: ../gd' > .git", "printf 'gitdir: %s\\n' /tmp/gd > a/b/.git", "echo 'gitdir: gd' | tee sub/.git",
    "printf '[core]\\n\\tfsmonitor = touch /tmp/x\\n' > gd/config", "echo '[core] fsmonitor = x' > gd/config", "printf '[alias]\\n\\tst = !sh\\n' | tee gd/config",
    "cat > gd/config <<'X'\n[core]\n\tpager = sh -c x\nX", 'cp evil gd/config', "echo '[include] path = /tmp/x' >> gd/config.worktree",
    'echo x > .git/modules/sub/hooks/pre-commit', 'cp x .git/worktrees/wt/hooks/post-checkout', 'echo x > .git/modules/sub/config', 'echo x > repo.git/config',
    'echo x > srv/repo.git/hooks/post-receive',
  ]),
  ...allow([
    "echo 'port: 80' > config", 'echo a > config.yaml', 'cp config.example config.yaml', 'echo x > src/hooks/useThing.ts', 'echo x > hooks/README', 'echo x > hooks/pre-commit',
    'cat .git', 'git status', "printf '[server]\\nport=1\\n' > app/config", 'cp .git/config /tmp/backup', 'cp -r ~/.ssh/config /tmp',
  ]),
];

/** Values given by read, printf -v, mapfile and array literals, and a cd through CDPATH, are followed. */
const BUILTIN_VALUES: readonly ShellCase[] = [
  ...as('deny', SEC, [
    'read x <<< /etc/shadow; cat $x', 'read -r x <<< /etc/shadow; cat "$x"', 'read a b <<< "x /etc/shadow"; cat $b', 'read <<< /etc/shadow; cat $REPLY',
    'printf -v x /etc/shadow; cat $x', "printf -v x '%s' /etc/shadow; cat \"$x\"", "printf -v x '/etc/%s' shadow; cat $x",
    'x=(/etc/shadow); cat ${x[0]}', 'x=(a /etc/shadow); cat "${x[1]}"', 'x=(a /etc/shadow); cat ${x[@]}', 'mapfile -t a <<< /etc/shadow; cat ${a[0]}',
    'readarray -t a <<< /etc/shadow; cat "${a[@]}"', 'mapfile a <<< /etc/shadow; cat ${a[0]}', 'read -a a <<< "x /etc/shadow"; cat ${a[1]}',
    'CDPATH=/ cd etc; cat shadow', 'CDPATH=/ cd etc && cat shadow', 'export CDPATH=/; cd etc; cat shadow',
  ]),
  ...as('deny', RR, ['read x <<< /; rm -rf $x', 'x=(/); rm -rf ${x[@]}', 'printf -v d /; rm -rf "$d"', 'mapfile -t d <<< /; rm -rf ${d[0]}']),
  ...as('deny', RH, ['read x <<< ~; rm -rf $x']),
  ...allow([
    'read x <<< notes.txt; cat $x', 'x=(a.txt b.txt); cat ${x[@]}', 'mapfile -t f <<< src/a.ts; cat ${f[0]}', "printf -v x '%s' hello; echo $x",
    'read x <<< "$HOME/x"; cat $x', 'CDPATH=/srv cd app; cat config.yaml', 'x=(a /etc/shadow); cat "${x[*]}"', 'x=(a b); echo ${x[1]}',
  ]),
];

/** Signalling every process: a pattern every name matches, pkill -u with no pattern, kill given pgrep's or ps's whole list. */
const KILL_ALL: readonly ShellCase[] = [
  ...as('deny', KA, [
    'pkill -9 .', 'pkill .', "pkill -9 '.*'", "pkill -9 ''", 'pkill -9 -f .', 'pkill -9 ^', "pkill -KILL -f '.*'", 'pkill -9 -u root',
    'killall -9 -r .', "killall -r '.*'", 'kill -9 $(pgrep .)', 'kill -9 `pgrep -f .`', 'pgrep . | xargs kill -9', "pgrep -f '' | xargs kill",
    'ps -e -o pid= | xargs kill -9', "ps aux | awk '{print $2}' | xargs kill -9", 'kill -9 $(ps -A -o pid=)', 'ps -eo pid,comm | tail -n +2 | cut -c1-6 | xargs kill',
  ]),
  ...allow([
    'pkill -9 myserver', "pkill -f 'node server.js'", 'pkill -n .', 'pkill -x .', 'pkill -P 1234', 'killall -9 node', 'killall -9 .',
    'kill -9 $(pgrep myserver)', 'pgrep -f gunicorn | xargs kill', "ps aux | grep foo | awk '{print $2}' | xargs kill", 'pgrep .', 'kill $(ps -o pid= -p 123)',
  ]),
];

/** dotenv files read by name ask; ssh-keygen's key names are keys anywhere; other tools' key names ask. */
const DOTENV_AND_KEYS: readonly ShellCase[] = [
  ...as('ask', LOGIN_READ, ['cat .env', 'cat .env.local', 'cat app/.env.production', 'cat .env*', 'grep KEY .env', 'cp .env /tmp/x', 'cat certs/privkey.pem', 'cat tls/server-key.pem', 'cat x.ppk']),
  ...as('deny', SEC, ['cat keys/id_rsa', 'cat /tmp/rtws/keys/id_rsa', 'cat deploy/id_ed25519', 'base64 id_ecdsa', 'cat id_*']),
  ...allow([
    'cat .env.example', 'cat .env.sample', 'cat .env.template', 'cat keys/id_rsa.pub', 'cat docs/id_rsa.md', 'cat cert.pem', 'cat server.key.pub', 'cat public-key.pem',
    'cat *', 'ls keys', 'cat environment.txt', 'docker run --env-file .env alpine',
  ]),
];

/** Places that run or pick programs later: login environment, loader and PAM settings, /usr/local/bin, package indexes, direnv, VS Code. */
const STARTUP_PLACES: readonly ShellCase[] = [
  ...as('ask', CRED, [
    'echo x > ~/.pam_environment', 'echo x > /etc/ld.so.conf', 'echo x > /etc/ld.so.conf.d/x.conf', 'echo x > /etc/pam.d/sshd', 'cp evil /usr/local/bin/git',
    'echo x > /usr/local/sbin/x', 'echo x > ~/.config/pip/pip.conf', 'echo x > ~/.pip/pip.conf', 'echo x > /etc/pip.conf', 'echo x > ~/.condarc',
    'echo x > .envrc', 'echo x > .vscode/tasks.json', 'echo x > .vscode/settings.json', 'tee /etc/security/pam_env.conf < x',
    'tar -C /usr/local/bin -xzf x.tgz',
  ]),
  ...allow(['echo x > .vscode/launch.json', 'echo x > /usr/local/share/x', 'cat /etc/pam.d/sshd', 'echo x > envrc.md', 'cat ~/.condarc']),
];

export const ROUND27_TABLES: Readonly<Record<string, readonly ShellCase[]>> = {
  'gitfiles, git hooks by name, and a config written with git sections': GIT_DIRS,
  'values from read, printf -v, mapfile, arrays and CDPATH followed': BUILTIN_VALUES,
  'kill every process by pattern or by a whole process list': KILL_ALL,
  'dotenv files and private keys by name': DOTENV_AND_KEYS,
  'start-up and settings files that run or pick programs': STARTUP_PLACES,
};
