import { has, parseOptions, valuesOf } from './flags.ts';
import type { Arg, Emit, Invocation } from './model.ts';
import { EMBEDDED_CODE, SCHEDULERS, type CodeIn } from './code-tables.ts';
import { codeOf, variableCode } from './code-values.ts';
import { envConfigCode, gitConfigCode } from './git-config.ts';
import { builtinSetterCode } from './variable-setters.ts';
import { TREE_COPIES } from './program-tables.ts';
import { gitGrep } from './checks/targets.ts';
import { UNKNOWN, literal, plain } from './values.ts';
import { WRAPPERS } from './wrapper-tables.ts';

/** Shell code in `NAME=VALUE` words: all of them (`export`), or those before the command (`env`, `sudo`); git config pairs among them. */
function assignmentCode(words: readonly Arg[], leading: boolean, emit: Emit, vars: ReadonlyMap<string, string>): string[] {
  const out: string[] = [];
  const assigned = new Map<string, string>();
  for (const a of words) {
    const m = /^([A-Za-z_][A-Za-z0-9_]*)=/.exec(a.v);
    if (!m && leading && a.v !== '-') break;
    if (m) assigned.set(m[1]!, a.v.slice(m[0].length));
    const code = m ? variableCode(m[1]!, a.v.slice(m[0].length)) : null;
    if (code !== null) out.push(code);
  }
  return [...out, ...envConfigCode(assigned, vars, emit)];
}

/**
 * Shell code a program runs from its option values (`tar --to-command=CODE`, `zip -TT CODE`, `vim -c '!CODE'`,
 * `less +'!CODE'`, `gdb -ex 'shell CODE'`) or its variables (`env LESSOPEN='|CODE'`): each is walked like
 * `sh -c CODE`. Another interpreter's code there (`gdb -ex 'python …'`) is flagged as inline code, and so is a C call
 * that runs a command in the debugged process (`gdb -ex 'call system("CODE")'`), whose string is walked as well.
 */
export function embeddedCode(name: string, args: readonly Arg[], emit: Emit, vars: ReadonlyMap<string, string>): string[] {
  const wrapper = WRAPPERS[name];
  const out = wrapper?.assignments ? assignmentCode(parseOptions(args, wrapper).operands, true, emit, vars) : [];
  const spec = EMBEDDED_CODE[name];
  if (!spec) return out;
  const push = (value: string, how: CodeIn): void => {
    const code = codeOf(value, how);
    if (code?.shell !== undefined) out.push(code.shell);
    if (code?.inline !== undefined) emit('shell.interpreter.inline', `${name}: ${code.inline}`);
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

/** Builtins that set variables from `NAME=VALUE` arguments. */
const DECLARERS = new Set(['export', 'declare', 'typeset', 'local', 'readonly']);

/**
 * Shell code in the arguments of builtins and git: alias values, a trap's action, `export LESSOPEN=…`, `printf -v` /
 * `read` / `mapfile` into a code variable, `git -c core.pager=…` / `alias.x=!…`, `git config KEY VALUE`.
 */
export function argumentCode(inv: Invocation, emit: Emit, vars: ReadonlyMap<string, string>): string[] {
  const rest = inv.args.map((a) => literal(a.v));
  const set = builtinSetterCode(inv, emit);
  if (DECLARERS.has(inv.program)) return [...set, ...assignmentCode(inv.args, false, emit, vars)];
  if (inv.program === 'alias') {
    return inv.args.flatMap((a) => { const eq = a.v.indexOf('='); return eq > 0 ? [plain(a.v.slice(eq + 1))] : []; });
  }
  if (inv.program === 'trap' && inv.args[0] && !['-l', '-p', '-', ''].includes(rest[0] ?? '') && !/^\d+$/.test(rest[0] ?? '')) return [plain(inv.args[0].v)];
  if (inv.program === 'git') return [...gitGrepPagers(inv), ...gitConfigCode(inv, emit, vars)];
  return set;
}

/** `git grep -O<CMD>` / `--open-files-in-pager=CMD`: git runs CMD through a shell with the matching files. */
export function gitGrepPagers(inv: Invocation): string[] {
  const grep = gitGrep(inv);
  return grep ? valuesOf(parseOptions(grep.args, TREE_COPIES['git grep']!.spec), 'O', 'open-files-in-pager').map((v) => plain(v.v)) : [];
}

/** `rg --pre CMD`: the program rg runs on each file it searches (not through a shell); `--no-pre` or an empty value turns it off. */
export function preprocessor(inv: Invocation): Arg | null {
  if (inv.program !== 'rg') return null;
  const last = parseOptions(inv.args, TREE_COPIES.rg!.spec).opts.filter((o) => o.name === 'pre' || o.name === 'no-pre').pop();
  return last?.name === 'pre' && last.value && literal(last.value.v) !== '' ? last.value : null;
}

/** Commands run once per file found, with the file as an argument: `find … -exec CMD {} ;` and `rg --pre CMD`. */
export function perFileCommands(inv: Invocation): Arg[][] {
  const pre = preprocessor(inv);
  if (pre) return [[pre, { v: UNKNOWN, info: { ...pre.info, computed: false, inner: [], raw: '{}' } }]];
  if (inv.program !== 'find') return [];
  const words = inv.args.map((a) => literal(a.v));
  const out: Arg[][] = [];
  for (let i = 0; i < inv.args.length; i++) {
    if (!['-exec', '-execdir', '-ok', '-okdir'].includes(words[i] ?? '')) continue;
    let j = i + 1;
    while (j < inv.args.length && words[j] !== ';' && words[j] !== '+') j++;
    const sub = inv.args.slice(i + 1, j).map((a): Arg => (literal(a.v) === '{}' ? { v: UNKNOWN, info: a.info } : a));
    if (sub.length > 0) out.push(sub);
    i = j;
  }
  return out;
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
