import type { ShellCase } from './cases-deny.ts';
import { COMPUTED, INLINE, RH, RR, SEC, UNSEEN } from './rule-ids.ts';

/**
 * Files git reads configuration or code from, moved somewhere the guard has not seen (review: each was allowed).
 * Like `-c core.hooksPath=DIR`, they ask; /dev/null, or the place git looks anyway, is fine.
 */
export const GIT_UNSEEN_FILES: readonly ShellCase[] = [
  ['GIT_CONFIG_GLOBAL=/tmp/evil.cfg git log', 'ask', UNSEEN],
  ['GIT_CONFIG_SYSTEM=/tmp/sys.cfg git status', 'ask', UNSEEN],
  ['GIT_CONFIG=/tmp/x.cfg git config --get alias.x', 'ask', UNSEEN],
  ['export GIT_CONFIG_GLOBAL=/tmp/g.cfg; git log', 'ask', UNSEEN],
  ['env GIT_CONFIG_GLOBAL=./cfg git diff', 'ask', UNSEEN],
  ['GIT_CONFIG_GLOBAL="$CFG" git log', 'ask', UNSEEN],
  // the user's config moves with HOME and XDG_CONFIG_HOME, for a git command or for the shell's later ones
  ['HOME=/tmp/h git log', 'ask', UNSEEN],
  ['HOME=/tmp/h timeout 5 git status', 'ask', UNSEEN],
  ['env HOME=/tmp/h git log', 'ask', UNSEEN],
  ['HOME=/tmp/h; git log', 'ask', UNSEEN],
  ['export HOME=/tmp/h && git status', 'ask', UNSEEN],
  ['XDG_CONFIG_HOME=/tmp/cfg git log', 'ask', UNSEEN],
  ['export XDG_CONFIG_HOME=$(mktemp -d); git log', 'ask', UNSEEN],
  ['sudo XDG_CONFIG_HOME=/tmp/c git pull', 'ask', UNSEEN],
  // its helper programs and hook templates
  ['GIT_EXEC_PATH=/tmp/bin git fetch', 'ask', UNSEEN],
  ['git --exec-path=/tmp/bin fetch', 'ask', UNSEEN],
  ['GIT_TEMPLATE_DIR=/tmp/t git init', 'ask', UNSEEN],
  ['git init --template=/tmp/t', 'ask', UNSEEN],
  ['git clone --template=/tmp/t https://x.example/r', 'ask', UNSEEN],
  ['git -c init.templateDir=/tmp/t init', 'ask', UNSEEN],
];

/**
 * Commands git runs to reach the other repository (review: each was allowed): `--upload-pack`, `--receive-pack` and
 * `--exec` values are shell code, and so is the command of an `ext::` URL, wherever the URL is given.
 */
export const GIT_TRANSPORTS: readonly ShellCase[] = [
  ["git clone --upload-pack='rm -rf /' https://x.example/r.git", 'deny', RR],
  ["git clone -u 'rm -rf ~' ../repo copy", 'deny', RH],
  ["git clone --upload='rm -rf /' ../repo", 'deny', RR],
  ["git fetch --upload-pack 'rm -rf /' origin", 'deny', RR],
  ["git pull --upload-pack='rm -rf ~' origin main", 'deny', RH],
  ["git ls-remote --upload-pack='rm -rf /' ../repo", 'deny', RR],
  ["git ls-remote --exec='cat /etc/shadow' ../repo", 'deny', SEC],
  ["git push --receive-pack='rm -rf /' origin main", 'deny', RR],
  ["git push --exec='rm -rf ~' ../bare", 'deny', RH],
  ["git archive --remote=../repo --exec='rm -rf /' HEAD", 'deny', RR],
  ["git -C repo fetch --upload-pack='rm -rf /'", 'deny', RR],
  ["sudo git clone -u 'rm -rf /' ../repo", 'deny', RR],
  // ext:: runs its command without a shell: words split at spaces, `% ` a space inside one
  ["git clone 'ext::sh -c rm% -rf% /' x", 'deny', RR],
  ["git clone 'ext::rm -rf /' x", 'deny', RR],
  ["git fetch 'ext::sh -c rm% -rf% ~'", 'deny', RH],
  ["git archive --remote='ext::rm -rf /' HEAD", 'deny', RR],
  ["git remote add evil 'ext::sh -c cat% /etc/shadow'", 'deny', SEC],
  ["git submodule add 'ext::sh -c rm% -rf% ~' lib", 'deny', RH],
  // no shell: `~` is a name, not the home directory
  ["git submodule add 'ext::rm -rf ~' lib", 'ask', 'shell.rm.recursive'],
  ["git -c remote.origin.url='ext::rm -rf /' fetch", 'deny', RR],
  ["git -c 'url.ext::rm -rf /.insteadOf=https://' fetch", 'deny', RR],
  ["git config remote.origin.url 'ext::rm -rf /'", 'deny', RR],
  ["git clone 'ext::sh -c touch% /tmp/x'", 'ask', INLINE],
  // `git clone -c` configures the new repository before its checkout
  ["git clone -c core.sshCommand='rm -rf /' https://x.example/r", 'deny', RR],
  ['git clone -c core.hooksPath=/tmp/h https://x.example/r', 'ask', UNSEEN],
  ['git clone -u "$UP" ../repo', 'ask', COMPUTED],
  // letting ext:: URLs from config the guard has not seen run
  ['git -c protocol.ext.allow=always fetch', 'ask', UNSEEN],
  ["git -c protocol.ext.allow=always clone 'ext::sh -c touch% /tmp/x'", 'ask', UNSEEN],
  ['git -c protocol.allow=always submodule update --init', 'ask', UNSEEN],
  ['git config --global protocol.ext.allow always', 'ask', UNSEEN],
  ['GIT_ALLOW_PROTOCOL=ext:https git submodule update', 'ask', UNSEEN],
];

