import {
  DOTENV, GIT_CONFIG_NAMES, GIT_HOOK_NAMES, GIT_HOOKS_DIR, PRIVATE_KEY_LIKE, HARMLESS_DEVICE, CREDENTIAL_BASENAMES, CREDENTIAL_STORES, CREDENTIAL_STORE_DIRS, CREDENTIAL_STORE_ENDINGS, KEY_DIR, LOGIN_FILES, PRIVATE_KEY_NAMES, SSH_PUBLIC_FILES, CREDENTIAL_DIRS, CREDENTIAL_PREFIXES, CREDENTIAL_SUFFIXES, CODE_DIR_PATHS, HOME_PARENTS, SECRET_DIRS, SECRET_FILES,
  PROC_FD_DIR, PROC_OWN, PROC_PID, PROC_PID_SAMPLES, PROC_SECRET_NAMES, SYSTEM_AUTH_DIRS, SYSTEM_AUTH_FILES, SYSTEM_SUBDIRS, SYSTEM_TOP_DIRS, SYSTEM_TOP_PATTERN,
} from './path-tables.ts';
import { FIELD_SPLIT, GLOB_CLASS, GLOB_ONE, GLOB_STAR, HOME, UNKNOWN, display, hasGlob, isKnown } from './values.ts';

/**
 * A canonical path: `..`, `.`, `//` and trailing `/` resolved. The home
 * directory is symbolic (the guard does not know it); `up` counts levels
 * above home (or above an unknown working directory).
 */
export type Canon =
  | { readonly base: 'root'; readonly segs: readonly string[] }
  | { readonly base: 'home' | 'rel'; readonly segs: readonly string[]; readonly up: number };

export const HOME_DIR: Canon = { base: 'home', segs: [], up: 0 };

/** Canonical form of an expanded value against a tracked working directory; null when its start is unknown. */
export function canonical(v: string, cwd: Canon | null): Canon | null {
  if (v === '' || v.startsWith('\u0000')) return null;
  let base: Canon['base'];
  let segs: string[];
  let up = 0;
  let rest: string;
  if (v.startsWith(HOME)) {
    base = 'home'; segs = []; rest = v.slice(1);
  } else if (v.startsWith('/')) {
    base = 'root'; segs = []; rest = v;
  } else if (cwd) {
    base = cwd.base; segs = [...cwd.segs]; up = cwd.base === 'root' ? 0 : cwd.up; rest = v;
  } else {
    base = 'rel'; segs = []; rest = v;
  }
  for (const s of rest.split('/')) {
    if (s === '' || s === '.') continue;
    if (s === '..') {
      if (segs.length > 0) segs.pop();
      else if (base !== 'root') up++;
      continue;
    }
    segs.push(s);
    // /proc/<pid>/root is a symlink to the root directory: /proc/self/root/etc/shadow is /etc/shadow
    if (base === 'root' && segs.length === 3 && segs[0] === 'proc' && segs[2] === 'root' && /^(\d+|self|thread-self)$/.test(segs[1]!)) segs = [];
  }
  return base === 'root' ? { base, segs } : { base, segs, up };
}

export function showCanon(c: Canon): string {
  const tail = c.segs.map(display).join('/');
  if (c.base === 'root') return '/' + tail;
  const ups = '../'.repeat(c.up);
  if (c.base === 'home') return '~/' + ups + tail;
  return (ups + tail) || '.';
}

/** A canonical path as an expanded value (home as the sentinel). */
export function canonValue(c: Canon): string {
  const tail = c.segs.join('/');
  if (c.base === 'root') return '/' + tail;
  const ups = '../'.repeat(c.up);
  if (c.base === 'home') return HOME + '/' + ups + tail;
  return (ups + tail) || '.';
}

const abs = (c: Canon): string => '/' + c.segs.join('/');

