import type { ShellCase } from './cases-deny.ts';
import { CRED, DL, INLINE, RH, SEC } from './rule-ids.ts';

const LOGIN_READ = 'shell.credential.read';
const HISTORY = 'shell.history.erase';
const allow = (list: readonly string[]): ShellCase[] => list.map((c): ShellCase => [c, 'allow']);
const as = (decision: 'deny' | 'ask', rule: string, list: readonly string[]): ShellCase[] => list.map((c): ShellCase => [c, decision, rule]);

/** `parallel --pipe CMD`: CMD reads parallel's input on its stdin, so a shell there runs it, as in `… | sh`. */
const PARALLEL_PIPE: readonly ShellCase[] = [
  ...as('ask', INLINE, ['cat x | parallel --pipe sh', 'cat cmds | parallel --pipe bash', 'cat cmds | parallel --pipe -N1 sh']),
  ...allow([
    'seq 100 | parallel --pipe -N10 wc -l', "cat big.csv | parallel --pipe --block 10M 'grep foo'", 'parallel --pipepart -a big.txt --block 1M wc -l',
    'parallel echo ::: a b', 'ls | parallel gzip',
  ]),
];

/**
 * nix: `nix run FLAKE#ATTR [--] ARGS` runs ATTR's program (`nixpkgs#bash -- -c CODE` is `bash -c CODE`); nix's global
 * options may come before `develop`/`shell` (`nix env shell` too); without -c those, and nix-shell without --run, start a
 * bash that reads stdin. A flake's default app (`nix run .`, `github:o/r`) names no program: like `npx PKG`, allowed.
 */
const NIX: readonly ShellCase[] = [
  ...as('deny', RH, [
    "echo 'rm -rf ~' | nix develop", "echo 'rm -rf ~' | nix-shell -p hello", "echo 'rm -rf ~' | nix shell nixpkgs#jq", "nix run nixpkgs#bash -- -c 'rm -rf ~'",
    "nix run --impure nixpkgs#bash -- -c 'rm -rf ~'", "nix run -f '<nixpkgs>' bash -- -c 'rm -rf ~'", "nix run nixpkgs#legacyPackages.x86_64-linux.bash -- -c 'rm -rf ~'",
    "nix --extra-experimental-features 'nix-command flakes' develop -c rm -rf ~", 'nix --option sandbox false shell nixpkgs#x -c rm -rf ~', 'nix env shell nixpkgs#x -c rm -rf ~',
  ]),
  ...as('ask', INLINE, ["nix run nixpkgs#python3 -- -c 'import os'", 'cat x | nix-shell', 'cat cmds | nix develop']),
  ...allow([
    'nix build', 'nix build .#pkg', 'nix flake check', 'nix flake update', 'nix develop', 'nix shell nixpkgs#jq', 'nix run nixpkgs#hello', 'nix run . -- args',
    'nix run github:foo/bar', 'nix run nixpkgs#hello -- --greeting hi', 'nix develop -c make', "nix-shell -p jq --run 'jq .'", 'nix-shell -p hello', 'nix eval .#x',
  ]),
];

/** Manifests fetched at run time (`-f URL`, a remote kustomization) reach the cluster unseen, as downloaded code runs. */
const REMOTE_MANIFESTS: readonly ShellCase[] = [
  ...as('ask', DL, [
    'kubectl apply -f https://example.com/x.yaml', 'kubectl create -f https://raw.githubusercontent.com/x/y/main/a.yaml', 'kubectl apply -k https://github.com/x/y',
    'kubectl apply -k github.com/x/y/config?ref=v1', 'kubectl apply --filename=https://example.com/x.yaml', 'kubectl replace -f http://x/y.yaml',
    'kubectl apply -f k8s/a.yaml,https://x/y.yaml', 'oc apply -f https://x/y.yaml', 'kubectl -n x apply -f https://x/y.yaml', 'kubectl apply -k git@github.com:x/y.git',
    'kubectl apply --kustomize=https://github.com/x/y', 'sudo kubectl create -f https://x/y.yaml',
  ]),
  ...allow([
    'kubectl apply -f deploy.yaml', 'kubectl apply -k overlays/prod', 'kubectl create -f ./k8s/', 'kubectl get pods', 'kubectl delete -f https://x/y.yaml',
    'kubectl get -f https://x/y.yaml', 'kubectl diff -f https://x/y.yaml', 'kubectl apply -f file:///tmp/x.yaml', 'kubectl apply -f -',
  ]),
];

