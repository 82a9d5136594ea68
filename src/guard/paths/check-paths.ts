import { resolve } from 'node:path';
import type { GuardFinding } from '../types.ts';
import { printable } from '../../util/printable.ts';
import { canonical, holdsSecret, isAnySecret, isCredentialFile, isLoginFile } from '../shell/paths.ts';
import { isInside, realPathOf, walkVisits, type PathFs } from './real-path.ts';

/** Workspace policy rules (SPEC §6 "Workspace"), each with the sentence shown to people. All are `deny` but ASK_RULES. */
export const PATH_RULES = {
  'path.nul_byte': 'The path contains a NUL byte, which system calls would silently cut the path at.',
  'path.proc_escape': "The path goes through a /proc magic link (root, cwd, exe, fd; /dev/fd, /dev/stdin, /dev/stdout and /dev/stderr lead there), which escapes any directory confinement and opens what the daemon's process holds open, deleted files included.",
  'path.outside_workspace': 'The path resolves (symlinks included) outside the workspace, and tools.restrict_to_workspace is on.',
  'path.outside_safe_write_root': 'The path is written outside tools.safe_write_root.',
  'path.unresolvable': 'The real path cannot be determined (symlink loop or unreadable directory), so it cannot be shown to be inside.',
  'path.diff_unchecked': 'The diff is malformed or names absolute paths or paths climbing out of its root, so the files it would change cannot be checked.',
  'path.daemon_state': "The path is the embedded database's directory, its password file or its start lock in daemon.data_dir, or the configuration file this process read, which no tool may read or write: it would hand the store's credentials, API keys or notify tokens to a model or a job, or keep the store from starting.",
  'path.secret': 'The path is a secret the shell guard also refuses to read (password hashes, root\'s SSH directory, a private key, a stored credential or the service\'s EnvironmentFile), and no file tool may read or write it.',
  'path.daemon_dir': "The path is in daemon.data_dir (outside the workspace and the safe write root inside it) or in the installed skills directory, which file tools may not write: the daemon and the people who run it use what is there, so a write could stop the daemon or change what later runs are given; work on such files outside echo-agent.",
  'path.proc_secret': "The path is a process's environment, command line or memory under /proc (or a tree holding them): the daemon's holds its secrets (systemd's EnvironmentFile, ${VAR} references of the config), and no file tool may read or write it.",
  'path.secret_tree': 'The tool reads every file below the path, and below it lies a secret the shell guard refuses to read (password hashes, private keys or stored credentials).',
  'path.credential_read': 'The path is a settings file that holds a login (.netrc, .npmrc, .pypirc, .my.cnf, Maven\'s settings.xml), a dotenv file (.env, .env.local; not .env.example) or a file named like a private key (privkey.pem, *-key.pem, *.ppk): reading it out hands its password, token or key to the model and anywhere it sends it, so a person decides (the programs that use it still read it by themselves).',
  'path.credential_write': "The path is a credential file, a start-up or settings file that runs or picks programs (shell and login files, pam_env, the loader's and PAM's configuration, /usr/local/bin, pip and conda settings, .envrc, VS Code tasks and settings), or a git repository's configuration or hooks, gitfiles (.git) included (the files the shell guard asks about as shell.credential.write): writing one can leak secrets or plant commands that run later, when a person logs in or an approved command such as git status runs, so a person decides.",
} as const;

export type PathRule = keyof typeof PATH_RULES;

/** Flags rather than refusals: the call goes to a person (attended) and is refused unattended, where nobody can approve it. */
const ASK_RULES: ReadonlySet<PathRule> = new Set(['path.credential_write', 'path.credential_read']);

export interface PathPolicy {
  /** Relative paths resolve against it; may itself be relative (to the process directory) or a symlink. */
  readonly workspace: string;
  readonly restrictToWorkspace: boolean;
  /** '' = unset. Relative to the workspace. */
  readonly safeWriteRoot: string;
  /**
   * Files and directories no path may reach, read or write (the embedded database's), as real absolute
   * paths: the caller resolves them (see resolveRoots), once, rather than on every call.
   */
  readonly forbiddenRoots?: () => Promise<readonly string[]>;
  /** Places no write may reach (path.daemon_dir) but through an `open` root inside them (the workspace in data_dir); real absolute paths. */
  readonly stateRoots?: () => Promise<StateRoots>;
}

