import type { ShellCase } from './cases-deny.ts';
import { HOST, INLINE, REC, RH, RR, RS, UNSEEN } from './rule-ids.ts';

const allow = (list: readonly string[]): ShellCase[] => list.map((c): ShellCase => [c, 'allow']);
const as = (decision: 'deny' | 'ask', rule: string, list: readonly string[]): ShellCase[] => list.map((c): ShellCase => [c, decision, rule]);

/**
 * vim's shell replaced (`:set shell=`, `:let &shell=`, in -c, --cmd, +CMD, a vimrc this line wrote, Ex commands on stdin,
 * VIMINIT, $SHELL) by a program that is no shell or one the line can write: `:!`, system(), filters and globs run through
 * it; 'shellcmdflag' and the quoting options change the command line; a value the guard cannot read asks. A program run
 * as the shell, and 'makeprg' and its kin, are walked as the commands vim starts. A plain shell stays allowed.
 */
const VIM_SHELLS: readonly ShellCase[] = [
  ...as('ask', UNSEEN, [
    "vim -c 'set shell=/tmp/x' -c '!ls'", "vim -c ':set shell=/tmp/x | !ls' f", "vim --cmd 'set sh=./x' -c 'r !date' f", "vim +'set shell=/tmp/x' +'!ls'",
    "ex -c 'let &shell=\"/tmp/x\"' -c '!ls' f", "view -c 'let &sh = \"/tmp/x\"' f", "vim -c 'set nu shell=/tmp/x' -c 'echo system(\"ls\")' f",
    "vim -c 'setlocal shell=./sh' f", "vim -c 'exe \"set shell=\" . g:x' f", "vim -c 'call setbufvar(1, \"&shell\", x)' f", "vim -c 'let &shell = g:x' f",
    "vim -c 'set shell+=\\ -x' f", "vim -c 'set shcf=-x\\ -c' -c '!ls'", "vim -c 'set sxq=;' -c '!ls' f", "vim -c 'set shellpipe=\\|\\ sh' -c make",
    'SHELL=/tmp/x vim -c \'!ls\'', 'export SHELL=./sh; vim f', "VIMINIT='set shell=/tmp/x' vim f", "echo 'set shell=/tmp/x' > r.vim; vim -u r.vim f",
    "vim -es < <(echo 'set shell=/tmp/x')", "vim -c 'set shell=sh\\ /tmp/s' f", "sudo vim -c 'set shell=/tmp/x' /etc/hosts", "gvim --cmd 'set shell=$SH2' f",
    "vim -c 'set shell=/var/tmp/../tmp/sh' f", "nvim --headless +'set sh=./bin/sh' +'!make' +q", "vim -c 'execute \"set\" \"shell=/tmp/x\"' f",
  ]),
  ['nvim -c \'set shell=python3\' -c \'!print(1)\'', 'ask', INLINE],
  ...as('deny', RR, ["vim -c 'set shell=rm\\ -rf\\ /' -c '!x'", "vim -c 'set shell=rm\\ -rf\\ /'", "vim -c 'set makeprg=rm\\ -rf\\ /' -c make"]),
  ["vim -c 'set mp=rm\\ -rf\\ ~' -c make", 'deny', RH],
  ["nvim +'set grepprg=rm\\ -rf\\ /etc' +'grep x'", 'deny', RS],
  ...allow([
    "vim -c 'set nu' f", "vim -c 'set shell=/bin/bash' -c '!ls'", "vim -c 'set shell=zsh' -c '!ls'", "vim -c 'set shell=bash\\ -l' f", 'SHELL=/bin/zsh vim f',
    "vim -c 'set makeprg=make\\ -j4' -c make", "vim -c 'set shellcmdflag=-ic' -c '!ls'", "vim -c 'set shell?' f", "vim -c 'set sw=2 sts=2 sh=/usr/bin/fish' f",
    "vim -c 'set shell=~/bin/zsh' f", "vim -c 'set shiftwidth=4' f", "vim -c 'setf sh' f", "vim -c 'set ft=sh' x.sh", 'SHELL=/bin/bash; vim f',
    "nvim -c 'let &shell = \"/usr/bin/zsh\"' f", "vim -c 'set kp=:help' f", "vim -c '%s/shell: bash/shell: zsh/' -c wq ci.yml", 'SHELL=/tmp/x ls',
  ]),
];

