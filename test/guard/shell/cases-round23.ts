import type { ShellCase } from './cases-deny.ts';
import { HOST, PWR, RH, RR, UNSEEN } from './rule-ids.ts';

const allow = (list: readonly string[]): ShellCase[] => list.map((c): ShellCase => [c, 'allow']);
const as = (decision: 'deny' | 'ask', rule: string, list: readonly string[]): ShellCase[] => list.map((c): ShellCase => [c, decision, rule]);

/**
 * Programs that start the shell $SHELL names, or one an option names (sudo -s, doas -s, su/runuser -m or --shell, script,
 * flock -c, entr -s, chroot/unshare/nsenter without a program, systemd-run -S, tmux starting a server, screen's new
 * window or -s, xterm without -e, less's and gdb's shell commands, make's SHELL= and MAKEFLAGS): a value that is no
 * shell, one the line can write (/tmp, a relative path, a bare name su runs from here) or one the guard cannot see asks,
 * and what it runs is walked. Where the program does not read $SHELL (sudo -i, su with a login, tmux attach, screen CMD,
 * make's environment, nohup, find -exec, man) or the value is a plain shell, it stays allowed.
 */
const SHELL_STARTERS: readonly ShellCase[] = [
  ...as('ask', UNSEEN, [
    'SHELL=/tmp/x sudo -s', 'SHELL=/tmp/x sudo -s id', 'SHELL=./sh sudo -u bob -s', 'export SHELL=/var/tmp/sh; sudo --shell', 'env SHELL=/tmp/x sudo -s',
    'SHELL=$X sudo -s', 'SHELL=$(cat f) sudo -s', 'export SHELL="$NEW"; sudo -s', 'SHELL=/usr/bin/python3 sudo -s', 'SHELL=/tmp/x; bash -c "sudo -s"',
    'SHELL=/tmp/x doas -s', 'SHELL=/tmp/x su -m', 'SHELL=/tmp/x su -p bob -c id', 'SHELL=bash su --preserve-environment', 'SHELL=/tmp/x runuser -m bob',
    'su -s /tmp/x', 'su -s ./sh bob -c id', 'su --shell=$S', 'runuser -s /tmp/x bob', 'SHELL=/tmp/x script -q /dev/null', "SHELL=/tmp/x script -q -c 'make test' /dev/null",
    "SHELL=/tmp/x flock /tmp/lock -c 'make'", "SHELL=/tmp/x entr -s 'make' < files", 'SHELL=/tmp/x chroot /srv/root', 'SHELL=/tmp/x unshare -r',
    'SHELL=/tmp/x nsenter -t 1234 -n', 'SHELL=/tmp/x systemd-run --user -S', 'SHELL=/tmp/x tmux', 'SHELL=/tmp/x tmux new -s dev', "SHELL=/tmp/x tmux -c 'ls'",
    'SHELL=/tmp/x screen -S dev', 'screen -s /tmp/x', 'SHELL=/tmp/x xterm', "SHELL=/tmp/x less +'!ls' f", "SHELL=/tmp/x gdb -batch -ex 'shell ls'",
    'make SHELL=/tmp/x', 'make SHELL=./sh test', "MAKEFLAGS='SHELL=/tmp/x' make", 'make SHELL=$S', "make .SHELLFLAGS='-x -c' SHELL=/tmp/sh", 'SHELL=$X vim f',
  ]),
  ...as('deny', RR, ["make SHELL='rm -rf /'", "echo 'rm -rf /' > /tmp/x; chmod +x /tmp/x; SHELL=/tmp/x sudo -s", "make 'X!=rm -rf /'"]),
  ...as('deny', RH, ["SHELL='rm -rf ~;' less +'!ls' f", "printf 'rm -rf ~\\n' > sh; chmod +x sh; SHELL=sh su -m", "make 'V=$(shell rm -rf ~)'"]),
  ["make .SHELLFLAGS='-c reboot'", 'deny', PWR],
  ...allow([
    'sudo -s', 'sudo -i', 'SHELL=/tmp/x sudo -i', 'SHELL=/bin/bash tmux', 'SHELL=/usr/bin/zsh sudo -s', 'SHELL=/bin/zsh screen', 'SHELL=~/bin/zsh su -m',
    'SHELL=/tmp/x su', 'SHELL=/tmp/x su -m -', 'SHELL=/tmp/x su -m -l bob', 'SHELL=/tmp/x runuser -u bob -- id', 'SHELL=/tmp/x tmux ls', 'SHELL=/tmp/x tmux attach -t dev',
    'SHELL=./sh tmux', 'SHELL=/tmp/x screen -r dev', 'SHELL=/tmp/x screen -ls', 'SHELL=/tmp/x screen top', 'SHELL=/tmp/x xterm -e top', 'SHELL=/tmp/x less f',
    'SHELL=/tmp/x flock /tmp/lock make', 'SHELL=/tmp/x chroot /srv/root ls', 'SHELL=/tmp/x nohup ./run.sh', 'SHELL=/tmp/x find . -name x -exec ls {} +',
    'SHELL=/tmp/x man ls', 'SHELL=/tmp/x make', 'make SHELL=/bin/bash', "make 'SHELL+=-x'", 'make .SHELLFLAGS=-ec', 'make CFLAGS=-O2 all', "make 'V=$(shell git describe)'",
    "SHELL=/bin/bash script -q -c 'make' /dev/null", "SHELL=/bin/zsh less +'!ls' f", 'SHELL=/tmp/x gdb ./a.out',
  ]),
];

