import { has, parseOptions, valuesOf } from './flags.ts';
import type { Arg, Emit, Invocation } from './model.ts';
import { EMBEDDED_CODE, NOWHERE, SCHEDULERS, type CodeIn } from './code-tables.ts';
import { codeOf, variableCode } from './code-values.ts';
import { envConfigCode, gitConfigCode, homeSettings } from './git-config.ts';
import { DECLARERS, resolveName } from './shell-state.ts';
import { builtinSetterCode } from './variable-setters.ts';
import { gitCommand } from './git-command.ts';
import { TREE_COPIES } from './program-tables.ts';
import { gitGrep } from './checks/targets.ts';
import { DOWNLOADED } from './written-files.ts';
import { UNKNOWN, display, isKnown, literal, plain } from './values.ts';
import { isFdPath } from './walk-support.ts';
import { settingsCode } from './settings-files.ts';
import { INPUT_OPTIONS, checkInputRunner } from './input-runners.ts';
import { sqlShellCode } from './sql-shell.ts';
import { sedCode } from './sed-script.ts';
import { builtinCode } from './builtin-code.ts';
import { quoteArg } from './unwrap.ts';
import { WRAPPERS } from './wrapper-tables.ts';
import { fdCommands } from './listers.ts';
import { ugrepFilterCommands } from './ugrep.ts';
import { vimOptionCode } from './vim-options.ts';
import { shellVariableCode } from './shell-variable.ts';
import { fzfCommands } from './fzf.ts';

/**
 * Shell code in `NAME=VALUE` words: all of them (`export`, through a name reference), or those before the command
 * (`env`, `sudo`), which is then the rest; git config pairs and git's files among them.
 */
function assignmentCode(words: readonly Arg[], leading: boolean, emit: Emit, vars: ReadonlyMap<string, string>): string[] {
  const out: string[] = [];
  const assigned = new Map<string, string>();
  let i = 0;
  for (; i < words.length; i++) {
    const a = words[i]!;
    const m = /^([A-Za-z_][A-Za-z0-9_]*)=/.exec(a.v);
    if (!m && leading && a.v !== '-') break;
    if (!m) continue;
    // `env` sets the environment of a new program: no shell variable, no name reference
    const name = leading ? m[1]! : resolveName(vars, m[1]!);
    assigned.set(name, a.v.slice(m[0].length));
    const code = variableCode(name, a.v.slice(m[0].length));
    if (code !== null) out.push(code);
  }
  return [...out, ...envConfigCode(assigned, vars, emit)];
}

/** What a file named in an argument holds when this command line wrote it (or a process substitution prints it); undefined when unknown. */
export type FileReader = (file: Arg) => string | typeof DOWNLOADED | undefined;

/** How deep command files may source each other (`source x.gdb` in x.gdb). */
const MAX_FILE_DEPTH = 4;

/** `git [-C DIR] SUB ARGS…` as the program `git SUB` with ARGS (aliases followed), for EMBEDDED_CODE's `git …` entries. */
function gitSubcommand(args: readonly Arg[]): { name: string; args: readonly Arg[] } | null {
  const ops = gitCommand(args).words;
  const sub = literal(ops[0]?.v ?? '');
  return sub === null ? null : { name: `git ${sub}`, args: ops.slice(1) };
}

/**
 * Shell code a program runs from its option values (`tar --to-command=CODE`, `zip -TT CODE`, `vim -c '!CODE'`,
 * `less +'!CODE'`, `gdb -ex 'shell CODE'`, `git clone --upload-pack=CODE`) or its variables (`env LESSOPEN='|CODE'`):
 * each is walked like `sh -c CODE`. Another interpreter's code there (`gdb -ex 'python …'`) is flagged as inline code,
 * and so is a C call that runs a command in the debugged process (`gdb -ex 'call system("CODE")'`), whose string is
 * walked as well. A command file (`gdb -x FILE`, `source FILE`) is read line by line when this line wrote it, and static stdin (`echo 'shell CMD' | gdb`) too.
 */
