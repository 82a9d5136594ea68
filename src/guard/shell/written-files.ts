import { has, parseOptions, valueOf, valuesOf } from './flags.ts';
import { carriesDownload } from './interpreters.ts';
import type { Invocation } from './model.ts';
import { canonical, showCanon, type Canon } from './paths.ts';
import { DOWNLOADER_OPTIONS } from './program-tables.ts';
import { staticOutput } from './static-output.ts';
import { literal } from './values.ts';

/** Marks a file whose content was downloaded or decoded. */
export const DOWNLOADED = Symbol('downloaded');

/** The name curl -O and wget save a URL under: its last path part (wget: index.html when none). */
const fromUrl = (u: string): string => u.replace(/[?#].*$/, '').replace(/\/+$/, '').split('/').pop() || 'index.html';

/**
 * Files curl/wget save, their options parsed as they parse them (clusters like `-sSLo FILE`, `-fsSLO`, `-qO FILE`,
 * abbreviations like `--out`): curl's -o/--output (in --output-dir) and -O/--remote-name (the URL's last path part);
 * wget's -O/--output-document, else each URL's last path part (in -P/--directory-prefix). `-` is stdout.
 */
function downloadTargets(inv: Invocation): Canon[] {
  if (inv.program !== 'curl' && inv.program !== 'wget') return [];
  const p = parseOptions(inv.args, DOWNLOADER_OPTIONS[inv.program]);
  const urls = [...p.operands, ...valuesOf(p, 'url')].map((a) => literal(a.v)).filter((u): u is string => u !== null && u !== '');
  const named = (opts: readonly string[]): string[] => valuesOf(p, ...opts).map((a) => literal(a.v)).filter((f): f is string => f !== null && f !== '-');
  const dirOpt = valueOf(p, ...(inv.program === 'curl' ? ['output-dir'] : ['P', 'directory-prefix']));
  const dir = dirOpt ? canonical(dirOpt.v, inv.cwd) : inv.cwd;
  const inDir = (f: string): Canon | null => canonical(f, f.startsWith('/') ? inv.cwd : dir);
  let files: (Canon | null)[];
  if (inv.program === 'curl') {
    files = named(['o', 'output']).map(inDir);
    if (has(p, 'O', 'remote-name', 'remote-name-all')) files.push(...urls.map((u) => inDir(fromUrl(u))));
  } else {
    const out = valuesOf(p, 'O', 'output-document');
    files = out.length > 0 ? named(['O', 'output-document']).map((f) => canonical(f, inv.cwd)) : urls.map((u) => inDir(fromUrl(u)));
  }
  return files.filter((c): c is Canon => c !== null);
}

/**
 * Files one command line writes before it runs them (`echo … > x.sh && bash x.sh`,
 * `curl -o i.sh … && sh i.sh`): static text, or downloaded content.
 */
export class WrittenFiles {
  private readonly files = new Map<string, string | typeof DOWNLOADED>();

  lookup(path: Canon | null): string | typeof DOWNLOADED | undefined {
    return path ? this.files.get(showCanon(path)) : undefined;
  }

  remember(inv: Invocation): void {
    const out = carriesDownload(inv) ? DOWNLOADED : staticOutput(inv);
    const put = (path: Canon | null, append: boolean): void => {
      if (!path) return;
      const key = showCanon(path);
      const before = this.files.get(key);
      if (out === null) this.files.delete(key);
      else if (append && typeof before === 'string' && typeof out === 'string') this.files.set(key, before + out);
      else this.files.set(key, out);
    };
    for (const r of inv.redirs) {
      if (r.target && (r.op === '>' || r.op === '>>' || r.op === '>|' || r.op === '&>')) put(canonical(r.target.v, r.cwd), r.op === '>>');
    }
    if (inv.program === 'tee') for (const a of inv.args) if (!a.v.startsWith('-')) put(canonical(a.v, inv.cwd), false);
    for (const target of downloadTargets(inv)) this.files.set(showCanon(target), DOWNLOADED);
  }
}