/**
 * `${X/pat/rep}`, `${X//…}`, `${X/#…}`, `${X/%…}`, `${X:off}`, `${X:off:len}` worked out on a known value as bash does.
 * What depends on a shell option (nocasematch, patsub_replacement's `&`, extglob), a pattern mvdan and bash read apart
 * (`${X///x}`), a number not written as one, or a substring error stays unknown: a soft block, never a wrong value.
 */
const REPLACEMENTS_AND_SLICES: readonly ShellCase[] = [
  // a quoted character in brackets is a member: `[\]]` is the class of `]` (read as `\` then `]`, the secret was allowed)
  ...as('deny', 'shell.secret.read', ['F=/etc/shadow]; cat "${F%[\\]]}"', 'F=/etc/shadow]; cat "${F/%[\\]]/}"', 'F=/etc/shadow^; cat "${F%[\\^]}"', 'F=/etc/shadow]; cat ${F%["]"]}']),
  ...as('deny', RS, [
    'X=/tmpetc; rm -rf ${X/tmp/}', 'X=/etcetera; rm -rf "${X/%etera/}"', 'X=xusr; rm -rf /${X/#x}', 'P=/usr/lib; rm -rf "${P:0:4}"', 'X=/etc/x; rm -rf ${X:0:-2}',
    'X=/usr/app; rm -rf ${X//\\/app/}', 'X=/tmpetc; sudo rm -rf "${X/tmp}"', 'X=/a/usr; rm -rf ${X/\\/a/}', 'X=/usr/bin; rm -rf ${X/\\/b*/}', 'X=/ETC; rm -rf ${X/ETC/etc}',
    'X=/xetc; rm -rf ${X/[a-z]/}',
    // a `]` first in brackets is a member (trims too): `[]]` is not an empty class
    'X=/etc]; rm -rf ${X%[]]}', 'X=/]usr; rm -rf /${X#/[]a]}', 'X=/etc]]; rm -rf ${X/%[]]*/}',
  ]),
  ...as('deny', RR, [
    'X=abc/; rm -rf ${X:3}', 'X=xy/z; rm -rf "${X:2:1}"', 'X=/a/b/c; rm -rf ${X//[abc]/}', 'D=build/; rm -rf ${D/build/}', 'X=/; Y=${X:0:1}; rm -rf "$Y"',
    'X=x/; rm -rf ${X: -1}', 'X=/ab; rm -rf ${X:0:1}', 'X=a; rm -rf ${X/#a//}', 'X=xx/; rm -rf ${X//x}',
  ]),
  ...as('ask', REC, [
    'X=/tmpetc; rm -rf ${X/TMP/}', 'X=/ab; rm -rf ${X/ab/&}', 'X=/ab; rm -rf ${X:1:-5}', 'rm -rf ${X/a/b}', 'X=/tmpetc; rm -rf ${X/$Y/}', 'X=/tmpetc; rm -rf ${X/*(t)/}',
    'X=/tmpetc; rm -rf ${X:$N}', 'X=/tmpetc; rm -rf ${X:010}', 'X=/etc/x; rm -rf ${X///x}', 'X=/tmp/build; rm -rf ${X/build/cache}', 'X=/x/etc; rm -rf ${X/\\/x/~}',
    'X=/tmpetc; rm -rf ${X/[[:alpha:]]mp/}', 'a=(/tmpetc); rm -rf ${a[0]/tmp/}', 'set -- /tmpetc; rm -rf ${@/tmp/}', 'X=/tmpetc; rm -rf ${!X/tmp/}',
  ]),
  ...allow([
    'X=a/b; echo ${X/a/b}', 'f=src/a.ts; cp "$f" "${f/src/dist}"', 'v=1.2.3; echo ${v//./-}', 's=abcdef; echo ${s:1:3} ${s: -2}', 'X=/etc; echo ${X/etc/}',
    'b=feature/x; git checkout "${b/#feature\\//}"', 'p=report.txt; mv "$p" "${p/%.txt/.md}"',
  ]),
];

/**
 * compose's `run` and `exec` given the host on the command line (`-v /:/host`, `--volume`, `--cap-add`, exec's
 * `--privileged`, podman-compose's `--podman-run-args`), and Kubernetes pods: `kubectl run --privileged`, a `--overrides`
 * pod spec or JSON patch with hostPath /, a system directory, secrets or the docker socket, `privileged`, `hostPID` or host
 * capabilities; `kubectl debug node/…` and `--profile=sysadmin`. The project, named volumes, what follows the service and
 * harmless overrides stay allowed.
 */