export function embeddedCode(
  name: string, args: readonly Arg[], emit: Emit, vars: ReadonlyMap<string, string>, read: FileReader = () => undefined, stdin: string | null = null, stdinFile: Arg | null = null,
): string[] {
  if (name !== 'git') homeSettings(name, () => [name, ...args.map((a) => display(a.v))].join(' ').slice(0, 120), vars, emit);
  const wrapper = WRAPPERS[name];
  const out = wrapper?.assignments ? assignmentCode(parseOptions(args, wrapper).operands, true, emit, vars) : [];
  const git = name === 'git' ? gitSubcommand(args) : null;
  const spec = EMBEDDED_CODE[git?.name ?? name];
  // `SHELL=/tmp/x sudo -s`: a shell the program starts (see shell-variable.ts)
  if (!spec) {
    // fzf's --preview and --bind commands run with $SHELL
    const found = name === 'fzf' ? fzfCommands(args).commands : [];
    return [...out, ...found, ...shellVariableCode(name, args, vars, found, emit)];
  }
  const words = git?.args ?? args;
  // a command file is read when this line wrote it or a substitution prints it; else it is like `bash script.sh`
  const file = (f: Arg, how: CodeIn, depth: number): void => {
    if (NOWHERE.includes(literal(f.v) ?? '')) return;
    const text = read(f);
    if (text === DOWNLOADED) emit('shell.download.exec', `${name} runs the commands in downloaded ${display(f.v)}`);
    else if (text !== undefined && depth >= MAX_FILE_DEPTH) emit('shell.input.too_complex', `${name}: command files sourcing ${display(f.v)}`);
    else if (text !== undefined) for (const line of text.split('\n')) push(line, how, depth + 1);
    else if (isFdPath(f.v)) emit('shell.interpreter.unseen_script', `${name} runs the commands a process substitution prints`);
  };
  const program = spec.program?.(words) ?? null;
  // vim: every Ex command, and the shell commands among them, for the options that change what runs them
  const ex: string[] = spec.vimOptions ? ['VIMINIT', 'EXINIT'].flatMap((v) => (vars.has(v) ? [plain(vars.get(v)!)] : [])) : [];
  const shellCommands: string[] = [];
  const push = (value: string, how: CodeIn, depth = 0): void => {
    const code = codeOf(value, how, program === null ? null : plain(program.v));
    if (spec.vimOptions) ex.push(value);
    if (code?.shell !== undefined) { out.push(code.shell); shellCommands.push(code.shell); }
    if (code?.inline !== undefined) emit('shell.interpreter.inline', `${name}: ${code.inline}`);
    if (code?.file !== undefined) file({ v: code.file, info: { computed: false, ansi: false, quoted: true, inner: [], raw: code.file } }, how, depth);
    if (code?.setting !== undefined && !NOWHERE.includes(code.setting)) setting(code.setting);
  };
  // a settings file this line wrote is read (tmux's commands, lesskey's #env); others are unseen
  const setting = (f: string): void => {
    const text = spec.reads ? read({ v: f, info: { computed: false, ansi: false, quoted: true, inner: [], raw: f } }) : undefined;
    const found = typeof text === 'string' ? settingsCode(spec.reads!, text, read) : null;
    out.push(...(found?.codes ?? []));
    if (text === DOWNLOADED) emit('shell.download.exec', `${name} reads the settings in downloaded ${display(f)}`);
    else if (!found || found.unseen.length > 0) emit('shell.code.unseen_setting', `${name}: settings in ${display(f)} may run commands the guard does not see${found ? ` (${found.unseen.slice(0, 3).join('; ')})` : ''}`);
  };
  if (spec.options) {
    const p = parseOptions(words, spec.spec ?? {});
    for (const [opt, how] of Object.entries(spec.options)) {
      for (const v of valuesOf(p, opt)) {
        // `man -P sh`, `tar --to-command=bash`: a shell as pager or filter runs what it is given
        if (INPUT_OPTIONS[name]?.includes(opt)) checkInputRunner(`${name} --${opt} ${display(v.v)}`, plain(v.v), emit);
        push(plain(v.v), how);
      }
    }
  }
  if (spec.words || spec.plus || spec.files) {
    for (let i = 0; i < words.length; i++) {
      const w = literal(words[i]!.v) ?? '';
      if (spec.stop?.includes(w)) break;
      const eq = w.startsWith('-') ? w.indexOf('=') : -1;
      const opt = eq > 0 ? w.slice(0, eq) : w;
      const how = spec.words?.[opt] ?? spec.files?.[opt];
      const value = !how ? null : eq > 0 ? { ...words[i]!, v: words[i]!.v.slice(eq + 1) } : words[i + 1] ? words[++i]! : null;
      if (how && value && spec.files?.[opt]) file(value, how, 0);
      else if (how && value) push(plain(value.v), how);
      else if (spec.plus && w.startsWith('+')) push(plain(words[i]!.v).slice(1), spec.plus);
    }
  }
  // a debugger reads commands from a pipe or heredoc as from a command file; from a redirected file (`vim -es < x`) as
  // `sh < x` reads its script: read when this line wrote it or a substitution prints it, flagged when not known
  if (spec.stdin && stdin !== null) for (const line of stdin.split('\n')) push(line, spec.stdin);
  else if (spec.stdin && stdinFile) {
    if (!isKnown(stdinFile.v) && !isFdPath(stdinFile.v)) emit('shell.interpreter.unseen_script', `${name} reads commands on stdin from ${display(stdinFile.v)}`);
    else file(stdinFile, spec.stdin, 0);
  }
  if (spec.vimOptions) out.push(...vimOptionCode(name, ex, shellCommands, vars, emit));
  if (spec.anyWord) for (const w of words) push(plain(w.v).replace(/^--?[A-Za-z0-9-]+=/, ''), spec.anyWord);
  const at = spec.restAfter ? words.findIndex((w) => spec.restAfter!.includes(literal(w.v) ?? '')) : -1;
  if (at >= 0) {
    const p = parseOptions(words.slice(at + 1), { posix: true });
    const [first, ...rest] = p.operands;
    if (first) out.push([plain(first.v), ...rest.map(quoteArg)].join(' '));
  }
  // less's and gdb's shell commands run with $SHELL
  return [...out, ...shellVariableCode(name, words, vars, shellCommands, emit)];
}

