import { has, parseOptions, valuesOf, type ParsedOptions } from '../flags.ts';
import type { Arg, Emit, Invocation } from '../model.ts';
import { canonical, isCredentialFile, showCanon, type Canon } from '../paths.ts';
import { CODE_DIR_PATHS, CREDENTIAL_DIRS, CREDENTIAL_SUFFIXES, HOME_PARENTS, SYSTEM_AUTH_DIRS, SYSTEM_AUTH_FILES } from '../path-tables.ts';
import { TAR_OPTIONS } from '../program-tables.ts';
import { hasGlob, isKnown, literal } from '../values.ts';

/**
 * Archives unpacked into a directory that holds start-up or credential files (the home directory, `~/.config`, `~/.ssh`,
 * `/`, `/etc`, a cron or profile.d directory, a repository's `.git`): any member may replace `.bashrc`, a crontab or a
 * hook, which the guard cannot see, so it is asked like a write of those files (shell.credential.write). `tar -P` keeps
 * members' absolute names, which may be anywhere.
 */
const RULE = 'shell.credential.write';

interface Extraction {
  /** Where members land: the option's directory, else the working directory (null when unknown). */
  readonly dirs: readonly (Arg | null)[];
  readonly absolute: boolean;
}

const TARS = new Set(['tar', 'gtar', 'bsdtar']);
const UNZIP = { short: 'dxP', long: [] } as const;
const CPIO = { short: 'DEFHIMORs', long: ['directory', 'file', 'format', 'pattern-file', 'owner', 'io-size', 'rsh-command', 'message', 'block-size'] } as const;

const dirsOr = (p: ParsedOptions, ...names: string[]): (Arg | null)[] => { const d = valuesOf(p, ...names); return d.length > 0 ? d : [null]; };

function extraction(inv: Invocation): Extraction | null {
  const prog = inv.program;
  if (TARS.has(prog)) {
    const p = parseOptions(inv.args, TAR_OPTIONS);
    if (!has(p, 'x', 'extract', 'get')) return null;
    return { dirs: dirsOr(p, 'C', 'directory'), absolute: has(p, 'P', 'absolute-names') };
  }
  if (prog === 'unzip') {
    const p = parseOptions(inv.args, UNZIP);
    // listing, testing, a comment, or members to stdout
    if (has(p, 'l', 'v', 't', 'z', 'Z', 'p', 'c')) return null;
    return { dirs: dirsOr(p, 'd'), absolute: false };
  }
  if (prog === '7z' || prog === '7za' || prog === '7zz' || prog === '7zr') {
    const verb = literal(inv.args.find((a) => !a.v.startsWith('-'))?.v ?? '');
    if (verb !== 'x' && verb !== 'e') return null;
    const out = inv.args.filter((a) => a.v.startsWith('-o') && a.v.length > 2).map((a) => ({ ...a, v: a.v.slice(2) }));
    return { dirs: out.length > 0 ? out : [null], absolute: false };
  }
  if (prog === 'cpio') {
    const p = parseOptions(inv.args, CPIO);
    return has(p, 'i', 'extract') ? { dirs: dirsOr(p, 'D', 'directory'), absolute: false } : null;
  }
  return null;
}

const PATH_DIRS: ReadonlySet<string> = new Set(['/usr/local/bin', '/usr/local/sbin']);
const HOME_PATHS: readonly (readonly string[])[] = [...CREDENTIAL_SUFFIXES, ...CODE_DIR_PATHS, ...CREDENTIAL_DIRS].map((p) => p.split('/'));
// PATH's directories count when unpacked into, not above: `tar -C /usr/local -xzf go.tar.gz` installs into /usr/local/go
const ROOT_PATHS: readonly string[] = [...SYSTEM_AUTH_FILES, ...SYSTEM_AUTH_DIRS.filter((d) => !PATH_DIRS.has(d))];

/** Whether files unpacked into `c` may land on a start-up or credential file. */
export function holdsStartupFiles(c: Canon): boolean {
  if (c.segs.some(hasGlob) || !c.segs.every(isKnown)) return false;
  // inside `.ssh`, `.git/hooks`, `/etc/cron.d`: every file there counts
  if (isCredentialFile({ ...c, segs: [...c.segs, 'x'] })) return true;
  // a directory on the way to one (`.config` of `.config/fish/config.fish`, a repository's `.git`)
  if (HOME_PATHS.some((t) => t.length > 1 && [1, 2, 3].some((k) => k < t.length && k <= c.segs.length && t.slice(0, k).every((name, i) => c.segs[c.segs.length - k + i] === name)))) return true;
  if (c.base === 'home') return c.up > 0 || c.segs.length === 0;
  if (c.base !== 'root') return false;
  const s = c.segs;
  // `/`, a home (`/root`, `/home/NAME`) or the directory of homes
  if (s.length === 0 || (s.length === 1 && (s[0] === 'root' || HOME_PARENTS.has(s[0]!))) || (s.length === 2 && HOME_PARENTS.has(s[0]!))) return true;
  const dir = '/' + s.join('/') + '/';
  return ROOT_PATHS.some((p) => p.startsWith(dir));
}

export function checkExtraction(inv: Invocation, emit: Emit): void {
  const x = extraction(inv);
  if (!x) return;
  if (x.absolute) { emit(RULE, `${inv.text} (members keep their absolute names)`); return; }
  for (const d of x.dirs) {
    const c = d === null ? inv.cwd : canonical(d.v, inv.cwd);
    if (c && holdsStartupFiles(c)) { emit(RULE, `${inv.text} → ${showCanon(c)} (unpacks where start-up or credential files live)`); return; }
  }
}