/** A path segment with live glob characters as the regular expression it matches. */
export function segRegex(seg: string): RegExp {
  let re = /^[\uE000-\uE002]/.test(seg) ? '(?!\\.)' : '';
  for (let i = 0; i < seg.length; i++) {
    const c = seg[i]!;
    if (c === GLOB_STAR) re += '[^/]*';
    else if (c === GLOB_ONE) re += '[^/]';
    else if (c === GLOB_CLASS) {
      const end = seg.indexOf(']', i + 2);
      if (end < 0) { re += '\\['; continue; }
      let body = seg.slice(i + 1, end);
      if (body.startsWith('!')) body = '^' + body.slice(1);
      re += '[' + body.replace(/\\/g, '\\\\') + ']';
      i = end;
    } else re += c.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
  }
  return new RegExp('^' + re + '$');
}

function segMatches(pattern: string, name: string): boolean {
  if (!hasGlob(pattern)) return pattern === name;
  try {
    return segRegex(pattern).test(name);
  } catch {
    return true;
  }
}

/** Whether an absolute canonical path (with globs) can name `target`, or something inside it when `inside`. */
function reaches(c: Canon, target: string, inside: boolean): boolean {
  if (c.base !== 'root') return false;
  const t = target.split('/').filter(Boolean);
  if (inside ? c.segs.length < t.length : c.segs.length !== t.length) return false;
  return t.every((name, i) => segMatches(c.segs[i]!, name));
}

function isSystemDir(segs: readonly string[]): boolean {
  if (segs.length === 1) return SYSTEM_TOP_DIRS.has(segs[0]!) || SYSTEM_TOP_PATTERN.test(segs[0]!);
  return SYSTEM_SUBDIRS.has('/' + segs.join('/'));
}

const isHomeDir = (segs: readonly string[]): boolean => segs.length === 2 && HOME_PARENTS.has(segs[0]!);

export type DeleteClass = 'root' | 'system' | 'home';
const DEEP_ENOUGH = 8;

/** What a recursive delete of this path destroys, when it is a protected place. */
export function deleteClass(c: Canon): DeleteClass | null {
  const direct = classify(c);
  if (direct) return direct;
  // `rm -rf /$x`: an unknown last component may be empty
  const segs = [...c.segs];
  while (segs.length > 0 && /^\u0000+$/.test(segs[segs.length - 1]!)) segs.pop();
  return segs.length < c.segs.length ? classify({ ...c, segs }) : null;
}

function classify(c: Canon): DeleteClass | null {
  const g = c.segs.findIndex(hasGlob);
  if (c.base === 'home') {
    if (c.up > 0 || c.segs.length === 0 || g === 0) return 'home';
    return null;
  }
  // from an unknown directory, enough `..` reaches / from anywhere plausible
  if (c.base === 'rel') return c.up >= DEEP_ENOUGH && (c.segs.length === 0 || g === 0) ? 'root' : null;
  if (c.segs.length === 0 || g === 0) return 'root';
  const fixed = g < 0 ? c.segs : c.segs.slice(0, g);
  if (g < 0) {
    if (isHomeDir(fixed)) return 'home';
    return isSystemDir(fixed) ? 'system' : null;
  }
  // a glob below a fixed prefix: children of a protected directory, or a pattern naming one
  if (fixed.length === 1 && HOME_PARENTS.has(fixed[0]!)) return 'home';
  if (isHomeDir(fixed) && g === 2) return 'home';
  const startsWild = /^[\uE000-\uE002]/.test(c.segs[g]!);
  if (isSystemDir(fixed) && startsWild) return 'system';
  const candidates = [...SYSTEM_SUBDIRS].filter((d) => d.split('/').length - 1 === g + 1);
  if (candidates.some((d) => reaches({ base: 'root', segs: c.segs.slice(0, g + 1) }, d, false))) return 'system';
  return null;
}

/** Inside a system directory (for non-recursive deletes). */
export function inSystemDir(c: Canon): boolean {
  return c.base === 'root' && (c.segs.length === 0 || isSystemDir(c.segs.slice(0, 1))) && c.segs[0] !== 'tmp';
}

/**
 * The absolute path a path above home (`~/../../etc/shadow`) or far above an unknown directory reaches:
 * climbing past / stays at /, and every home is at least one level deep, so enough `..` land at the root.
 */
function rooted(c: Canon | null): Canon | null {
  if (!c || c.base === 'root') return c;
  if ((c.base === 'home' && c.up >= 1) || (c.base === 'rel' && c.up >= DEEP_ENOUGH)) return { base: 'root', segs: c.segs };
  return null;
}

