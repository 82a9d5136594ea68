import { carriesDownload } from './interpreters.ts';
import type { Invocation } from './model.ts';
import { canonical, showCanon, type Canon } from './paths.ts';
import { staticOutput } from './static-output.ts';
import { literal } from './values.ts';

/** Marks a file whose content was downloaded or decoded. */
export const DOWNLOADED = Symbol('downloaded');

/** Files curl/wget save: -o/-O FILE, or the URL's last path part. */
function downloadTargets(inv: Invocation): Canon[] {
  if (inv.program !== 'curl' && inv.program !== 'wget') return [];
  const out: Canon[] = [];
  const words = inv.args.map((a) => literal(a.v));
  const urls = words.filter((w): w is string => w !== null && /^[a-z]+:\/\//i.test(w));
  const fromUrl = (u: string): string => u.replace(/[?#].*$/, '').replace(/\/+$/, '').split('/').pop() || 'index.html';
  words.forEach((w, i) => {
    const next = words[i + 1];
    if ((inv.program === 'curl' ? w === '-o' || w === '--output' : w === '-O' || w === '--output-document') && next && next !== '-') out.push(canonical(inv.args[i + 1]!.v, inv.cwd)!);
    if (inv.program === 'curl' && (w === '-O' || w === '--remote-name')) urls.forEach((u) => out.push(canonical(fromUrl(u), inv.cwd)!));
  });
  if (inv.program === 'wget' && !words.some((w) => w === '-O' || w === '--output-document' || w?.startsWith('-qO') || w?.startsWith('-O'))) {
    urls.forEach((u) => out.push(canonical(fromUrl(u), inv.cwd)!));
  }
  return out.filter(Boolean);
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
