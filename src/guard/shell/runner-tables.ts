import type { Arg } from './model.ts';
import { literal } from './values.ts';
import type { WrapperSpec } from './wrapper-tables.ts';

/**
 * Package managers, environment managers and terminals whose sub-command runs the command after it in an environment of
 * their own (`npm exec CMD`, `poetry run CMD`, `nix develop -c CMD`, `wezterm start -- CMD`): the verb's words, then a
 * wrapper table read as WRAPPERS are. Runners of a package fetched by name (uvx, pnpm dlx, yarn dlx) are not here: their
 * first word names a package, not a program.
 */
export interface RunnerSpec {
  /** The words that make it run a command (`['tool', 'run']`); empty: always. */
  readonly verbs: readonly (readonly string[])[];
  readonly spec: WrapperSpec;
  /** Every sub-command: the verb is the first of these, after global options and their values (`nix --option k v develop`). */
  readonly commands?: ReadonlySet<string>;
}

/** nix's sub-commands (nix 2.x), for finding its verb after global options. */
const NIX_COMMANDS: ReadonlySet<string> = new Set([
  'build', 'bundle', 'config', 'copy', 'daemon', 'derivation', 'develop', 'edit', 'env', 'eval', 'flake', 'fmt', 'hash', 'help', 'help-stores', 'key', 'log', 'nar',
  'path-info', 'print-dev-env', 'profile', 'realisation', 'registry', 'repl', 'run', 'search', 'shell', 'store', 'upgrade-nix', 'why-depends',
]);

const P = { posix: true } as const;
const PLAIN: WrapperSpec = P;

