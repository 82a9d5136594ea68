import { has, parseOptions, valueOf } from './flags.ts';
import type { Arg, Invocation } from './model.ts';
import { INTERPRETERS } from './program-tables.ts';
import { pathsIn, type Target } from './checks/targets.ts';
import { literal } from './values.ts';

/**
 * Programs that serve a directory's files, everything below it, to whoever connects: python's http.server (`-d DIR`, else
 * the working directory), `php -S ADDR [-t DIR]`, busybox httpd (`-h DIR`), node's http-server (`DIR`). Serving a
 * directory that holds secrets reads them out like `tar c DIR`.
 */
const DOT: Arg = { v: '.', info: { computed: false, ansi: false, quoted: false, inner: [], raw: '.' } };
const PY_MODULES = new Set(['http.server', 'SimpleHTTPServer']);

function served(inv: Invocation): Arg | null {
  const prog = /^python[0-9.]*$/.test(inv.program) ? 'python' : inv.program;
  if (prog === 'python') {
    const p = parseOptions(inv.args, INTERPRETERS.python);
    const mod = valueOf(p, 'm');
    if (!mod || !PY_MODULES.has(literal(mod.v) ?? '')) return null;
    return valueOf(parseOptions(p.operands, { short: 'bdp', long: ['bind', 'directory', 'protocol', 'cgi'] }), 'd', 'directory') ?? DOT;
  }
  if (prog === 'php') {
    const p = parseOptions(inv.args, { short: 'St' + (INTERPRETERS.php!.short ?? '') });
    return has(p, 'S') ? valueOf(p, 't') ?? DOT : null;
  }
  // busybox's applet, reached as `httpd` once busybox is unwrapped (Apache's -h is help: read so, it serves nothing)
  if (prog === 'httpd') return valueOf(parseOptions(inv.args, { short: 'cprhuMeEdP' }), 'h');
  if (prog === 'http-server') return parseOptions(inv.args, { short: 'paPdcCSKe', long: ['port', 'address', 'proxy', 'cors', 'username', 'password', 'cert', 'key', 'ext'] }).operands[0] ?? DOT;
  return null;
}

/** The directory a file server serves (see above); empty when it is none. */
export function servedDirs(inv: Invocation): Target[] {
  const dir = served(inv);
  return dir ? pathsIn(inv, dir) : [];
}
