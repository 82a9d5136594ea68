import { has, parseOptions, valuesOf } from './flags.ts';
import type { Arg, Invocation } from './model.ts';
import { EMBEDDED_CODE, SCHEDULERS, type CodeIn } from './code-tables.ts';
import { literal, plain } from './values.ts';
import { GIT_CODE_KEYS } from './written-files.ts';

/** The code a value carries: all of it, or what the first matching pattern captures as `code`. */
function codeOf(value: string, how: CodeIn): string | null {
  if (how === true) return value;
  for (const re of how) {
    const code = re.exec(value)?.groups?.code;
    if (code !== undefined && code.trim() !== '') return code;
  }
  return null;
}

/**
 * Shell code a program runs from its option values (`tar --to-command=CODE`, `zip -TT CODE`,
 * `vim -c '!CODE'`, `less +'!CODE'`, `gdb -ex 'shell CODE'`): each is walked like `sh -c CODE`.
 */
export function embeddedCode(name: string, args: readonly Arg[]): string[] {
  const spec = EMBEDDED_CODE[name];
  if (!spec) return [];
  const out: string[] = [];
  const push = (value: string, how: CodeIn): void => {
    const code = codeOf(value, how);
    if (code !== null) out.push(code);
  };
  if (spec.options) {
    const p = parseOptions(args, spec.spec ?? {});
    for (const [name, how] of Object.entries(spec.options)) for (const v of valuesOf(p, name)) push(plain(v.v), how);
  }
  if (spec.words || spec.plus) {
    for (let i = 0; i < args.length; i++) {
      const w = literal(args[i]!.v) ?? '';
      if (spec.stop?.includes(w)) break;
      const eq = w.startsWith('-') ? w.indexOf('=') : -1;
      const how = spec.words?.[eq > 0 ? w.slice(0, eq) : w];
      if (how && eq > 0) push(plain(args[i]!.v).slice(eq + 1), how);
      else if (how && args[i + 1]) push(plain(args[++i]!.v), how);
      else if (spec.plus && w.startsWith('+')) push(plain(args[i]!.v).slice(1), spec.plus);
    }
  }
  return out;
}

/** Shell code in the arguments of builtins and git: alias values, a trap's action, `git -c core.pager=…` / `alias.x=!…`. */
export function argumentCode(inv: Invocation): string[] {
  const rest = inv.args.map((a) => literal(a.v));
  if (inv.program === 'alias') {
    return inv.args.flatMap((a) => { const eq = a.v.indexOf('='); return eq > 0 ? [plain(a.v.slice(eq + 1))] : []; });
  }
  if (inv.program === 'trap' && inv.args[0] && !['-l', '-p', '-', ''].includes(rest[0] ?? '') && !/^\d+$/.test(rest[0] ?? '')) return [plain(inv.args[0].v)];
  if (inv.program === 'git') {
    return inv.args.flatMap((a, i) => {
      const kv = rest[i - 1] === '-c' ? literal(a.v) : null;
      const m = kv ? GIT_CODE_KEYS.exec(kv) : null;
      return m ? [m[2]!.replace(/^!/, '')] : [];
    });
  }
  return [];
}

/** The commands of a crontab: each line after its five time fields (or `@reboot`-style nickname); `%` ends the command. */
export function cronCommands(text: string): string[] {
  const out: string[] = [];
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#') || /^[A-Za-z_][A-Za-z0-9_]*\s*=/.test(line)) continue;
    const m = line.startsWith('@') ? /^@\S+\s+(.*)$/s.exec(line) : /^(?:\S+\s+){5}(.*)$/s.exec(line);
    if (!m) continue;
    // an unescaped % starts the job's stdin; \% is a literal %
    const cmd = m[1]!.replace(/(^|[^\\])%.*$/s, '$1').replace(/\\%/g, '%');
    if (cmd.trim() !== '') out.push(cmd);
  }
  return out;
}

/** What a scheduler (crontab, at) installs: its script's source (stdin or a file) and format; null when it installs nothing. */
export function scheduledSource(inv: Invocation): { readonly format: 'crontab' | 'script'; readonly from: 'stdin' | Arg } | null {
  const spec = SCHEDULERS[inv.program];
  if (!spec) return null;
  const p = parseOptions(inv.args, spec.spec);
  if (has(p, ...spec.except)) return null;
  const file = spec.file ? valuesOf(p, ...spec.file)[0] : spec.fileOperand ? p.operands[0] : undefined;
  return { format: spec.format, from: file && literal(file.v) !== '-' ? file : 'stdin' };
}