const POD_HOSTPATH = 'apiVersion: v1\nkind: Pod\nmetadata:\n  name: x\nspec:\n  containers:\n  - name: c\n    image: alpine\n  volumes:\n  - name: h\n    hostPath:\n      path: /\n';
const DEPLOYMENT = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  labels: {app: web, privileged: "true"}
spec:
  replicas: 2
  template:
    spec:
      containers:
      - name: web
        image: nginx
        securityContext: {privileged: false, capabilities: {add: [NET_BIND_SERVICE]}}
        volumeMounts: [{name: data, mountPath: /data}]
      volumes:
      - {name: data, hostPath: {path: /srv/data}}
      - {name: cfg, configMap: {name: web}}
      - {name: tmp, emptyDir: {}}
`;
const COMPOSE_ROOT = 'services:\n  app:\n    image: alpine\n    volumes:\n      - /:/host\n';
const COMPOSE_PRIVILEGED = 'services:\n  app:\n    image: alpine\n    privileged: true\n';
const COMPOSE_APP = `services:
  db:
    image: postgres
    volumes:
      - data:/var/lib/postgresql/data
      - ./init:/docker-entrypoint-initdb.d
  web:
    build: .
    ports: ["8080:80"]
    privileged: false
    cap_add: [NET_ADMIN]
    devices: ["/dev/fuse"]
    volumes:
      - type: bind
        source: ./src
        target: /app
      - "\${DATA_DIR}:/data"
volumes:
  data: {}