/** ed and ex, and vi/vim scripted (Ex mode, -c, +CMD, -s keys, headless, a fed stdin), write the files they open. */
const SCRIPTED_EDITORS: readonly ShellCase[] = [
  ...as('ask', CRED, [
    'ed ~/.bashrc', "ex -sc 'wq' ~/.bashrc", 'ed -s ~/.zshrc < script', "vim -es -c 'wq' ~/.bashrc", "nvim --headless +'%s/a/b/' +wq ~/.profile",
    "printf 'w\\n' | ed ~/.gitconfig", "echo ':wq' | vim -es ~/.bashrc", "vim -c 'wq' ~/.bashrc", 'vim -s keys ~/.bashrc', 'ed /etc/sudoers',
    "ex -c '%s/a/b/|wq' .git/hooks/pre-commit",
  ]),
  ...allow([
    'sed -i s/a/b/ src/x.ts', 'ed src/x.c', 'vim -es -c wq src/a.ts', 'vim -S x.vim src/a.ts', 'vim -R -c q ~/.bashrc', 'view ~/.bashrc', "echo ',p' | ed notes.txt", 'vim +10 ~/.bashrc', 'vim +/alias ~/.bashrc',
  ]),
];

/** Archives unpacked where start-up or credential files live (home, ~/.config, ~/.ssh, /, /etc, /root, a repository's .git); `tar -P`. */
const EXTRACTIONS: readonly ShellCase[] = [
  ...as('ask', CRED, [
    'unzip -d ~ x.zip', 'tar -C ~ -xf x.tar', 'unzip x.zip -d /etc', 'tar -xf x.tar -C /etc', 'tar -xzf x.tgz -C $HOME', 'tar xf x.tar -C ~/', 'unzip -o x.zip -d ~/',
    'unzip x.zip -d ~/.config', 'cd ~ && tar xf x.tar', 'bsdtar -xf x.tar -C ~', '7z x x.7z -o/etc', '7z x -o$HOME x.7z', 'tar -xPf x.tar', 'cd / && tar xf x.tar',
    'unzip x.zip -d .git', 'tar -xf x.tar -C ~/.ssh', 'tar xf x.tar -C ~/.config/fish', 'tar -xf x.tar -C /etc/cron.d', 'unzip -o x.zip -d /root',
    'tar -xf x.tar -C /home/alice', 'cd ~ && cpio -id < x.cpio', 'tar --extract --file x.tar --directory ~',
  ]),
  ...allow([
    'tar -xf x.tar -C build/', 'unzip x.zip -d out/', 'tar xzf x.tgz', 'unzip x.zip', 'tar -tf x.tar -C ~', 'unzip -l x.zip -d ~', 'unzip x.zip -d ~/Downloads/x',
    'tar -xf x.tar -C /tmp/x', 'tar -C /usr/local -xzf go.tar.gz', 'tar -xzf x.tgz -C /opt', 'cd ~/src && tar xf x.tar', 'unzip -p x.zip a > y', 'cpio -idv < x.cpio',
  ]),
];