const DEVICE_SAMPLES = ['/dev/sda', '/dev/vg0/root', '/dev/zram0', '/dev/sdb1', '/dev/nvme0n1', '/dev/vda', '/dev/xvda', '/dev/hda', '/dev/mmcblk0', '/dev/loop0', '/dev/dm-0', '/dev/md0', '/dev/disk0', '/dev/mapper/root', '/dev/mem'];

export function isBlockDevice(given: Canon | null): boolean {
  const c = rooted(given);
  if (!c) return false;
  if (!c.segs.some(hasGlob)) return isKnown(abs(c)) && c.segs[0] === 'dev' && c.segs.length > 1 && !HARMLESS_DEVICE.test(abs(c));
  return DEVICE_SAMPLES.some((d) => reaches(c, d, false));
}

/**
 * The deployment's own secrets (the embedded database's password and files, the config file): absolute paths that
 * come with one check, not from the tables. Set only around one synchronous analysis (withDeploymentSecrets).
 */
let deploymentSecrets: readonly string[] = [];

/** Runs `analyse` with `paths` counted as secrets, and anything below them; analyses are synchronous, so none overlap. */
export function withDeploymentSecrets<T>(paths: readonly string[], analyse: () => T): T {
  const before = deploymentSecrets;
  deploymentSecrets = paths;
  try {
    return analyse();
  } finally {
    deploymentSecrets = before;
  }
}

/** /etc/shadow and friends, root's SSH keys, a process's environment, command line or memory, the deployment's secrets (globs included). */
export function isSecret(given: Canon | null): boolean {
  const r = rooted(given);
  if (!r) return false;
  // /var/run is a link to /run
  const c: Canon = r.segs.length >= 2 && r.segs[0] === 'var' && r.segs[1] === 'run' ? { base: 'root', segs: r.segs.slice(1) } : r;
  return SECRET_FILES.some((f) => reaches(c, f, false)) || SECRET_DIRS.some((d) => reaches(c, d, true)) || isProcSecret(c)
    || deploymentSecrets.some((p) => reaches(c, p, true));
}

const UNKNOWN_PARTS = new RegExp(`[${UNKNOWN}${FIELD_SPLIT}]+`, 'g');

/** A word naming a process (a task when `task`) under /proc: an unknown part (`$PPID`, `$(pgrep x)`) may be any pid. */
function namesProcess(seg: string, task: boolean): boolean {
  const s = seg.replace(UNKNOWN_PARTS, GLOB_STAR);
  if (!hasGlob(s)) return task ? /^\d+$/.test(s) : PROC_PID.test(s);
  return PROC_PID_SAMPLES.some((p) => (!task || /^\d+$/.test(p)) && segMatches(s, p));
}

/** `/proc/PID` or `/proc/PID/task/TID`; with `tree` also `/proc` and `/proc/PID/task`, whose whole tree holds them. */
function procDir(s: readonly string[], tree: boolean): boolean {
  if (s.length === 0 || s.length > 4 || !segMatches(s[0]!, 'proc')) return false;
  if (s.length === 1) return tree;
  if (!namesProcess(s[1]!, false)) return false;
  if (s.length === 2) return true;
  if (!segMatches(s[2]!, 'task')) return false;
  return s.length === 3 ? tree : namesProcess(s[3]!, true);
}

/** `/proc/<pid>[/task/<tid>]/{environ,cmdline,mem}` (what path.proc_secret refuses the file tools), and another process's `fd/<n>`. */
function isProcSecret(c: Canon): boolean {
  const s = c.segs;
  if ((s.length === 3 || s.length === 5) && procDir(s.slice(0, -1), false) && PROC_SECRET_NAMES.some((n) => segMatches(s[s.length - 1]!, n))) return true;
  // a glob or unknown pid may name another process; `self` and `thread-self` name the reader's own descriptors
  return (s.length === 4 || s.length === 6) && procDir(s.slice(0, -2), false) && segMatches(s[s.length - 2]!, PROC_FD_DIR) && !PROC_OWN.test(s[1]!);
}

