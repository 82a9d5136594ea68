import type { ShellCase } from './cases-deny.ts';
import { DL, HOST, INLINE, REC, RH, RR, RS, UNSEEN, UNSEEN_SCRIPT } from './rule-ids.ts';

const allow = (list: readonly string[]): ShellCase[] => list.map((c): ShellCase => [c, 'allow']);
const as = (decision: 'deny' | 'ask', rule: string, list: readonly string[]): ShellCase[] => list.map((c): ShellCase => [c, decision, rule]);

/**
 * Containers and namespaces handed the host: the host's root, a system directory, the home directory, secrets, a disk or
 * the engine's socket mounted (`-v`, `--volume`, `--mount … source=`, podman's `--rootfs`), `--privileged` (also on
 * exec), `--pid=host`, host capabilities, systemd-nspawn on / and nsenter into PID 1 — behind wrappers, quoting and
 * absolute paths too. The project, named volumes, /tmp, ordinary devices and what follows the image stay allowed.
 */
const CONTAINERS: readonly ShellCase[] = [
  ...as('ask', HOST, [
    'docker run -v /:/host alpine sh', 'podman run --volume /:/x alpine', 'docker run --privileged alpine', 'docker run --pid=host alpine', 'docker run --pid host alpine',
    'docker run -v /var/run/docker.sock:/var/run/docker.sock alpine', 'docker run -itv /:/h alpine', 'docker run -v/:/h alpine', 'docker run --volume=/etc:/etc:ro alpine',
    'docker run -v ~/.ssh:/root/.ssh:ro alpine git clone x', 'docker run -v $HOME:/h alpine', 'docker run -v "$HOME/.aws:/root/.aws" amazon/aws-cli s3 ls',
    'docker run --mount type=bind,source=/,target=/host alpine', 'docker run --mount=type=bind,src=/var/run/docker.sock,dst=/s x', 'docker run --cap-add=SYS_ADMIN alpine',
    'docker run --cap-add all x', 'docker run --cap-add=cap_sys_admin x', 'docker run --device /dev/sda alpine', 'docker run --device=/dev/nvme0n1:/dev/xvda x',
    'docker run -v /proc:/host/proc alpine', 'docker run -v /var/run:/var/run x', 'docker run -v "$XDG_RUNTIME_DIR/docker.sock:/s" alpine',
    'docker run -v /run/user/1000/podman/podman.sock:/s alpine', 'docker run -v /tmp/..:/h alpine', 'docker run -u 1000 -e A --entrypoint sh -v /:/h alpine',
    'docker run -v=/:/h alpine', 'docker container run -v /:/h alpine', 'docker -H tcp://x:2375 run -v /:/h alpine', 'docker create --privileged alpine', 'docker exec --privileged c sh',
    'nerdctl run -v /:/h alpine', 'podman run --rootfs / sh', '/usr/bin/podman --remote run -v /etc:/etc x', 'sudo -E docker run -v /:/mnt --rm -it alpine chroot /mnt sh',
    '"docker" run -v \'/\':/h alpine', 'd\\ocker run -v /:/h alpine', 'timeout 60 docker run --privileged x', 'nice podman run --pid=host x', 'env DOCKER_HOST=x docker run --privileged alpine',
    'command docker run --privileged alpine', 'docker run -v "${SRC:-/}:/h" x', 'D=/; docker run -v $D:/h x', "bash -c 'docker run -v /:/h x'", 'xargs docker run -v /:/h < imgs', 'find . -exec docker run -v /:/h {} \\;',
    'systemd-nspawn -D /', 'systemd-nspawn --directory=/ sh', 'systemd-nspawn -D ./r --bind=/var/run/docker.sock', 'systemd-nspawn -i /dev/sda',
    'nsenter -t 1 -a sh', 'nsenter --target=1 --mount --uts sh', 'nsenter -t $PID -n ip a', 'nsenter --mount=/proc/1/ns/mnt sh', 'nsenter -m/proc/1/ns/mnt sh',
  ]),
  ['sudo nsenter -t 1 -m -u -i -n -p -- rm -rf /', 'deny', RR],
  ['unshare -r rm -rf /', 'deny', RR],
  ...allow([
    'docker run -v $PWD:/src image make', 'docker run --rm -it -v "$(pwd)":/app -w /app node:20 npm test', 'docker run --name web -p 8080:80 nginx',
    'docker run -d --restart unless-stopped -v data:/var/lib/postgresql/data postgres', 'docker run -v ~/src/app:/app alpine', 'docker run -v ./:/src alpine',
    'docker run --mount type=volume,src=data,dst=/d alpine', 'docker run --cap-add NET_ADMIN alpine', 'docker run --device /dev/fuse alpine', 'docker run -v /tmp:/tmp alpine',
    'docker run alpine -v /:/x', "docker run alpine sh -c 'ls /'", 'docker run --privileged=false x', 'docker run --network host alpine', 'docker exec c ls',
    'docker run -v $HOME/.cache/pip:/root/.cache/pip python pip install x', 'docker run --env-file .env -e X=1 --name x alpine', 'docker compose up -d', 'docker ps',
    'podman run --rootfs ./rootfs sh', 'systemd-nspawn -D ./rootfs', 'systemd-nspawn -bD ~/machines/deb', 'nsenter -t 4242 -n ip a', 'unshare -r sh', 'kubectl run x --image=y',
  ]),
];