/** Emptying or deleting history files, clearing the shell's list, turning history off. */
const HISTORY_ERASED: readonly ShellCase[] = [
  ...as('ask', HISTORY, [
    '> ~/.bash_history', 'truncate -s0 ~/.bash_history', 'truncate -s 0 ~/.zsh_history', 'history -c', 'unset HISTFILE', 'export HISTFILE=/dev/null',
    'HISTFILE=/dev/null', 'rm ~/.bash_history', 'cat /dev/null > ~/.bash_history', 'ln -sf /dev/null ~/.bash_history', 'export HISTSIZE=0', 'set +o history',
    'shred -u ~/.bash_history', 'mv ~/.bash_history /tmp/h', 'cp /dev/null ~/.zsh_history', 'declare -x HISTFILESIZE=0', 'sudo truncate -s 0 /root/.bash_history',
    'history -d 12', 'rm ~/.local/share/fish/fish_history', ': > ~/.psql_history',
  ]),
  ...allow([
    'history', 'history | grep make', 'history -w', 'history -a', 'cat ~/.bash_history', 'echo x >> ~/.bash_history', 'tee -a ~/.bash_history < x', 'export HISTFILE=~/.hist2',
    'HISTSIZE=1000', 'set -o history', 'unset HISTSIZE', 'echo $HISTFILE', 'rm -f .history',
  ]),
];

/** More files holding logins (ask, like .netrc) and nothing but credentials (refused): keytabs, rclone, a control plane's kubeconfigs. */
const CREDENTIAL_FILES: readonly ShellCase[] = [
  ...as('ask', LOGIN_READ, ['cat ~/.my.cnf', 'cat ~/.m2/settings.xml', 'grep password /root/.my.cnf', 'cp ~/.m2/settings.xml /tmp/s']),
  ...as('deny', SEC, [
    'cat ~/.config/rclone/rclone.conf', 'cat /etc/krb5.keytab', 'cat x.keytab', 'base64 *.keytab', 'cat /etc/kubernetes/admin.conf', 'cat /etc/kubernetes/pki/ca.key',
    'cat /etc/rancher/k3s/k3s.yaml', 'tar czf k.tgz /etc/kubernetes/pki', 'cp /etc/kubernetes/admin.conf ~/.kube/config', 'klist -kK /etc/krb5.keytab',
  ]),
  ...allow([
    'mysql --defaults-file=~/.my.cnf', 'mvn -s ~/.m2/settings.xml package', 'cat settings.xml', 'cat src/main/resources/settings.xml', 'klist -k /etc/krb5.keytab',
    'kinit -kt /etc/krb5.keytab host/x', 'rclone copy a remote:b', 'cat *.txt', 'mvn package',
  ]),
];

/** Another process's open files through /proc/<pid>/fd (the daemon's config, sockets, deleted files); the reader's own are its stdio. */
const PROC_DESCRIPTORS: readonly ShellCase[] = [
  ...as('deny', SEC, [
    'cat /proc/1234/fd/3', 'cat /proc/$PPID/fd/3', 'cat /proc/*/fd/3', 'cat < /proc/1/fd/0', 'cat /proc/1/task/1/fd/2', 'tail -f /proc/$(pgrep -f echo-agent)/fd/1',
    'cp /proc/1/fd/5 x', 'less /proc/$PPID/fd/7',
  ]),
  ...allow(['cat /proc/self/fd/0', 'cat /proc/thread-self/fd/1', 'ls /proc/1/fd', 'ls -l /proc/self/fd/', 'readlink /proc/1/fd/3', 'cat /proc/cpuinfo']),
];

export const ROUND26_TABLES: Readonly<Record<string, readonly ShellCase[]>> = {
  'parallel --pipe feeding a shell': PARALLEL_PIPE,
  'nix run, develop and shell after global options, and nix shells reading stdin': NIX,
  'kubectl manifests fetched from a URL': REMOTE_MANIFESTS,
  'scripted editors writing start-up files': SCRIPTED_EDITORS,
  'archives unpacked where start-up or credential files live': EXTRACTIONS,
  'shell history emptied, deleted or turned off': HISTORY_ERASED,
  'keytabs, rclone, cluster kubeconfigs, .my.cnf and Maven settings': CREDENTIAL_FILES,
  "another process's descriptors under /proc": PROC_DESCRIPTORS,
};
