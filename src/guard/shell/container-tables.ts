import type { OptionSpec } from './flags.ts';

/**
 * Tables for containers and namespaces that reach the host (see checks/containers.ts): docker's, podman's and nerdctl's
 * `run`/`create`/`exec` options, compose's `run` and `exec`, systemd-nspawn's, and what among their values hands over the host.
 */

/** The container engines whose `run`, `create` and `exec` verbs are read (after CONTAINER_GLOBALS). */
export const CONTAINER_ENGINES: ReadonlySet<string> = new Set(['docker', 'podman', 'nerdctl']);

/** Verbs (one or two words) that start a container from options, and `exec`, which only `--privileged` makes reach further. */
export const CONTAINER_VERBS: Readonly<Record<string, 'start' | 'exec'>> = {
  run: 'start', create: 'start', 'container run': 'start', 'container create': 'start', exec: 'exec', 'container exec': 'exec',
};

/**
 * How the engines' `run` options are read (cobra): short options taking a value, and long options taking none; every
 * other long option takes the next word, so a value is never read as the image and what follows the image (the
 * container's own command and arguments) is never read as options.
 */
export const CONTAINER_SHORT_VALUES = 'acehlmpuvw';
export const CONTAINER_LONG_FLAGS: ReadonlySet<string> = new Set([
  'detach', 'interactive', 'tty', 'rm', 'privileged', 'init', 'publish-all', 'read-only', 'sig-proxy', 'no-healthcheck', 'oom-kill-disable', 'help',
  'quiet', 'disable-content-trust', 'use-api-socket', 'replace', 'rmi', 'rootfs', 'tls-verify', 'http-proxy', 'no-hosts', 'no-hostname', 'env-host',
  'read-only-tmpfs', 'passwd', 'unsetenv-all', 'latest',
]);

/** Namespace options whose value `host` shares the host's (its processes with --pid, what signals and ptrace reach). */
export const HOST_NAMESPACE_OPTIONS: readonly string[] = ['pid'];
/** Capabilities that let a container's root act on the host: mount, load modules, trace, read any file, raw I/O (CAP_ prefix optional). */
export const HOST_CAPABILITIES = /^(?:CAP_)?(?:ALL|SYS_ADMIN|SYS_MODULE|SYS_PTRACE|SYS_RAWIO|DAC_READ_SEARCH|DAC_OVERRIDE|SYS_BOOT)$/i;
/** Options naming host paths to mount (`SRC:DST[:OPTS]`) and `--mount` fields naming the source. */
export const VOLUME_OPTIONS: readonly string[] = ['v', 'volume'];
export const MOUNT_OPTIONS: readonly string[] = ['mount'];
export const MOUNT_SOURCE = /^(?:source|src)=(.*)$/i;
export const DEVICE_OPTIONS: readonly string[] = ['device'];
/** Devices a container is commonly given that are no disk or memory: FUSE, KVM, a tun interface, GPUs, sound, cameras. */
export const FINE_DEVICES = /^\/dev\/(?:fuse|kvm|net\/tun|dri(?:\/.*)?|snd(?:\/.*)?|nvidia[\w-]*|video\d+|null|zero|u?random)$/;

/** A container engine's or runtime's control socket, or the run-time directories holding them: whoever reaches it starts privileged containers. */
export const RUNTIME_SOCKET = /(?:^|\/)(?:docker|podman|containerd|crio|cri-dockerd|buildkitd|dockershim)\.sock$/;
export const RUNTIME_DIRS = /^\/(?:var\/)?run(?:\/(?:docker|podman|containerd|crio|dbus|systemd))?\/?$/;

/** systemd-nspawn: short options taking a value (nspawn.c's getopt string) and the options naming a root, an image, or host paths to bind. */
export const NSPAWN_SHORT_VALUES = 'DuLMSEipC';
export const NSPAWN_LONG_FLAGS: ReadonlySet<string> = new Set([
  'help', 'version', 'boot', 'ephemeral', 'quiet', 'read-only', 'private-network', 'as-pid2', 'pipe', 'keep-unit', 'no-new-privileges',
  'notify-ready', 'suppress-sync', 'background', 'no-pager', 'network-veth', 'private-users-chown',
]);
export const NSPAWN_ROOTS: readonly string[] = ['D', 'directory', 'template'];
export const NSPAWN_IMAGES: readonly string[] = ['i', 'image'];
export const NSPAWN_BINDS: readonly string[] = ['bind', 'bind-ro', 'overlay', 'overlay-ro'];

/** nsenter: PID 1's namespaces are the host's own (a container's way out); a target or namespace file not known may be them. */
export const HOST_PID = '1';
export const HOST_NAMESPACE_FILE = /(?:^|=)\/proc\/1\/ns(?:\/|$)/;