/**
 * A private SSH key: any file of a `.ssh` directory but its public ones, and a file named as ssh-keygen names them
 * (`id_rsa`, `id_ed25519`) anywhere, copied into a project too (globs included; outside `.ssh` only a glob starting
 * with its literal name part, so that `cat *` is none).
 */
export function isPrivateKey(c: Canon | null): boolean {
  if (!c || c.segs.length === 0) return false;
  const name = c.segs[c.segs.length - 1]!;
  if (c.segs.length >= 2 && segMatches(c.segs[c.segs.length - 2]!, KEY_DIR)) {
    if (!hasGlob(name)) return !SSH_PUBLIC_FILES.test(name);
    return PRIVATE_KEY_NAMES.some((k) => segMatches(name, k));
  }
  return !/^[\uE000-\uE002]/.test(name) && PRIVATE_KEY_NAMES.some((k) => segMatches(name, k));
}

/** Credential and shell start-up files. */
export function isCredentialFile(c: Canon | null): boolean {
  if (!c || c.segs.length === 0) return false;
  const name = c.segs[c.segs.length - 1]!;
  if (CREDENTIAL_BASENAMES.has(name) || CREDENTIAL_PREFIXES.some((p) => name.startsWith(p))) return true;
  if (isGitDirFile(c.segs)) return true;
  if (c.segs.some((s) => CREDENTIAL_DIRS.has(s))) return true;
  // a .pth file in site-packages runs its `import` lines at every python start
  if (name.endsWith('.pth') && c.segs.some((s) => s === 'site-packages' || s === 'dist-packages')) return true;
  const joined = c.segs.join('/');
  if (CREDENTIAL_SUFFIXES.some((s) => ('/' + joined).endsWith('/' + s))) return true;
  if (CODE_DIR_PATHS.some((d) => ('/' + joined).includes(`/${d}/`))) return true;
  const r = rooted(c);
  if (!r) return false;
  const p = abs(r);
  return SYSTEM_AUTH_FILES.has(p) || SYSTEM_AUTH_DIRS.some((d) => p.startsWith(d + '/'));
}

/**
 * A file of a git directory named by where it is, beside `.git/config` and `.git/hooks/` (the tables): the config and
 * hooks of a repository kept inside `.git` (a submodule's `.git/modules/NAME`, a worktree's `.git/worktrees/NAME`, which
 * their gitfiles point to) and of a bare one (`repo.git/config`, `repo.git/hooks/pre-commit`). A `hooks/pre-commit`
 * elsewhere is a project's own file until a gitfile points there (the gitfile asks); a `config` elsewhere is judged by
 * its text (gitConfigRunsCode) and, for the file tools, by whether its directory holds a repository's HEAD.
 */
function isGitDirFile(segs: readonly string[]): boolean {
  const name = segs[segs.length - 1]!;
  const hook = segs.length >= 3 && segMatches(segs[segs.length - 2]!, GIT_HOOKS_DIR) && [...GIT_HOOK_NAMES].some((h) => segMatches(name, h));
  const owner = hook ? segs.length - 3 : GIT_CONFIG_NAMES.has(name) ? segs.length - 2 : -1;
  if (owner < 0) return false;
  return /\.git$/.test(segs[owner]!) || segs.slice(0, owner).includes('.git');
}

const STORE_SEGS: readonly (readonly string[])[] = CREDENTIAL_STORES.map((f) => f.split('/'));
const STORE_DIR_SEGS: readonly (readonly string[])[] = CREDENTIAL_STORE_DIRS.map((d) => d.split('/'));

/** Whether `t` is at `c.segs[at]` on (globs included). */
const segsAt = (c: Canon, t: readonly string[], at: number): boolean => at >= 0 && t.every((name, i) => segMatches(c.segs[at + i]!, name));