export const RUNNERS: Readonly<Record<string, RunnerSpec>> = {
  // npm exec -c/--call runs its value with the shell; --package names what to install first
  npm: { verbs: [['exec'], ['x']], spec: { ...P, short: 'cw', long: ['call', 'package', 'workspace'], code: ['c', 'call'] } },
  pnpm: { verbs: [['exec']], spec: { ...P, short: 'C', long: ['filter', 'dir', 'workspace-concurrency', 'reporter'], shortFlags: 'rc' } },
  yarn: { verbs: [['exec']], spec: PLAIN },
  uv: {
    verbs: [['run']],
    spec: {
      ...P, short: 'pfw',
      long: ['with', 'with-editable', 'with-requirements', 'python', 'project', 'directory', 'package', 'extra', 'group', 'only-group', 'env-file', 'index', 'index-url', 'extra-index-url', 'find-links', 'config-file', 'cache-dir'],
      chdir: ['directory'],
    },
  },
  poetry: { verbs: [['run']], spec: { ...P, short: 'CP', long: ['directory', 'project'], chdir: ['C', 'directory'] } },
  pipenv: { verbs: [['run']], spec: PLAIN },
  bundle: { verbs: [['exec']], spec: { ...P, long: ['gemfile'] } },
  conda: { verbs: [['run']], spec: { ...P, short: 'np', long: ['name', 'prefix', 'cwd'], chdir: ['cwd'] } },
  mamba: { verbs: [['run']], spec: { ...P, short: 'np', long: ['name', 'prefix', 'cwd'], chdir: ['cwd'] } },
  micromamba: { verbs: [['run']], spec: { ...P, short: 'np', long: ['name', 'prefix', 'cwd'], chdir: ['cwd'] } },
  // mise exec TOOL@VERSION… -- CMD: the tools come before `--`
  mise: { verbs: [['exec'], ['x']], spec: { commandAfter: ['--'] } },
  asdf: { verbs: [['exec']], spec: PLAIN },
  devbox: { verbs: [['run']], spec: { ...P, short: 'c', long: ['config', 'environment'] } },
  direnv: { verbs: [['exec']], spec: { ...P, positional: 1 } },
  // nix-shell --run/--command CODE runs CODE with bash; nix shell/develop -c CMD ARGS…
  'nix-shell': { verbs: [], spec: { short: 'pIAE', long: ['run', 'command', 'packages', 'attr', 'arg', 'argstr', 'expr', 'include', 'option'], code: ['run', 'command'], codeOnly: true } },
  // (`nix env shell` is `nix shell`'s newer name)
  nix: { verbs: [['shell'], ['develop'], ['env', 'shell']], spec: { commandAfter: ['-c', '--command'] }, commands: NIX_COMMANDS },
  'flatpak-spawn': {
    verbs: [],
    spec: {
      ...P, long: ['env', 'directory', 'forward-fd', 'sandbox-expose', 'sandbox-expose-ro', 'sandbox-expose-path', 'sandbox-expose-path-ro', 'app-path', 'usr-path'],
      flags: ['host', 'clear-env', 'latest-version', 'no-network', 'sandbox', 'watch-bus', 'expose-pids', 'share-pids', 'verbose', 'help'], chdir: ['directory'],
    },
  },
  toolbox: { verbs: [['run']], spec: { ...P, short: 'cdr', long: ['container', 'distro', 'release'] } },
  distrobox: { verbs: [['enter']], spec: { commandAfter: ['--', '-e'] } },
  'distrobox-enter': { verbs: [], spec: { commandAfter: ['--', '-e'] } },
  wezterm: { verbs: [['start'], ['cli', 'spawn']], spec: { ...P, long: ['cwd', 'class', 'workspace', 'position', 'domain', 'pane-id', 'window-id'], flags: ['no-auto-connect', 'always-new-process', 'new-tab', 'new-window'], chdir: ['cwd'] } },
  // `ip netns exec NS CMD`; ssh-agent and dbus-launch run the command they are given with an agent or bus of their own
  ip: { verbs: [['netns', 'exec']], spec: { ...P, positional: 1 } },
  'ssh-agent': { verbs: [], spec: { ...P, short: 'aEOPt', shortFlags: 'cdDks' } },
  'dbus-launch': { verbs: [], spec: { ...P, long: ['autolaunch', 'config-file'], flags: ['sh-syntax', 'csh-syntax', 'exit-with-session', 'exit-with-x11', 'binary-syntax', 'close-stderr', 'version', 'help'] } },
  // rlwrap's options with a value (-a, -m, -p take one only attached)
  rlwrap: { verbs: [], spec: { ...P, short: 'bCDefFgHlMOPqsStwz', attached: 'amp' } },
  foot: { verbs: [], spec: { ...P, short: 'cfTtaWwDdo', shortFlags: 'FmLHshvVe', chdir: ['D'] } },
  // secret managers that run the command with the secrets in its environment: `aws-vault exec PROFILE CMD`, `op run -- CMD`,
  // `doppler run [--command CODE | -- CMD]`, `infisical run -- CMD`, `chamber exec SERVICE… -- CMD`, `sops exec-env FILE CODE`
  'aws-vault': { verbs: [['exec']], spec: { ...P, short: 'dt', shortFlags: 'njs', long: ['duration', 'mfa-token', 'region', 'prompt', 'backend', 'keychain'], positional: 1 } },
  op: { verbs: [['run']], spec: { commandAfter: ['--'] } },
  doppler: { verbs: [['run']], spec: { ...P, short: 'pc', long: ['project', 'config', 'token', 'scope', 'fallback', 'mount', 'mount-format', 'mount-template', 'name-transformer', 'command', 'api-host', 'configuration'], code: ['command'] } },
  infisical: { verbs: [['run']], spec: { commandAfter: ['--'] } },
  chamber: { verbs: [['exec']], spec: { commandAfter: ['--'] } },
  sops: { verbs: [['exec-env'], ['exec-file']], spec: { ...P, long: ['user', 'filename', 'input-type', 'output-type'], flags: ['background', 'no-fifo', 'pristine'], positional: 1, restIsCode: true } },
  // version managers' exec runs the command with their shims first in PATH
  pyenv: { verbs: [['exec']], spec: PLAIN }, rbenv: { verbs: [['exec']], spec: PLAIN }, nodenv: { verbs: [['exec']], spec: PLAIN },
  // dtach -c|-A|-n|-N SOCKET [-e C] [-r M] [-Ez] CMD; abduco -c|-n|-A NAME CMD (-a only attaches)
  dtach: { verbs: [], spec: { ...P, short: 'cAnNaper', shortFlags: 'Ez', noCommand: ['a', 'p'] } },
  abduco: { verbs: [], spec: { ...P, short: 'ecnA', shortFlags: 'flrpv', noCommand: ['a'] } },
};