/** git sub-commands that run shell code from their arguments (found beside the transports; each was allowed). */
export const GIT_COMMANDS: readonly ShellCase[] = [
  ["git submodule foreach 'rm -rf /'", 'deny', RR],
  ["git submodule --quiet foreach --recursive 'rm -rf ~'", 'deny', RH],
  ["git rebase --exec 'rm -rf /' main", 'deny', RR],
  ["git rebase -i -x 'rm -rf ~' HEAD~3", 'deny', RH],
  ['git bisect run rm -rf /', 'deny', RR],
  ["git bisect run sh -c 'cat /etc/shadow'", 'deny', SEC],
  ["git difftool -x 'rm -rf /' HEAD", 'deny', RR],
  ["git filter-branch --tree-filter 'rm -rf ~' HEAD", 'deny', RH],
  ["git send-email --to-cmd='rm -rf /' x.patch", 'deny', RR],
];

/** Look-alikes: ordinary clones, fetches and pushes, config files that point nowhere, harmless commands in the same places. */
export const GIT_LOOKALIKES: readonly ShellCase[] = ([
  'GIT_CONFIG_GLOBAL=/dev/null git log', 'GIT_CONFIG_SYSTEM=/dev/null GIT_CONFIG_GLOBAL=/dev/null git status', 'GIT_CONFIG_NOSYSTEM=1 git log',
  'HOME=$HOME git log', 'HOME=/dev/null git log', 'XDG_CONFIG_HOME=~/.config git log', 'XDG_CONFIG_HOME=$HOME/.config git log',
  'HOME=/tmp/h npm test', 'HOME=/tmp/h make', 'export HOME=/tmp/test; npm test', 'GIT_DIR=.git git status', 'git --exec-path',
  'git clone https://github.com/x/y', 'git clone --depth 1 -b main https://github.com/x/y', 'git clone git@github.com:x/y.git',
  'git fetch origin', 'git fetch -u origin main', 'git pull --rebase origin main', 'git push -u origin main', 'git push --repo=origin',
  'git ls-remote --tags https://github.com/x/y', 'git archive --format=tar -o out.tar HEAD', 'git archive --remote=git@github.com:x/y.git HEAD',
  'git clone --upload-pack=git-upload-pack ../repo x', "git clone 'ext::ssh -p 2222 host %S repo' r", "git commit -m 'ext::rm -rf /'",
  "git log --grep='--upload-pack=rm -rf /'", 'git -c protocol.file.allow=always submodule update --init', 'git -c protocol.ext.allow=never fetch',
  'GIT_ALLOW_PROTOCOL=https:ssh git fetch', 'git remote add origin https://github.com/x/y', 'git remote -v', 'git submodule update --init --recursive',
  'git clone -c core.autocrlf=false https://x.example/r', 'git -c remote.origin.url=https://x.example/r fetch', 'git init --template= repo',
  "git submodule foreach 'git pull'", 'git submodule foreach git status', "git rebase -x 'make test' HEAD~3", 'git rebase -i HEAD~3',
  'git bisect run make test', 'git bisect start', "git difftool --extcmd='diff -u' HEAD", 'git send-email --to x@example.com x.patch',
  "git filter-branch --index-filter 'git rm --cached --ignore-unmatch secrets.txt' HEAD",
] as const).map((c): ShellCase => [c, 'allow']);

/** An alias given on the same command line (`-c alias.c=clone`) is judged as the command it stands for (review: allowed). */
export const GIT_ALIASES: readonly ShellCase[] = [
  ["git -c alias.c=clone c -u 'rm -rf /' repo", 'deny', RR],
  ["git -c alias.c=\"clone -u 'rm -rf ~'\" c repo", 'deny', RH],
  ["git -c alias.a=b -c alias.b=clone a --upload-pack='rm -rf /' r", 'deny', RR],
  ["git -c alias.f=fetch f --upload-pack='cat /etc/shadow' origin", 'deny', SEC],
  ["git -c alias.g='grep --no-index' g key ~/.ssh", 'deny', SEC],
  ["git -c alias.d='diff --no-index' d ~/.ssh/id_rsa /dev/null", 'deny', SEC],
  ["git -c alias.c=config c core.pager 'rm -rf /'", 'deny', RR],
  ["git -c alias.s=submodule s foreach 'rm -rf /'", 'deny', RR],
  ["git -c alias.r='rebase -x' r 'rm -rf ~' main", 'deny', RH],
  ["git -c Alias.C=clone c -u 'rm -rf /' r", 'deny', RR],
  ["git -c alias.cl='-p clone' cl -u 'rm -rf /' r", 'deny', RR],
  ["sudo git -c alias.c=clone c --upload-pack='rm -rf /' r", 'deny', RR],
  ["git -c alias.i='clone -c core.sshCommand=\"rm -rf /\"' i https://x.example/r", 'deny', RR],
  // an alias whose value cannot be seen may be a `!` shell alias
  ['git -c alias.x="$A" x', 'ask', UNSEEN],
  ['git -c alias.c=clone c -u "$UP" ../repo', 'ask', COMPUTED],
];

/** Look-alikes: ordinary aliases, and clone or fetch through an alias with nothing to run. */
export const GIT_ALIAS_LOOKALIKES: readonly ShellCase[] = ([
  'git -c alias.co=checkout co main', 'git -c alias.st=status st', "git -c alias.lg='log --oneline --graph' lg", "git -c alias.l='-p log' l",
  'git -c alias.c=clone c https://github.com/x/y', 'git -c alias.f=fetch f origin', "git -c alias.g='grep -n' g TODO src",
] as const).map((c): ShellCase => [c, 'allow']);
