import { resolve } from 'node:path';
import type { GuardFinding } from '../types.ts';
import { isInside, realPathOf, systemPathFs, type PathFs } from './real-path.ts';

/** Workspace policy rules (SPEC §6 "Workspace"), each with the sentence shown to people. All are `deny`. */
export const PATH_RULES = {
  'path.nul_byte': 'The path contains a NUL byte, which system calls would silently cut the path at.',
  'path.proc_escape': 'The path goes through a /proc magic link (root, cwd, exe, fd), which escapes any directory confinement.',
  'path.outside_workspace': 'The path resolves (symlinks included) outside the workspace, and tools.restrict_to_workspace is on.',
  'path.outside_safe_write_root': 'The path is written outside tools.safe_write_root.',
  'path.unresolvable': 'The real path cannot be determined (symlink loop or unreadable directory), so it cannot be shown to be inside.',
  'path.diff_unchecked': 'The diff is malformed or names absolute paths or paths climbing out of its root, so the files it would change cannot be checked.',
  'path.daemon_state': "The path is the embedded database's directory or its password file in daemon.data_dir, which no tool may read or write: it would hand the store's credentials to a model or a job.",
} as const;

export type PathRule = keyof typeof PATH_RULES;

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
}

// /proc/<self|thread-self|pid>[/task/<tid>]/<magic link>
const PROC_MAGIC = /^\/proc\/(self|thread-self|\d+)(\/task\/\d+)?\/(root|cwd|exe|fd|fdinfo|map_files)(\/|$)/;

const shown = (p: string): string => {
  const clean = p.replace(/\0/g, '\\0');
  return clean.length > 300 ? `${clean.slice(0, 300)}…` : clean;
};

const finding = (rule: PathRule, path: string, detail = ''): GuardFinding => ({
  rule,
  severity: 'deny',
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

async function judge(path: string, base: string, confinements: readonly Confinement[], fs: PathFs, forbidden: readonly string[] = []): Promise<GuardFinding[]> {
  if (path.includes('\0')) return [finding('path.nul_byte', path)];
  if (PROC_MAGIC.test(resolve(base, path))) return [finding('path.proc_escape', path)];
  if (confinements.length === 0 && forbidden.length === 0) return [];
  let targets: string[];
  try {
    targets = await targetsOf(path, base, fs);
  } catch (err) {
    // with only forbidden roots to check, a path nobody can resolve cannot be opened into them either: the tool reports it
    if (confinements.length === 0) return [];
    const code = (err as NodeJS.ErrnoException).code;
    return [finding('path.unresolvable', path, code ? `(${code})` : '')];
  }
  if (targets.some((t) => PROC_MAGIC.test(t))) return [finding('path.proc_escape', path)];
  const out: GuardFinding[] = [];
  for (const root of forbidden) {
    const inside = targets.find((t) => isInside(t, root));
    if (inside !== undefined) return [finding('path.daemon_state', path, `It resolves to ${shown(inside)}.`)];
  }
  for (const c of confinements) {
    const outside = targets.find((t) => !isInside(t, c.root));
    if (outside !== undefined) out.push(finding(c.rule, path, `It resolves to ${shown(outside)}, outside ${c.label} ${c.root}.`));
  }
  return out;
}

/**
 * The workspace policy for one call's paths. Relative paths resolve against the workspace. NUL bytes and
 * /proc magic links are always refused; reads and writes must stay in the workspace when restrictToWorkspace;
 * writes must stay under safeWriteRoot when it is set, whatever restrictToWorkspace says.
 */
export async function checkPaths(
  paths: { readonly read: readonly string[]; readonly write: readonly string[] },
  policy: PathPolicy,
  fs: PathFs = systemPathFs,
): Promise<GuardFinding[]> {
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
  const reads = await Promise.all(paths.read.map((p) => judge(p, base, workspace, fs, forbidden)));
  const writes = await Promise.all(paths.write.map((p) => judge(p, base, [...workspace, ...safeRoot], fs, forbidden)));
  return [...reads.flat(), ...writes.flat()];
}

/**
 * Real paths of `roots`, kept for `ttlMs`: one not made yet (a data dir before the first start) is taken as
 * written, and looked at again once the time is up.
 */
export function resolveRoots(roots: readonly string[], fs: PathFs = systemPathFs, ttlMs = 10_000): () => Promise<readonly string[]> {
  let cached: { at: number; real: readonly string[] } | null = null;
  return async () => {
    if (cached && performance.now() - cached.at < ttlMs) return cached.real;
    const real = await Promise.all(roots.map((r) => realPathOf(resolve(r), fs).catch(() => resolve(r))));
    cached = { at: performance.now(), real };
    return real;
  };
}

/**
 * Whether every path, resolved against `root`, really stays inside `root` (used for unattended allow_safe,
 * which needs writes inside the workspace whatever restrict_to_workspace says).
 */
export async function writesInside(paths: readonly string[], root: string, fs: PathFs = systemPathFs): Promise<boolean> {
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
