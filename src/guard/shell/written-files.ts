import { has, parseOptions, valueOf, valuesOf } from './flags.ts';
import { carriesDownload } from './interpreters.ts';
import type { Invocation } from './model.ts';
import { canonical, segRegex, showCanon, type Canon } from './paths.ts';
import { DOWNLOADER_OPTIONS } from './program-tables.ts';
import { staticOutput } from './static-output.ts';
import { hasGlob, literal } from './values.ts';

/** Marks a file whose content was downloaded or decoded. */
export const DOWNLOADED = Symbol('downloaded');

/** The name curl -O and wget save a URL under: its last path part (wget: index.html when none). */
const fromUrl = (u: string): string => u.replace(/[?#].*$/, '').replace(/\/+$/, '').split('/').pop() || 'index.html';

/**
 * Files curl/wget save, their options parsed as they parse them (clusters like `-sSLo FILE`, `-fsSLO`, `-qO FILE`,
 * abbreviations like `--out`): curl's -o/--output (in --output-dir) and -O/--remote-name (the URL's last path part);
 * wget's -O/--output-document, else each URL's last path part (in -P/--directory-prefix). `-` is stdout. `unnamed`:
 * the directories where the server picks the name (curl -J with -O, wget --content-disposition or --trust-server-names).
 */
function downloadTargets(inv: Invocation): { files: Canon[]; unnamed: Canon[] } {
  if (inv.program !== 'curl' && inv.program !== 'wget') return { files: [], unnamed: [] };
  const p = parseOptions(inv.args, DOWNLOADER_OPTIONS[inv.program]);
  const urls = [...p.operands, ...valuesOf(p, 'url')].map((a) => literal(a.v)).filter((u): u is string => u !== null && u !== '');
  const named = (opts: readonly string[]): string[] => valuesOf(p, ...opts).map((a) => literal(a.v)).filter((f): f is string => f !== null && f !== '-');
  const dirOpt = valueOf(p, ...(inv.program === 'curl' ? ['output-dir'] : ['P', 'directory-prefix']));
  const dir = dirOpt ? canonical(dirOpt.v, inv.cwd) : inv.cwd ?? canonical('.', null);
  const inDir = (f: string): Canon | null => canonical(f, f.startsWith('/') ? inv.cwd : dir);
  let files: (Canon | null)[];
  let serverNamed: boolean;
  if (inv.program === 'curl') {
    files = named(['o', 'output']).map(inDir);
    const remote = has(p, 'O', 'remote-name', 'remote-name-all');
    if (remote) files.push(...urls.map((u) => inDir(fromUrl(u))));
    serverNamed = remote && has(p, 'J', 'remote-header-name');
  } else {
    const out = valuesOf(p, 'O', 'output-document');
    files = out.length > 0 ? named(['O', 'output-document']).map((f) => canonical(f, inv.cwd)) : urls.map((u) => inDir(fromUrl(u)));
    serverNamed = out.length === 0 && has(p, 'content-disposition', 'trust-server-names');
  }
  return { files: files.filter((c): c is Canon => c !== null), unnamed: serverNamed && dir ? [dir] : [] };
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
  private clock = 0;

  lookup(path: Canon | null): string | typeof DOWNLOADED | undefined {
    const name = path?.segs[path.segs.length - 1];
    if (!path || name === undefined) return undefined;
    const dir = dirOf(path);
    const since = this.unnamed.get(dir);
    if (!hasGlob(name)) {
      const w = this.files.get(showCanon(path));
      return since !== undefined && (!w || w.at < since) ? DOWNLOADED : w?.content ?? undefined;
    }
    if (since !== undefined) return DOWNLOADED;
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
    if (inv.program === 'tee') for (const a of inv.args) if (!a.v.startsWith('-')) put(canonical(a.v, inv.cwd), false);
    const { files, unnamed } = downloadTargets(inv);
    for (const target of files) put(target, false, DOWNLOADED);
    for (const dir of unnamed) this.unnamed.set(showCanon(dir), at);
  }
}
