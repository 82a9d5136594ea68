import { has, parseOptions, valueOf, valuesOf, type ParsedOptions } from './flags.ts';
import { carriesDownload } from './interpreters.ts';
import type { Invocation } from './model.ts';
import { canonical, segRegex, showCanon, type Canon } from './paths.ts';
import { DOWNLOADER_OPTIONS, TRANSFER_OPTIONS } from './program-tables.ts';
import { staticOutput } from './static-output.ts';
import { hasGlob, isKnown, literal } from './values.ts';

/** Marks a file whose content was downloaded or decoded. */
export const DOWNLOADED = Symbol('downloaded');

/** The name curl -O and wget save a URL under: its last path part (wget: index.html when none). */
const fromUrl = (u: string): string => u.replace(/[?#].*$/, '').replace(/\/+$/, '').split('/').pop() || 'index.html';

/** A directory wget saves a tree below, and when; `strict`: in a directory per host, not in it directly. */
interface Tree {
  readonly dir: Canon;
  readonly at: number;
  readonly strict: boolean;
}

/** wget options saving files below its directory under names the server's pages pick (`-r`, `-m`, `-p`, `-x`). */
const WGET_TREE = ['r', 'recursive', 'm', 'mirror', 'p', 'page-requisites', 'x', 'force-directories'];

/** The directory wget names after a URL's host (`x.example/…`, a URL without a scheme too); null with a port or user. */
const hostDir = (u: string): string | null => {
  const m = /^(?:[a-z][a-z0-9+.-]*:\/\/)?([^/?#]*)/i.exec(u)![1]!;
  return m !== '' && !/[:@]/.test(m) ? m.toLowerCase() : null;
};

/**
 * Where wget -r saves: a directory per host below `dir` (its URLs' hosts, or any with -H or a URL not known), or `dir`
 * itself with -nd or -nH.
 */
function wgetTrees(p: ParsedOptions, dir: Canon, urls: readonly string[], unknown: boolean): Tree[] {
  if (has(p, 'no-directories', 'no-host-directories') || valuesOf(p, 'n').some((v) => /^[dH]$/.test(literal(v.v) ?? 'd'))) return [{ dir, at: 0, strict: false }];
  const hosts = urls.map(hostDir);
  const anyHost = unknown || hosts.includes(null) || has(p, 'H', 'span-hosts', 'protocol-directories');
  if (anyHost) return [{ dir, at: 0, strict: true }];
  return [...new Set(hosts)].flatMap((h) => { const c = canonical(h!, dir); return c ? [{ dir: c, at: 0, strict: false }] : []; });
}

/**
 * Files curl/wget save, their options parsed as they parse them (clusters like `-sSLo FILE`, `-fsSLO`, `-qO FILE`,
 * abbreviations like `--out`): curl's -o/--output (in --output-dir) and -O/--remote-name (the URL's last path part);
 * wget's -O/--output-document, else each URL's last path part (in -P/--directory-prefix). `-` is stdout. `unnamed`:
 * the directories where the server picks the name (curl -J with -O, wget --content-disposition or --trust-server-names,
 * a URL or a list of URLs not known); `trees`: where wget -r/-m/-p/-x saves whole trees; `anywhere`: a directory or
 * name not known (`--output-dir "$D"`, `-o "$F"`), so the download may be any file.
 */
function downloadTargets(inv: Invocation): { files: Canon[]; unnamed: Canon[]; trees: Tree[]; anywhere: boolean } {
  const none = { files: [], unnamed: [], trees: [], anywhere: false };
  if (inv.program !== 'curl' && inv.program !== 'wget') return none;
  const p = parseOptions(inv.args, DOWNLOADER_OPTIONS[inv.program]);
  const given = [...p.operands, ...valuesOf(p, 'url')].map((a) => literal(a.v));
  const urls = given.filter((u): u is string => u !== null && u !== '');
  const named = (opts: readonly string[]): string[] => valuesOf(p, ...opts).map((a) => literal(a.v)).filter((f): f is string => f !== null && f !== '-');
  const unknownName = (opts: readonly string[]): boolean => valuesOf(p, ...opts).some((a) => !isKnown(a.v));
  const dirOpt = valueOf(p, ...(inv.program === 'curl' ? ['output-dir'] : ['P', 'directory-prefix']));
  const dir = dirOpt ? canonical(dirOpt.v, inv.cwd) : inv.cwd ?? canonical('.', null);
  const inDir = (f: string): Canon | null => canonical(f, f.startsWith('/') ? inv.cwd : dir);
  let files: (Canon | null)[];
  let serverNamed: boolean;
  let trees: Tree[] = [];
  let anywhere: boolean;
  if (inv.program === 'curl') {
    files = named(['o', 'output']).map(inDir);
    const remote = has(p, 'O', 'remote-name', 'remote-name-all');
    if (remote) files.push(...urls.map((u) => inDir(fromUrl(u))));
    serverNamed = remote && (has(p, 'J', 'remote-header-name') || given.includes(null));
    anywhere = unknownName(['o', 'output']) || ((remote || files.length > 0) && dirOpt !== null && !isKnown(dirOpt.v));
  } else {
    const out = valuesOf(p, 'O', 'output-document');
    files = out.length > 0 ? named(['O', 'output-document']).map((f) => canonical(f, inv.cwd)) : urls.map((u) => inDir(fromUrl(u)));
    serverNamed = out.length === 0 && (has(p, 'content-disposition', 'trust-server-names', 'i', 'input-file') || given.includes(null));
    if (dir && out.length === 0 && has(p, ...WGET_TREE)) trees = wgetTrees(p, dir, urls, given.includes(null) || serverNamed);
    anywhere = unknownName(['O', 'output-document']) || (out.length === 0 && dirOpt !== null && !isKnown(dirOpt.v));
  }
  const at = dir && !anywhere ? [dir] : [];
  return { files: files.filter((c): c is Canon => c !== null), unnamed: serverNamed ? at : [], trees: anywhere ? [] : trees, anywhere };
}

interface Written {
  /** null: written with content not known. */
  readonly content: string | typeof DOWNLOADED | null;
  /** Its directory (as showCanon writes it) and name, for globs. */
  readonly dir: string;
  readonly name: string;
  /** When it was written, against downloads into its directory named by the server. */
  readonly at: number;
}

const dirOf = (c: Canon): string => showCanon({ ...c, segs: c.segs.slice(0, -1) });

const globMatches = (glob: string, name: string): boolean => {
  try {
    return segRegex(glob).test(name);
  } catch {
    return true;
  }
};

/** Whether a file's directory is `dir` or (`strict`: only) below it; a glob in the file's path matches any name there. */
function below(file: Canon, dir: Canon, strict: boolean): boolean {
  const segs = file.segs.slice(0, -1);
  if (file.base !== dir.base || (file.base !== 'root' && dir.base !== 'root' && file.up !== dir.up) || segs.length < dir.segs.length + (strict ? 1 : 0)) return false;
  return dir.segs.every((s, i) => s === segs[i] || (hasGlob(segs[i]!) && globMatches(segs[i]!, s)));
}

/**
 * Files one command line writes before it runs them (`echo … > x.sh && bash x.sh`,
 * `curl -o i.sh … && sh i.sh`): static text, or downloaded content. A name with globs (`sh *`, `bash ./*.sh`) stands
 * for each file written that it matches; any name in a directory where a download was saved under a name the server
 * picked (`curl -JO URL && sh *`, `&& bash install.sh`) may be that download.
 */
export class WrittenFiles {
  private readonly files = new Map<string, Written>();
  /** Directories holding a download named by the server, and when. */
  private readonly unnamed = new Map<string, number>();
  /** Directories wget saved trees below (`wget -r`), and when. */
  private readonly trees: Tree[] = [];
  /** When a download was saved where the guard cannot tell. */
  private anywhere: number | undefined;
  private clock = 0;

  lookup(path: Canon | null): string | typeof DOWNLOADED | undefined {
    // a download saved under a name not known may be this file, whatever it is called
    if (!path) return this.anywhere !== undefined ? DOWNLOADED : undefined;
    const name = path.segs[path.segs.length - 1];
    if (name === undefined) return undefined;
    const dir = dirOf(path);
    const since = Math.max(this.unnamed.get(dir) ?? -1, ...this.trees.filter((t) => below(path, t.dir, t.strict)).map((t) => t.at), this.anywhere ?? -1);
    if (!hasGlob(name)) {
      const w = this.files.get(showCanon(path));
      return since >= 0 && (!w || w.at < since) ? DOWNLOADED : w?.content ?? undefined;
    }
    if (since >= 0) return DOWNLOADED;
    let re: RegExp;
    try {
      re = segRegex(name);
    } catch {
      return undefined;
    }
    const hits = [...this.files.values()].filter((w) => w.dir === dir && re.test(w.name)).map((w) => w.content);
    if (hits.includes(DOWNLOADED)) return DOWNLOADED;
    const texts = hits.filter((c): c is string => typeof c === 'string');
    return texts.length > 0 ? texts.join('\n') : undefined;
  }

  remember(inv: Invocation): void {
    const out = carriesDownload(inv) ? DOWNLOADED : staticOutput(inv);
    const at = ++this.clock;
    const put = (path: Canon | null, append: boolean, content = out): void => {
      if (!path) return;
      const key = showCanon(path);
      const before = this.files.get(key)?.content;
      const entry = { dir: dirOf(path), name: path.segs[path.segs.length - 1] ?? '', at };
      if (append && typeof before === 'string' && typeof content === 'string') this.files.set(key, { ...entry, content: before + content });
      else this.files.set(key, { ...entry, content });
    };
    for (const r of inv.redirs) {
      if (r.target && (r.op === '>' || r.op === '>>' || r.op === '>|' || r.op === '&>')) put(canonical(r.target.v, r.cwd), r.op === '>>');
    }
    // tee, sponge and dd without if= write what they read (`echo CODE | tee x.sh`, `tee x.sh <<< CODE`)
    const fed = out === DOWNLOADED ? DOWNLOADED : inv.stdinText;
    if (inv.program === 'tee' || inv.program === 'sponge') {
      const append = inv.args.some((a) => /^-[a-z]*a|^--append$/.test(a.v));
      for (const a of inv.args) if (!a.v.startsWith('-')) put(canonical(a.v, inv.cwd), append, fed);
    }
    // a copy holds what its source held (`cp a.sh b.sh`, `install /dev/stdin x <<< CODE`); a directory destination is not followed
    if (inv.program === 'cp' || inv.program === 'install' || inv.program === 'mv' || inv.program === 'ln') {
      const p = parseOptions(inv.args, TRANSFER_OPTIONS[inv.program]);
      const [from, to] = p.operands;
      if (p.operands.length === 2 && !has(p, 't', 'target-directory') && from && to) {
        const src = literal(from.v) === '/dev/stdin' ? fed : this.lookup(canonical(from.v, inv.cwd));
        if (src !== undefined) put(canonical(to.v, inv.cwd), false, src);
      }
    }
    if (inv.program === 'dd' && !inv.args.some((a) => a.v.startsWith('if=') && a.v !== 'if=/dev/stdin')) {
      for (const a of inv.args) if (a.v.startsWith('of=')) put(canonical(a.v.slice(3), inv.cwd), false, fed);
    }
    const { files, unnamed, trees, anywhere } = downloadTargets(inv);
    for (const target of files) put(target, false, DOWNLOADED);
    for (const dir of unnamed) this.unnamed.set(showCanon(dir), at);
    for (const t of trees) this.trees.push({ ...t, at });
    if (anywhere) this.anywhere = at;
  }
}