`;

/**
 * Manifests and compose files this line wrote (a redirect, tee, printf, a here-document on stdin, a process substitution)
 * and then handed to what starts them: `kubectl apply|create|replace -f`, `oc`, `podman kube play`, `docker compose
 * up|run|create` (-f, COMPOSE_FILE, or the default names in the project directory), read as YAML (several documents,
 * Lists, workloads' pod templates, merge keys) for hostPath /, a system directory, secrets or the engine's socket,
 * privileged, hostPID / pid: host, host capabilities, a disk, a named volume bound to /. A normal deployment or compose
 * project, other verbs, and files not written on the line stay allowed.
 */
const WRITTEN_MANIFESTS: readonly ShellCase[] = [
  ...as('ask', HOST, [
    `cat > p.yaml <<EOF\n${POD_HOSTPATH}EOF\nkubectl apply -f p.yaml`, 'kubectl apply -f - <<EOF\napiVersion: v1\nkind: Pod\nspec:\n  hostPID: true\nEOF',
    "kubectl create -f - <<'EOF'\napiVersion: apps/v1\nkind: DaemonSet\nmetadata: {name: d}\nspec:\n  template:\n    spec:\n      containers:\n      - name: c\n        image: x\n        securityContext:\n          privileged: true\nEOF",
    'cat <<EOF | kubectl apply -f -\napiVersion: v1\nkind: List\nitems:\n- {apiVersion: v1, kind: ConfigMap, data: {a: b}}\n- apiVersion: batch/v1\n  kind: Job\n  spec:\n    template:\n      spec:\n        containers:\n        - name: c\n          image: x\n          securityContext:\n            capabilities:\n              add: [SYS_ADMIN]\nEOF',
    "printf 'apiVersion: v1\\nkind: ConfigMap\\ndata:\\n  a: b\\n---\\napiVersion: v1\\nkind: Pod\\nspec:\\n  volumes:\\n  - name: s\\n    hostPath: {path: /var/run/docker.sock}\\n' > m.yaml && kubectl apply -f m.yaml",
    'echo \'{"kind":"Pod","spec":{"hostPID":true}}\' > p.json; oc create -f p.json', `cat > p.yaml <<EOF\n${POD_HOSTPATH}EOF\nkubectl apply -f - < p.yaml`,
    'kubectl apply -f <(cat <<EOF\nkind: Pod\nspec: {hostPID: true}\nEOF\n)', `tee p.yaml > /dev/null <<EOF\n${POD_HOSTPATH}EOF\nkubectl replace --force -f p.yaml`,
    `cat > p.yaml <<EOF\n${POD_HOSTPATH}EOF\nkubectl -n dev apply -f a.yaml,p.yaml`,
    'kubectl apply -f - <<EOF\nkind: CronJob\nspec:\n  jobTemplate:\n    spec:\n      template:\n        spec:\n          volumes: [{name: k, hostPath: {path: /root/.ssh}}]\nEOF',
    `cat > p.yaml <<EOF\n${POD_HOSTPATH}EOF\npodman kube play p.yaml`, 'podman play kube --replace - <<EOF\nkind: Pod\nspec: {hostPID: true}\nEOF',
    `cat > compose.yaml <<EOF\n${COMPOSE_ROOT}EOF\ndocker compose up -d`, `cat > c.yml <<EOF\n${COMPOSE_PRIVILEGED}EOF\ndocker compose -f c.yml up`,
    'cat > docker-compose.yml <<EOF\nservices:\n  app:\n    image: alpine\n    pid: host\n    cap_add: [SYS_PTRACE]\nEOF\ndocker-compose run app sh',
    'cat > compose.yaml <<EOF\nservices:\n  app:\n    image: alpine\n    volumes: [root:/host]\nvolumes:\n  root:\n    driver_opts: {type: none, o: bind, device: /}\nEOF\ndocker compose up',
    'docker compose -f - up <<EOF\nservices:\n  a:\n    image: x\n    volumes:\n      - type: bind\n        source: /var/run/docker.sock\n        target: /var/run/docker.sock\nEOF',
    'cat > compose.yaml <<EOF\nservices:\n  app:\n    image: alpine\n    volumes: ["\\${HOST_DIR}:/h"]\nEOF\nHOST_DIR=/etc docker compose up',
    'cat > x.yml <<EOF\nservices:\n  app:\n    image: alpine\n    devices: ["/dev/sda:/dev/sda"]\nEOF\nCOMPOSE_FILE=x.yml podman-compose up',
    `mkdir -p d && cat > d/compose.yaml <<EOF\n${COMPOSE_PRIVILEGED}EOF\npodman compose --project-directory d up`,
    `cat > compose.override.yaml <<EOF\n${COMPOSE_PRIVILEGED}EOF\ndocker compose up -d`, `cd deploy && cat > compose.yml <<EOF\n${COMPOSE_ROOT}EOF\ndocker compose create`,
    'cat > c.yml <<EOF\nx-base: &base\n  privileged: true\nservices:\n  app:\n    <<: *base\n    image: alpine\nEOF\nnerdctl compose -f c.yml up',
  ]),
  // a here-document body is not brace-expanded: the script holds `{/tmp/a,/}`, which bash expands when it runs it
  ['cat > x.sh <<EOF\nrm -rf {/tmp/a,/}\nEOF\nbash x.sh', 'deny', RR],
  ...allow([
    `kubectl apply -f - <<EOF\n${DEPLOYMENT}EOF`, `cat > d.yaml <<EOF\n${DEPLOYMENT}EOF\nkubectl apply -f d.yaml`,
    'kubectl apply -f - <<EOF\napiVersion: v1\nkind: ConfigMap\ndata:\n  privileged: "true"\n  hostPID: "true"\nEOF', 'kubectl apply -f - <<EOF\nkind: Pod\nspec: {hostPID: false}\nEOF',
    `cat > p.yaml <<EOF\n${POD_HOSTPATH}EOF\nkubectl get -f p.yaml`, `cat > p.yaml <<EOF\n${POD_HOSTPATH}EOF\nkubectl delete -f p.yaml`, 'kubectl apply -f p.yaml',
    'kubectl apply -k .', `podman kube play - <<EOF\n${DEPLOYMENT}EOF`,
    `cat > compose.yaml <<EOF\n${COMPOSE_APP}EOF\ndocker compose up -d`, `cat > compose.yaml <<EOF\n${COMPOSE_PRIVILEGED}EOF\ndocker compose ps`,
    `cat > compose.yaml <<EOF\n${COMPOSE_PRIVILEGED}EOF\ndocker compose down`, 'docker compose up', 'docker compose -f prod.yml up -d',
    `cat > other.yaml <<EOF\n${COMPOSE_ROOT}EOF\ndocker compose up`, 'cat <<EOF\n~/x {a,b} *\nEOF',
  ]),
];

export const ROUND23_TABLES: Readonly<Record<string, readonly ShellCase[]>> = {
  'programs that start $SHELL or a shell an option names': SHELL_STARTERS,
  'manifests and compose files written on the line, then applied': WRITTEN_MANIFESTS,
};