/** A runner's spec and the words after its verb; null when it is none or its verb is another. */
export function runnerArgs(name: string, args: readonly Arg[]): { spec: WrapperSpec; args: readonly Arg[] } | null {
  const r = Object.hasOwn(RUNNERS, name) ? RUNNERS[name]! : null;
  if (!r) return null;
  if (r.verbs.length === 0) return { spec: r.spec, args };
  const at = r.commands ? commandAt(args, r.commands) : 0;
  if (at < 0) return null;
  const verb = r.verbs.find((v) => v.every((w, i) => literal(args[at + i]?.v ?? '') === w));
  return verb ? { spec: r.spec, args: args.slice(at + verb.length) } : null;
}

/** Where the first sub-command word is, past options and their values; -1 when none comes before `--`. */
function commandAt(args: readonly Arg[], commands: ReadonlySet<string>): number {
  for (let i = 0; i < args.length; i++) {
    const w = literal(args[i]!.v) ?? '';
    if (w === '--') return -1;
    if (commands.has(w)) return i;
  }
  return -1;
}

/** `nix run`'s options (and nix's global ones) taking two values, and one; others are read as flags. */
const NIX_TWO_VALUES: ReadonlySet<string> = new Set(['--option', '--override-input', '--arg', '--argstr', '--override-flake', '--arg-from-file']);
const NIX_ONE_VALUE: ReadonlySet<string> = new Set([
  '-f', '--file', '--expr', '-I', '--include', '--inputs-from', '--update-input', '--store', '--eval-store', '--reference-lock-file', '--output-lock-file',
  '--profile', '--log-format', '-j', '--max-jobs', '--cores', '--system', '--extra-experimental-features', '--experimental-features', '--builders',
  '--substituters', '--extra-substituters', '--arg-from-stdin', '--log-lines',
]);

/**
 * `nix run INSTALLABLE [--] ARGS…` runs the installable's program with ARGS: for `FLAKE#ATTR` (and an attribute of
 * `--file`/`--expr`) the program is named by the attribute (`nixpkgs#bash -- -c CODE` is `bash -c CODE`). A flake's
 * default app (`nix run .`, `nix run github:o/r`) names none: like `npx PKG`, it is not unwrapped. Null when not `nix run`.
 */
export function nixRun(name: string, args: readonly Arg[]): Arg[] | null {
  if (name !== 'nix') return null;
  const at = commandAt(args, NIX_COMMANDS);
  if (at < 0 || literal(args[at]!.v) !== 'run') return null;
  let i = at + 1;
  let attrPath = false;
  for (; i < args.length; i++) {
    const w = literal(args[i]!.v) ?? '';
    if (w === '--' || !w.startsWith('-')) break;
    if (w === '-f' || w === '--file' || w === '--expr') attrPath = true;
    if (NIX_TWO_VALUES.has(w)) i += 2;
    else if (NIX_ONE_VALUE.has(w)) i += 1;
  }
  const installable = args[i] ? literal(args[i]!.v) : null;
  if (!installable || installable === '--') return null;
  const hash = installable.indexOf('#');
  const attr = hash >= 0 ? installable.slice(hash + 1) : attrPath ? installable : '';
  const program = attr.replace(/\^.*$/, '').split('.').pop()?.replace(/^"|"$/g, '') ?? '';
  if (program === '') return null;
  const rest = args.slice(i + 1);
  const argv = literal(rest[0]?.v ?? '') === '--' ? rest.slice(1) : rest;
  return [{ v: program, info: { computed: false, ansi: false, quoted: false, inner: [], raw: program } }, ...argv];
}