/** The daemon's own directories, and the roots carved out of them that file tools may still write (see stateRootsOf). */
export interface StateRoots {
  readonly roots: readonly string[];
  readonly open: readonly string[];
}

// /proc/<self|thread-self|pid>[/task/<tid>]/<magic link>
const PROC_MAGIC = /^\/proc\/(self|thread-self|\d+)(\/task\/\d+)?\/(root|cwd|exe|fd|fdinfo|map_files)(\/|$)/;
// the names of the same links under /dev: /dev/fd is /proc/self/fd, /dev/stdin is /proc/self/fd/0
const DEV_FD = /^\/dev\/(fd|stdin|stdout|stderr)(\/|$)/;
const magic = (p: string): boolean => PROC_MAGIC.test(p) || DEV_FD.test(p);

// a path is model input: its control characters must not forge lines in `audit list` (NUL included)
// /proc/<pid>[/task/<tid>]/environ and the like; for a whole-tree read, /proc and a process's directory too
const PROC_SECRET = /^\/proc\/(self|thread-self|\d+)(\/task\/\d+)?\/(environ|cmdline|mem)$/;
const PROC_SECRET_TREE = /^\/proc(\/(self|thread-self|\d+)(\/task(\/\d+)?)?)?\/?$/;
const procSecret = (p: string, tree: boolean): boolean => PROC_SECRET.test(p) || (tree && PROC_SECRET_TREE.test(p));

const shown = (p: string): string => printable(p.replace(/\0/g, '\\0'), 300);

const finding = (rule: PathRule, path: string, detail = ''): GuardFinding => ({
  rule,
  severity: ASK_RULES.has(rule) ? 'ask' : 'deny',
  matched: shown(path),
  reason: detail ? `${PATH_RULES[rule]} ${detail}` : PATH_RULES[rule],
});

/**
 * Every real place a path can mean: the kernel's walk of the string as given (`a/link/../b` follows the link
 * first) and the walk of its lexically normalised form (what `path.resolve` callers open). Both are judged.
 */
async function targetsOf(path: string, base: string, fs: PathFs): Promise<string[]> {
  const raw = path.startsWith('/') ? path : `${base}/${path}`;
  const lexical = resolve(base, path);
  const [a, b] = await Promise.all([realPathOf(raw, fs), raw === lexical ? undefined : realPathOf(lexical, fs)]);
  return b === undefined || b === a ? [a] : [a, b];
}

const realRoot = async (root: string, fs: PathFs): Promise<string> => realPathOf(resolve(root), fs);

type Confinement = { readonly rule: PathRule; readonly root: string; readonly label: string };

/**
 * The shell guard's secret paths (shell/path-tables.ts, as `cat /etc/shadow` is judged) applied to the places a path
 * names, as written and as resolved: the secret itself or anything in a secret directory; for a tool that reads
 * the whole tree below the path (`tree`), also any directory above a secret.
 */
function secretFinding(path: string, places: readonly string[], tree: boolean): GuardFinding | null {
  const canon = places.map((p) => [p, canonical(p, null)] as const);
  const secret = canon.find(([, c]) => isAnySecret(c));
  if (secret) return finding('path.secret', path, `It resolves to ${shown(secret[0])}.`);
  const holder = tree ? canon.find(([, c]) => holdsSecret(c)) : undefined;
  return holder ? finding('path.secret_tree', path, `It resolves to ${shown(holder[0])}.`) : null;
}

/** A write to a credential or start-up file, by name or by where its symlinks lead (path.credential_write); none or one. */
function credentialWrite(path: string, places: readonly string[]): GuardFinding[] {
  const file = places.find((p) => isCredentialFile(canonical(p, null)));
  return file === undefined ? [] : [finding('path.credential_write', path, `It resolves to ${shown(file)}.`)];
}