/**
 * Editors reading commands on stdin from a redirect (`vim -es < FILE`, `ex -s < FILE`, `< <(…)`), judged as `sh < FILE` is:
 * a file this line wrote and a static substitution are read, a substitution or name not known asks, a download asks;
 * an ordinary file stays allowed, like `sh < file`.
 */
const EDITOR_STDIN: readonly ShellCase[] = [
  ...as('deny', RR, [
    "echo '!rm -rf /' > s; vim -es < s", "echo '!rm -rf /' > s; ex -s < s", "vim -es < <(echo '!rm -rf /')", "printf '%s\\n' '!rm -rf /' > e.ex; nvim -es < e.ex",
    "echo '!rm -rf /' > s.vim; nvim --headless -S s.vim",
  ]),
  ...as('ask', UNSEEN_SCRIPT, ['vim -es < <(cat x)', 'vim -es < $F', 'ex -s f < "$SCRIPT"', 'view -es < <(git show HEAD:x)', 'nvim -l <(cat x)']),
  ['ex -s < <(curl x)', 'ask', DL],
  ['command vim -es < <(echo \'!rm -rf /\')', 'deny', RR],
  // Ex commands that run a shell through :execute, source a file this line wrote, or run another interpreter's code
  ...as('deny', RR, [
    "vim -c 'exe \"!rm -rf /\"'", "vim -c 'execute \"silent !rm -rf /\"'", "echo '!rm -rf /' > x.vim; vim -c 'so x.vim'", "echo '!rm -rf /' > x.vim; vim -c 'source x.vim' f",
    "vim -c 'lua os.execute(\"rm -rf /\")'", "vim -c 'py3 import os; os.system(\"rm -rf /\")'",
  ]),
  ...as('ask', INLINE, ["nvim --headless +'lua os.execute(\"id\")' +q", "vim -c 'perl system(\"x\")'", "echo 'py3 import os' | vim -es", "vim -c 'set nu | rubydo $_.upcase!'"]),
  ...allow([
    "vim -c 'so session.vim'", "vim -c 'set ft=perl' x.pl", "vim -c 'set syntax=python' f", "vim --cmd 'luafile init.lua'", 'nvim -l init.lua', "vim -c 'exe \"normal gg\"' f",
  ]),
  ...allow(['vim -es < file', 'ex -s < script', 'ex < edits.ex f', 'vim -es < /dev/null', "vim -es '+%s/a/b/' '+wq' f", "nvim --headless -c 'qa' f", 'vim file.txt', "echo ':wq' | vim -es f"]),
];