/**
 * compose (`docker compose`, `podman compose`, `nerdctl compose`, docker-compose, podman-compose): its options before
 * the verb, podman-compose's own among them (`--podman-run-args` are more `podman run` options for every container).
 */
export const COMPOSE_GLOBALS: OptionSpec = {
  posix: true, short: 'fpcH',
  long: [
    'file', 'project-name', 'profile', 'env-file', 'project-directory', 'ansi', 'progress', 'parallel', 'context', 'host', 'log-level', 'tlscacert', 'tlscert',
    'tlskey', 'podman-path', 'podman-args', 'podman-pull-args', 'podman-push-args', 'podman-build-args', 'podman-inspect-args', 'podman-run-args',
    'podman-start-args', 'podman-stop-args', 'podman-rm-args', 'podman-volume-args', 'in-pod', 'pod-args',
  ],
};
/** compose's verbs that create and start a project's services from its files (checks/manifest-files.ts). */
export const COMPOSE_STARTS: readonly string[] = ['up', 'run', 'create', 'watch'];
/** The files compose reads without -f or COMPOSE_FILE (compose.yaml first, then docker-compose.yml; an override file merged on top). */
export const COMPOSE_DEFAULT_FILES: readonly string[] = [
  'compose.yaml', 'compose.yml', 'docker-compose.yaml', 'docker-compose.yml', 'compose.override.yaml', 'compose.override.yml', 'docker-compose.override.yaml',
  'docker-compose.override.yml',
];
export const COMPOSE_PROGRAMS: ReadonlySet<string> = new Set(['docker-compose', 'podman-compose']);
/** podman-compose options whose value is more options for each container it starts. */
export const COMPOSE_RUN_ARGS: readonly string[] = ['podman-run-args'];
/**
 * compose's `run SERVICE` (options end at the service) and `exec SERVICE`: short options taking a value, long ones
 * taking none (as CONTAINER_SHORT_VALUES and CONTAINER_LONG_FLAGS for `docker run`).
 */
export const COMPOSE_VERBS: Readonly<Record<string, { readonly verb: 'start' | 'exec'; readonly short: string; readonly flags: ReadonlySet<string> }>> = {
  run: {
    verb: 'start', short: 'elpuvw',
    flags: new Set([
      'detach', 'interactive', 'tty', 'no-TTY', 'no-deps', 'rm', 'service-ports', 'use-aliases', 'remove-orphans', 'quiet-pull', 'build', 'quiet', 'help', 'dry-run',
    ]),
  },
  exec: { verb: 'exec', short: 'euw', flags: new Set(['detach', 'privileged', 'no-TTY', 'interactive', 'tty', 'help', 'dry-run']) },
};

/** kubectl and oc (pflag: options anywhere before `--`), with the options of `run` and `debug` that take a value. */
export const KUBE_PROGRAMS: ReadonlySet<string> = new Set(['kubectl', 'oc']);
export const KUBECTL_OPTIONS: OptionSpec = {
  short: 'nsvlofck',
  long: [
    'v', 'namespace', 'kustomize', 'context', 'kubeconfig', 'server', 'cluster', 'user', 'token', 'as', 'as-group', 'as-uid', 'certificate-authority', 'client-certificate',
    'client-key', 'request-timeout', 'cache-dir', 'tls-server-name', 'log-dir', 'log-file', 'vmodule', 'password', 'username', 'kuberc', 'image', 'overrides',
    'override-type', 'env', 'port', 'labels', 'restart', 'annotations', 'pod-running-timeout', 'output', 'field-manager', 'template', 'image-pull-policy',
    'grace-period', 'timeout', 'cascade', 'filename', 'limits', 'requests', 'hostport', 'serviceaccount', 'profile', 'container', 'target', 'copy-to',
    'custom', 'set-image', 'env-from', 'selector',
  ],
};
/** kubectl verbs that create or change objects from the manifests `-f` names. */
export const KUBE_MANIFEST_VERBS: readonly string[] = ['apply', 'create', 'replace'];
/** `kubectl run --overrides=JSON`: a pod spec merged (or a JSON patch applied) over the generated one. */
export const KUBE_OVERRIDES = 'overrides';
/** `kubectl debug node/NAME` starts a pod in the node's namespaces with its root file system mounted at /host. */
export const KUBE_NODE = /^(?:nodes?|no)\/./;
/** `kubectl debug --profile=sysadmin` runs the debug container privileged. */
export const KUBE_PRIVILEGED_PROFILES: readonly string[] = ['sysadmin'];
/** Pod spec fields (the last key) that give the host when true: the container privileged, the host's process namespace. */
export const POD_HOST_FLAGS: Readonly<Record<string, string>> = { privileged: 'privileged', hostPID: 'the host PID namespace' };