const COMPOSE_AND_PODS: readonly ShellCase[] = [
  ...as('ask', HOST, [
    'docker compose run -v /:/host app sh', 'docker compose run --rm -v /etc:/etc app', 'docker-compose run --volume /:/h app', 'podman-compose run -v /:/h app',
    'docker-compose run --volume=/var/run/docker.sock:/var/run/docker.sock app', 'docker compose -f x.yml -p p run -v ~/.ssh:/root/.ssh app git pull',
    'docker compose run -T -e A=1 -v $HOME:/h app', 'docker compose exec --privileged app sh', 'docker-compose exec --privileged app sh', 'docker compose run --cap-add SYS_ADMIN app',
    'nerdctl compose run -v /:/h app', 'podman compose run -v /:/h app', 'podman-compose --podman-run-args="--privileged" up', "podman-compose --podman-run-args='-v /:/h' run app",
    'sudo docker compose run -v /:/h app', 'docker -H tcp://x compose run -v /:/h app', 'docker compose --profile dev run -v /:/h app', 'docker compose run -itv /:/h app',
    "kubectl run x --image=alpine --overrides='{\"spec\":{\"hostPID\":true}}'", "kubectl run x --image=y --overrides '{\"spec\":{\"volumes\":[{\"name\":\"h\",\"hostPath\":{\"path\":\"/\"}}]}}'",
    "kubectl run x --image=y --overrides='{\"spec\":{\"volumes\":[{\"name\":\"s\",\"hostPath\":{\"path\":\"/var/run/docker.sock\"}}]}}'",
    "kubectl run x --image=y --overrides='{\"spec\":{\"containers\":[{\"name\":\"x\",\"securityContext\":{\"privileged\":true}}]}}'",
    "kubectl run x --image=y --overrides='{\"spec\":{\"containers\":[{\"name\":\"x\",\"securityContext\":{\"capabilities\":{\"add\":[\"SYS_ADMIN\"]}}}]}}'",
    "kubectl -n dev run x --image=y --override-type=json --overrides='[{\"op\":\"add\",\"path\":\"/spec/hostPID\",\"value\":true}]'",
    "kubectl run x --image=y --override-type=json --overrides='[{\"op\":\"add\",\"path\":\"/spec/volumes/-\",\"value\":{\"name\":\"r\",\"hostPath\":{\"path\":\"/root/.ssh\"}}}]'",
    "kubectl run x --image=y --overrides='spec: {hostPID: true}'", 'O=\'{"spec":{"hostPID":true}}\'; kubectl run x --image=y --overrides="$O"',
    'kubectl run x --image=y --privileged', 'kubectl run --privileged=true x --image=y', 'oc run x --image=y --privileged', 'kubectl debug node/worker-1 -it --image=busybox',
    'kubectl debug nodes/n1 --image=x', 'oc debug node/n1', 'kubectl debug mypod -it --image=busybox --profile=sysadmin', 'kubectl --context prod debug node/n1 --image=x',
  ]),
  ...allow([
    'docker compose run app npm test', 'docker compose run --rm app pytest -v /tmp', 'docker compose run app -v /:/h', 'docker compose run -v ./:/src app make',
    'docker compose run -v data:/data app', 'docker compose exec app sh', 'docker-compose run --rm web python manage.py migrate', "podman-compose --podman-run-args='--rm' up",
    'kubectl run x --image=y', 'kubectl run x --image=y --privileged=false', "kubectl run x --image=y --overrides='{\"spec\":{\"nodeSelector\":{\"a\":\"b\"}}}'",
    "kubectl run x --image=y --overrides='{\"spec\":{\"volumes\":[{\"name\":\"d\",\"hostPath\":{\"path\":\"/tmp/data\"}}]}}'", 'kubectl run x --image=y -- --privileged',
    'kubectl debug mypod -it --image=busybox', 'kubectl get nodes/x', "kubectl run x --image=y --overrides='{\"spec\":{\"hostPID\":false}}'", 'kubectl exec pod -- ls',
    // a value not known on the line stays unread, as `docker run -v $V:/h` does
    'kubectl run x --image=y --overrides="$O"',
  ]),
];

export const ROUND22_TABLES: Readonly<Record<string, readonly ShellCase[]>> = {
  "vim's shell and the programs it runs commands with": VIM_SHELLS,
  'parameter replacements and substrings with known values': REPLACEMENTS_AND_SLICES,
  'compose run and exec, and Kubernetes pods, handed the host': COMPOSE_AND_PODS,
};