/** A read of a settings file holding a login, by name or by where its symlinks lead (path.credential_read); none or one. */
function loginRead(path: string, places: readonly string[]): GuardFinding[] {
  const file = places.find((p) => isLoginFile(canonical(p, null)));
  return file === undefined ? [] : [finding('path.credential_read', path, `It resolves to ${shown(file)}.`)];
}

/** How a path is used: `forbidden` roots no path may reach; `tree`, read with all below it; `write`, written (see judge). */
interface Use {
  readonly forbidden?: readonly string[];
  readonly tree?: boolean;
  /** `state`: the daemon's places a write may not reach (path.daemon_dir); null when there are none to judge. */
  readonly write?: { readonly state: StateRoots | null };
}

/** A write is judged on the same resolved targets for the daemon's places and for credential and start-up files. */
async function judge(path: string, base: string, confinements: readonly Confinement[], fs: PathFs, use: Use = {}): Promise<GuardFinding[]> {
  const { forbidden = [], tree = false, write } = use;
  // the daemon's places by where the path leads; a credential file by its name too
  // a read of a login file asks (a write of one asks as path.credential_write)
  const written = (targets: readonly string[], named: readonly string[]): GuardFinding[] =>
    (write ? [...stateFinding(path, targets, write.state), ...credentialWrite(path, named)] : loginRead(path, named));
  if (path.includes('\0')) return [finding('path.nul_byte', path)];
  const lexical = resolve(base, path);
  if (magic(lexical)) return [finding('path.proc_escape', path)];
  if (procSecret(lexical, tree)) return [finding('path.proc_secret', path)];
  // a symlink on the way into /proc/<pid>/fd (`ws/x -> /dev/fd/3`): realpath shows only where it ends
  const raw = path.startsWith('/') ? path : `${base}/${path}`;
  if ((await Promise.all([...new Set([raw, lexical])].map((p) => walkVisits(p, magic, fs)))).some(Boolean)) return [finding('path.proc_escape', path)];
  let targets: string[];
  try {
    targets = await targetsOf(path, base, fs);
  } catch (err) {
    // with no confinement, a path nobody can resolve cannot be opened into a forbidden root either: the tool reports it
    const secret = secretFinding(path, [lexical], tree);
    if (confinements.length === 0) return secret ? [secret] : written([lexical], [lexical]);
    const code = (err as NodeJS.ErrnoException).code;
    return [...(secret ? [secret] : []), finding('path.unresolvable', path, code ? `(${code})` : '')];
  }
  if (targets.some(magic)) return [finding('path.proc_escape', path)];
  if (targets.some((t) => procSecret(t, tree))) return [finding('path.proc_secret', path)];
  for (const root of forbidden) {
    const inside = targets.find((t) => isInside(t, root));
    if (inside !== undefined) return [finding('path.daemon_state', path, `It resolves to ${shown(inside)}.`)];
  }
  // a secret by name or by where its symlinks lead
  const secret = secretFinding(path, [lexical, ...targets], tree);
  const out: GuardFinding[] = secret ? [secret] : written(targets, [lexical, ...targets]);
  for (const c of confinements) {
    const outside = targets.find((t) => !isInside(t, c.root));
    if (outside !== undefined) out.push(finding(c.rule, path, `It resolves to ${shown(outside)}, outside ${c.label} ${c.root}.`));
  }
  return out;
}

/**
 * The workspace policy for one call's paths. Relative paths resolve against the workspace. NUL bytes,
 * /proc magic links and the shell guard's secret paths (see secretFinding) are always refused; reads and writes must stay in the workspace when restrictToWorkspace;
 * writes must stay under safeWriteRoot when it is set, whatever restrictToWorkspace says.
 */