/** A file holding only credentials (`~/.aws/credentials`, `.git-credentials`, a GnuPG private key), wherever it is (globs included). */
export function isCredentialStore(c: Canon | null): boolean {
  if (!c) return false;
  if (STORE_SEGS.some((t) => segsAt(c, t, c.segs.length - t.length))) return true;
  // `x.keytab`, `*.keytab`; not a glob that only may match one (`cat *`)
  const name = c.segs[c.segs.length - 1];
  if (name !== undefined && CREDENTIAL_STORE_ENDINGS.some((e) => plainEnding(name, e))) return true;
  // a file (or a glob) anywhere below such a directory
  return STORE_DIR_SEGS.some((t) => c.segs.some((_, at) => at + t.length < c.segs.length && segsAt(c, t, at)));
}

/**
 * A settings file holding a login (`~/.netrc`, `.npmrc`; globs included), a dotenv file (`.env`, `.env.local`) or a file
 * named like a private key of another tool (`privkey.pem`, `x.ppk`, literal names only), which reading out asks about.
 */
export function isLoginFile(c: Canon | null): boolean {
  if (c === null || c.segs.length === 0) return false;
  if (LOGIN_SEGS.some((t) => segsAt(c, t, c.segs.length - t.length))) return true;
  const name = c.segs[c.segs.length - 1]!;
  if (!hasGlob(name)) return DOTENV.test(name) || PRIVATE_KEY_LIKE.test(name);
  return DOTENV_SAMPLES.some((n) => segMatches(name, n));
}
/** Names a glob (`cat .env*`, `cat .e?v`) is tried against: a dotenv file it may name. */
const DOTENV_SAMPLES: readonly string[] = ['.env', '.env.local', '.env.production'];
const LOGIN_SEGS: readonly (readonly string[])[] = LOGIN_FILES.map((f) => f.split('/'));

/** A name ending in `ending` as written (a glob's literal tail counts: `*.keytab`). */
const plainEnding = (name: string, ending: string): boolean => name.endsWith(ending) && (!hasGlob(name) || segMatches(name, `x${ending}`));

/** A secret a reader hands over: a private key or a credential store (beside /etc/shadow and root's keys, see isSecret). */
export const isUserSecret = (c: Canon | null): boolean => isPrivateKey(c) || isCredentialStore(c);

/** Any secret the guard refuses to hand over when read: the system's (isSecret) or a user's (isUserSecret). */
export const isAnySecret = (c: Canon | null): boolean => isSecret(c) || isUserSecret(c);

/** Whether absolute `c` (with globs) is `target` or a directory above it; `*` in the target stands for any name. */
function above(c: Canon, target: string): boolean {
  const t = target.split('/').filter(Boolean);
  return c.base === 'root' && c.segs.length <= t.length && c.segs.every((s, i) => t[i] === '*' || segMatches(s, t[i]!));
}

/** Home-relative places of user secrets: the key directory and the credential stores. */
const HOME_SECRETS: readonly (readonly string[])[] = [[KEY_DIR, PRIVATE_KEY_NAMES[0]!], ...STORE_SEGS, ...STORE_DIR_SEGS.map((t) => [...t, '*'])];
/** The same below every home: /root and each /home/NAME, /Users/NAME. */
const HOMES = ['/root', ...[...HOME_PARENTS].map((p) => `/${p}/*`)];
const ROOTED_SECRETS: readonly string[] = [...SECRET_FILES, ...SECRET_DIRS, ...HOMES.flatMap((h) => HOME_SECRETS.map((t) => `${h}/${t.join('/')}`))];

/**
 * A path read recursively that holds a secret: the secret itself, something inside a secret directory, or a
 * directory above one (`/`, `/etc`, `/root`, a home, any `.ssh` or `.aws` directory).
 */
export function holdsSecret(c: Canon | null): boolean {
  if (!c) return false;
  if (isAnySecret(c)) return true;
  // a directory named like the start of a home secret (`.ssh`, `.aws`), wherever it is, and the home itself
  for (const t of HOME_SECRETS) {
    for (let k = 1; k < t.length; k++) {
      if (c.segs.length >= k && t.slice(0, k).every((name, i) => segMatches(c.segs[c.segs.length - k + i]!, name))) return true;
    }
  }
  if (c.base === 'home' && c.up === 0 && c.segs.length === 0) return true;
  const r = rooted(c);
  return r !== null && (ROOTED_SECRETS.some((t) => above(r, t)) || deploymentSecrets.some((t) => above(r, t)) || procDir(r.segs, true));
}