/**
 * Program files for awk and sed (`-f FILE`, `--file=`, gawk's `-E`, `-i`, `--source`): a file this line wrote or a static
 * substitution is read (awk's `system("CMD")` strings are walked as shell code), a substitution not known asks, a download
 * asks; an ordinary program file stays allowed, like `bash script.sh` and `perl script.pl`.
 */
const SCRIPT_FILES: readonly ShellCase[] = [
  ...as('deny', RR, [
    "sed -f <(echo '1e rm -rf /') f", "echo '1e rm -rf /' > s.sed; sed -f s.sed f", "gawk -f <(echo 'BEGIN{system(\"rm -rf /\")}')",
    "echo 'BEGIN { system(\"rm -rf /\") }' > a.awk; awk -f a.awk", "awk 'BEGIN{system(\"rm -rf /\")}'", "awk '{ print | \"rm -rf /\" }' f",
    "gawk --source='BEGIN{\"rm -rf /\" | getline x}'", "echo 'BEGIN{system(\"rm -rf /\")}' | awk -f - f", "busybox awk 'BEGIN{system(\"rm -rf /\")}'",
    "sudo awk 'BEGIN{system(\"rm -rf /\")}'", "/usr/bin/awk -f <(printf 'BEGIN{system(\"rm -rf /\")}')", "busybox sed -f <(echo '1e rm -rf /') f",
  ]),
  ...as('ask', UNSEEN_SCRIPT, [
    'gawk -f <(cat x) f', 'awk --file=<(cat x) f', 'mawk -f <(cat x)', 'busybox awk -f <(cat x)', '/usr/bin/gawk -f <(cat x) f', 'command awk -f <(cat x)',
    "gawk -i <(cat x) 'BEGIN{}'", 'sed -f <(cat x) f', 'sed --file=<(cat x) f', 'busybox sed -f <(cat x) f', 'sudo sed -i -f <(cat x) /etc/hosts',
  ]),
  ...as('ask', INLINE, ["gawk --source='BEGIN{system(\"x\")}'", "echo 'BEGIN{system(\"make\")}' > a.awk; awk -f a.awk f"]),
  ['env awk "BEGIN{system(\\"rm -rf ~\\")}"', 'deny', RH],
  ...as('ask', DL, ['gawk -f <(curl x)', 'curl -o p.awk x; awk -f p.awk f', 'sed -f <(wget -qO- x) f']),
  ...allow([
    'awk -f FILE', 'awk -f prog.awk data.txt', 'sed -f FILE x', 'sed -f fix.sed -i src/a.ts', "awk '{print $1}' file", 'sed -n 1,5p file', 'perl FILE', 'perl script.pl',
    "echo '{ print $2 }' > a.awk; awk -f a.awk f", "echo 's/a/b/' > s.sed; sed -f s.sed f", "gawk -e '{ n++ } END { print n }' f", 'awk -f - f', "awk -v 'cmd=system' '{print cmd}' f",
  ]),
];

/**
 * A shell or interpreter run on each name a search or listing gives it (`rg --pre sh`, `find -exec sh {} ;`, `fd -x bash`,
 * `xargs sh`, a `while read` over find): every file found becomes a script nobody chose to run. Named scripts, modules,
 * `bash -n` (syntax only) and other programs stay allowed.
 */
const PER_FILE_SCRIPTS: readonly ShellCase[] = [
  ...as('ask', UNSEEN_SCRIPT, [
    'rg --pre sh pattern', 'rg --pre=bash x', 'rg --pre=/usr/bin/python3 x', 'find . -exec sh {} \\;', "find . -name '*.sh' -exec bash {} +", 'fd -x sh', 'fd -e sh -x bash',
    'fd --exec python3', 'xargs sh', 'ls | xargs -I{} python3 {}', "find . -name '*.sh' | while read f; do sh \"$f\"; done", 'sudo find / -name x -exec /bin/sh {} \\;',
  ]),
  ...allow([
    'rg pattern', "rg --pre 'pdftotext' foo", 'rg --pre ./scripts/pre.sh foo', "find . -name '*.sh' -exec bash -n {} \\;", "find . -name '*.py' -exec python3 -m py_compile {} +",
    "find . -name '*.sh' | xargs shellcheck", 'fd -e ts -x wc -l', 'xargs -n1 echo', "find . -name '*.sh' -exec shellcheck {} +", 'echo a.sh | xargs sh',
  ]),
];