export async function checkPaths(
  given: {
    readonly read: readonly string[];
    readonly write: readonly string[];
    /** Paths read with everything below them (search_files, a recursive list_dir): refused when a secret lies below. */
    readonly tree?: readonly string[];
  },
  policy: PathPolicy,
  fs: PathFs,
): Promise<GuardFinding[]> {
  const tree = new Set(given.tree ?? []);
  const paths = { read: [...given.read, ...[...tree].filter((p) => !given.read.includes(p))], write: given.write };
  const base = resolve(policy.workspace);
  const needWorkspace = policy.restrictToWorkspace && paths.read.length + paths.write.length > 0;
  const needSafeRoot = policy.safeWriteRoot !== '' && paths.write.length > 0;
  const workspace: Confinement[] = [];
  const safeRoot: Confinement[] = [];
  try {
    if (needWorkspace) workspace.push({ rule: 'path.outside_workspace', root: await realRoot(base, fs), label: 'the workspace' });
    if (needSafeRoot) safeRoot.push({ rule: 'path.outside_safe_write_root', root: await realRoot(resolve(base, policy.safeWriteRoot), fs), label: 'the safe write root' });
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    return [finding('path.unresolvable', policy.workspace, `(the workspace or safe write root itself${code ? `: ${code}` : ''})`)];
  }
  const forbidden = paths.read.length + paths.write.length > 0 && policy.forbiddenRoots ? await policy.forbiddenRoots() : [];
  const reads = await Promise.all(paths.read.map((p) => judge(p, base, workspace, fs, { forbidden, tree: tree.has(p) })));
  const state = paths.write.length > 0 && policy.stateRoots ? await policy.stateRoots() : null;
  const writes = await Promise.all(paths.write.map((p) => judge(p, base, [...workspace, ...safeRoot], fs, { forbidden, write: { state } })));
  return [...reads.flat(), ...writes.flat()];
}

/** A write whose target lies in a state root that no open root inside it carves out (path.daemon_dir); none or one. */
function stateFinding(path: string, targets: readonly string[], state: StateRoots | null): GuardFinding[] {
  if (!state) return [];
  for (const t of targets) {
    const root = state.roots.find((r) => isInside(t, r) && !state.open.some((o) => isInside(o, r) && isInside(t, o)));
    if (root !== undefined) return [finding('path.daemon_dir', path, `It resolves to ${shown(t)}, in ${shown(root)}.`)];
  }
  return [];
}

/**
 * The daemon's own places as StateRoots, resolved like resolveRoots: `dataDir` and `skills`, writable only
 * through `open` (the workspace, the safe write root) where those lie inside them.
 */
export function stateRootsOf(
  dirs: { readonly dataDir: string; readonly skills: string; readonly open: readonly string[] }, fs: PathFs, now: () => number, ttlMs = ROOTS_TTL_MS,
): () => Promise<StateRoots> {
  const roots = resolveRoots([dirs.dataDir, dirs.skills], fs, now, ttlMs);
  const open = resolveRoots(dirs.open, fs, now, ttlMs);
  return async () => ({ roots: await roots(), open: await open() });
}

/** How long resolved roots are kept before they are looked at again. */
export const ROOTS_TTL_MS = 10_000;

/**
 * Real paths of `roots`, kept for `ttlMs` by `now` (monotonic milliseconds, injected): one not made yet (a data dir
 * before the first start) is taken as written, and looked at again once the time is up.
 */
export function resolveRoots(roots: readonly string[], fs: PathFs, now: () => number, ttlMs = ROOTS_TTL_MS): () => Promise<readonly string[]> {
  let cached: { at: number; real: readonly string[] } | null = null;
  return async () => {
    if (cached && now() - cached.at < ttlMs) return cached.real;
    const real = await Promise.all(roots.map((r) => realPathOf(resolve(r), fs).catch(() => resolve(r))));
    cached = { at: now(), real };
    return real;
  };
}

/**
 * Whether every path, resolved against `root`, really stays inside `root` (used for unattended allow_safe,
 * which needs writes inside the workspace whatever restrict_to_workspace says).
 */
export async function writesInside(paths: readonly string[], root: string, fs: PathFs): Promise<boolean> {
  const base = resolve(root);
  let real: string;
  try {
    real = await realRoot(base, fs);
  } catch {
    return false;
  }
  const confinement: Confinement = { rule: 'path.outside_workspace', root: real, label: 'the workspace' };
  const results = await Promise.all(paths.map((p) => judge(p, base, [confinement], fs)));
  return results.every((r) => r.length === 0);
}