/**
 * Shell code in the arguments of builtins and git: alias values, a trap's action, `export LESSOPEN=…`, `printf -v` /
 * `read` / `mapfile` into a code variable, `git -c core.pager=…` / `alias.x=!…`, `git config KEY VALUE`.
 */
export function argumentCode(inv: Invocation, emit: Emit, vars: ReadonlyMap<string, string>, read: FileReader = () => undefined): string[] {
  const rest = inv.args.map((a) => literal(a.v));
  const set = builtinSetterCode(inv, emit, vars);
  if (DECLARERS.has(inv.program)) return [...set, ...assignmentCode(inv.args, false, emit, vars), ...builtinCode(inv, emit)];
  if (inv.program === 'alias') {
    return inv.args.flatMap((a) => { const eq = a.v.indexOf('='); return eq > 0 ? [plain(a.v.slice(eq + 1))] : []; });
  }
  if (inv.program === 'trap' && inv.args[0] && !['-l', '-p', '-', ''].includes(rest[0] ?? '') && !/^\d+$/.test(rest[0] ?? '')) return [plain(inv.args[0].v)];
  if (inv.program === 'git') return [...gitGrepPagers(inv), ...gitConfigCode(inv, emit, vars)];
  // a database client's shell escapes (`psql -c '\! CMD'`, sqlite3's `.system CMD`)
  // sed's `e` runs commands, `r` and `w` read and write files
  return [...set, ...sqlShellCode(inv), ...sedCode(inv, emit, read), ...builtinCode(inv, emit)];
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

/** Commands run once per file found, with the file as an argument: `find … -exec CMD {} ;`, `fd -x CMD`, `rg --pre CMD`, `ugrep --filter=…`. */
export function perFileCommands(inv: Invocation): Arg[][] {
  const pre = preprocessor(inv);
  if (pre) return [[pre, { v: UNKNOWN, info: { ...pre.info, computed: false, inner: [], raw: '{}' } }]];
  if (inv.program !== 'find') return [...fdCommands(inv), ...ugrepFilterCommands(inv)];
  const words = inv.args.map((a) => literal(a.v));
  const out: Arg[][] = [];
  for (let i = 0; i < inv.args.length; i++) {
    if (!['-exec', '-execdir', '-ok', '-okdir'].includes(words[i] ?? '')) continue;
    let j = i + 1;
    while (j < inv.args.length && words[j] !== ';' && words[j] !== '+') j++;
    // GNU find puts the name in place of `{}` inside a word too (`sh -c 'cat {}'`, `{}.bak`)
    const sub = inv.args.slice(i + 1, j).map((a): Arg => (literal(a.v) === '{}' ? { v: UNKNOWN, info: a.info } : a.v.includes('{}') ? { v: a.v.split('{}').join(UNKNOWN), info: { ...a.info, computed: true } } : a));
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