/**
 * Pagers, editors and filters that are a bare shell or interpreter (`git -c core.pager=sh`, `PAGER=bash man`, `EDITOR=python3`,
 * `LESSOPEN='|sh %s'`, `man -P sh`, `tar --to-command=sh`): they run the text or file they are given as a script. git's
 * `!sh` alias reads the terminal, as `sh` does, and real pagers and editors stay allowed.
 */
const INPUT_RUNNERS: readonly ShellCase[] = [
  ...as('ask', UNSEEN_SCRIPT, [
    'git -c core.pager=sh log', "git -c core.pager='bash -s' log", 'git -c core.editor=sh commit', 'git -c pager.log=python3 log', 'GIT_PAGER=sh git log', 'PAGER=bash man ls',
    'export PAGER=sh; man ls', 'env EDITOR=python3 git commit', "LESSOPEN='|sh %s' less x", "LESSOPEN='| bash %s' less x", 'man -P sh ls', 'bat --pager sh x',
    'tar xf x.tar --to-command=sh', 'tar -I sh -xf x.tar', 'git config core.pager sh', 'GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=core.pager GIT_CONFIG_VALUE_0=sh git log',
    'env PAGER=sh git log', 'sudo PAGER=sh man ls', 'git -c "core.pager=sh" log', 'git -C /repo -c core.pager=sh log', '"/usr/bin/rg" --pre "sh" x',
    'git -c diff.x.textconv=perl diff', "git -c filter.x.smudge='python3 -' checkout .", "git -c credential.helper='!sh' push", 'sudo GIT_EDITOR=/bin/bash git rebase -i HEAD~2',
    // behind a wrapper it is the same shell
    "git -c core.pager='/usr/bin/env sh' log", "git -c core.pager='nice sh' log", "git -c core.pager='env -i sh' log", "PAGER='timeout 9 bash' man ls",
  ]),
  ...allow([
    'git -c core.pager=less log', "git -c core.pager='less -R' log", 'git -c core.editor=vim commit', "git -c alias.x='!sh' x", "LESSOPEN='|lesspipe %s' less x",
    "LESSOPEN='||/usr/bin/lesspipe.sh %s' less x", 'man -P cat ls', "tar xf x.tar --to-command='md5sum'", 'tar -I zstd -xf x.tar', "EDITOR='code --wait' git commit",
    'git -c credential.helper=store push', "PAGER='python3 pager.py' man ls", 'less x', 'rg --pre sh --no-pre x',
    "git -c core.pager='env LESS=R less' log", "PAGER='nice less' man ls",
  ]),
];

/**
 * PATH given the working directory (`.`, an empty entry, a relative one) or a world-writable directory: a program name may
 * then run a file the line wrote. PATH left alone, extended with absolute directories or the home's, stays allowed.
 */
const PATH_ENTRIES: readonly ShellCase[] = [
  ...as('ask', UNSEEN, [
    'PATH=.:$PATH make', 'PATH=/tmp/x:$PATH cmd', 'export PATH=/tmp/x:$PATH; ls', 'export PATH=.:$PATH', 'PATH=$PATH: make', 'PATH=:$PATH make', 'PATH+=:. ; ls',
    'env PATH=.:/usr/bin ls', 'sudo PATH=/tmp:$PATH make', 'declare -x PATH=bin:$PATH', 'cd /tmp && PATH=$PWD:$PATH ls', 'PATH=/var/tmp/../tmp/b:$PATH x',
    'env -i PATH=/tmp/bin ls', 'sudo env PATH=.:/usr/bin make', 'PATH=. ls', 'PATH="" ls', 'export PATH=./bin${PATH:+:$PATH}', 'typeset -x PATH=./b',
    "echo 'rm -rf ~' > ls; chmod +x ls; PATH=.:$PATH ls", 'PATH=/dev/shm:$PATH x',
  ]),
  ...allow([
    'export PATH="$HOME/.local/bin:$PATH"', 'PATH=/usr/local/go/bin:$PATH go build', 'PATH="$(npm bin):$PATH" jest', 'env -i PATH=/bin ls', 'PATH=~/bin:$PATH x', 'export PATH',
    'echo $PATH', 'PATH=/usr/bin:/bin make',
  ]),
];

/**
 * Parameter expansions worked out where the value is known on the line: `${X:=/}` assigns its default for later words,
 * `:-`/`:=` count an empty value as unset, an unquoted default's `~` expands, and `#`, `##`, `%`, `%%`, `,,` apply to a
 * known value. What they leave elsewhere stays a soft block.
 */
const DEFAULT_EXPANSIONS: readonly ShellCase[] = [
  ...as('deny', RR, [
    ': ${X:=/}; rm -rf $X', ': "${X:=/}"; rm -rf "$X"', 'echo ${X=/} >/dev/null; rm -rf $X', 'X=; rm -rf ${X:-/}', "X='/*'; rm -rf ${X%\\*}",
    'X=${X:-/}; sudo rm -rf "$X"', ': ${DIR:=/}; find "$DIR" -delete', 'X=${X:-/}; rm -rf "$X"', 'rm -rf ${X:-/}',
    'X=/; : ${Y:=$X}; rm -rf "$Y"', ': ${X:=/}${Z:=x}; rm -rf $X', 'for d in "${X:=/}"; do rm -rf "$d"; done', 'rm -rf "${X:=/}"', 'f() { : ${D:=/}; rm -rf "$D"; }; f',
    'busybox rm -rf ${X:-/}', 'X=abc; rm -rf /${X#abc}',
  ]),
  ...as('deny', RS, [
    'X=/usr/local; rm -rf "${X%/*}"', 'X=/usr/local/x; rm -rf "${X%%/local*}"', 'X=a/etc; rm -rf "/${X#*/}"', 'X=a/b/etc; rm -rf "/${X##*/}"', 'X=ETC; rm -rf /${X,,}',
    // an empty pattern trims nothing: `${X#}` is X, not its length (the parser gives both the same operator)
    'X=etc; rm -rf /${X#}', 'X=etc; rm -rf "/${X##}"',
  ]),
  ...as('deny', RH, [': ${D:=~}; rm -rf "$D"', 'rm -rf ${X:-~}', 'rm -rf ${X:-~/}', 'rm -rf ${HOME%/*}']),
  ...as('ask', REC, [
    'X=; rm -rf ${X-/}', '(: ${X:=/}); rm -rf "$X"', 'X=build; rm -rf "${X:-/}"', 'X=build; rm -rf "${X:=/}"', ': "${D:=~}"; rm -rf "$D"', 'rm -rf "${X:-~}"',
    'X=/tmp/x; rm -rf ${X%/*}', 'rm -rf "${TMPDIR:-/tmp}/build"', 'X=etc; rm -rf /${#X}', 'B=${B:-build}; rm -rf "$B"', 'X=/a; rm -rf "${X%\'/a\'}"',
  ]),
  ...allow(['X=/usr/local; echo "${X%/*}"', 'f=src/a.ts; echo "${f##*/}" "${f%.ts}.js"', ': ${X:=/}; ls "$X"', 'rm -f "${LOG:-build.log}"']),
];

export const ROUND21_TABLES: Readonly<Record<string, readonly ShellCase[]>> = {
  'containers and namespaces handed the host': CONTAINERS,
  'editors reading commands on stdin from a redirect': EDITOR_STDIN,
  'awk and sed program files and the commands awk strings run': SCRIPT_FILES,
  'shells and interpreters run on each name found': PER_FILE_SCRIPTS,
  'pagers, editors and filters that are a shell or interpreter': INPUT_RUNNERS,
  'PATH given the working directory or a world-writable directory': PATH_ENTRIES,
  'parameter defaults, assignments and trims with known values': DEFAULT_EXPANSIONS,
};
