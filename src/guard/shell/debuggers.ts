import type { FileReader } from './embedded-code.ts';
import type { Arg } from './model.ts';
import { showArg } from './shell-state.ts';
import { UNKNOWN, display, literal, plain } from './values.ts';

export type Debugger = 'gdb' | 'lldb';
/** The debuggers the rule reads commands of, by program name. */
export const DEBUGGERS: Readonly<Record<string, Debugger>> = { gdb: 'gdb', 'gdb-multiarch': 'gdb', 'rust-gdb': 'gdb', lldb: 'lldb', 'rust-lldb': 'lldb' };

/**
 * gdb's and lldb's command lines as the process-attach rule reads them: what they attach to (an option, a pid operand,
 * an `attach` command) and the debugger commands they run from options and from command files this line wrote.
 */
export interface DebuggerRun {
  /** What attaches to a running process (`-p 1234`, `attach 1`), or null. */
  readonly attach: string | null;
  /** Commands that dump the process's memory to a file or print its environment (`gcore`, `p environ[0]`). */
  readonly dumps: readonly string[];
}

/** How deep command files may source each other (`source x.gdb` in x.gdb). */
const MAX_FILE_DEPTH = 4;

/** One option of a debugger: what it means and whether it takes a value. */
interface DebuggerOption {
  readonly key: 'pid' | 'name' | 'core' | 'command' | 'file' | 'args' | 'exec' | 'other';
  readonly value: boolean;
}

/** Names to options, one object per option (so names that abbreviate one option are not ambiguous). */
const table = (rows: readonly [readonly string[], DebuggerOption['key'], boolean][]): ReadonlyMap<string, DebuggerOption> =>
  new Map(rows.flatMap(([names, key, value]) => { const o: DebuggerOption = { key, value }; return names.map((n): [string, DebuggerOption] => [n, o]); }));

/** gdb's options (main.c): getopt_long_only, so one dash or two, `=value`, and any prefix that is not ambiguous. */
const GDB_OPTIONS = table([
  [['pid', 'p'], 'pid', true], [['core', 'c'], 'core', true],
  [['ex', 'eval-command'], 'command', true], [['iex', 'init-eval-command'], 'command', true], [['eiex', 'early-init-eval-command'], 'command', true],
  [['x', 'command'], 'file', true], [['ix', 'init-command'], 'file', true], [['eix', 'early-init-command'], 'file', true],
  [['args'], 'args', false],
  // `-e PROG`, `-se PROG`: the program `run` starts (the first operand is `-se` too, and overrides them)
  [['annotate'], 'other', true], [['se'], 'exec', true], [['symbols', 's'], 'other', true], [['exec', 'e'], 'exec', true],
  [['ui', 'interpreter', 'i'], 'other', true], [['directory', 'd'], 'other', true], [['data-directory', 'D'], 'other', true],
  [['cd'], 'other', true], [['tty'], 'other', true], [['baud', 'b'], 'other', true], [['l'], 'other', true],
  [['tui'], 'other', false], [['dbx'], 'other', false], [['readnow', 'r'], 'other', false], [['readnever'], 'other', false],
  [['quiet', 'q', 'silent'], 'other', false], [['nh'], 'other', false], [['nx', 'n'], 'other', false], [['batch-silent'], 'other', false],
  [['batch'], 'other', false], [['fullname', 'f'], 'other', false], [['help'], 'other', false], [['version'], 'other', false],
  [['configuration'], 'other', false], [['nw', 'nowindows'], 'other', false], [['w', 'windows'], 'other', false],
  [['statistics'], 'other', false], [['write'], 'other', false], [['return-child-result'], 'other', false],
]);

/** lldb's options (LLVM OptTable, Options.td): exact words, a long name with one dash or two, a value in the next word. */
const long = (...names: string[]): string[] => names.flatMap((n) => [`--${n}`, `-${n}`]);
const LLDB_OPTIONS = table([
  [[...long('attach-pid'), '-p'], 'pid', true], [[...long('attach-name'), '-n'], 'name', true],
  [[...long('one-line', 'one-line-before-file', 'one-line-on-crash'), '-o', '-O', '-k'], 'command', true],
  [[...long('source', 'source-before-file', 'source-on-crash'), '-s', '-S', '-K'], 'file', true],
  [[...long('file'), '-f'], 'exec', true],
  [[...long('core', 'arch', 'script-language', 'repl-language'), '-c', '-a', '-l', '-R'], 'other', true],
  // flags, so that `-no-lldbinit` is not `-n o-lldbinit`
  [[...long('wait-for', 'python-path', 'print-script-interpreter-info', 'repl', 'no-lldbinit', 'local-lldbinit', 'batch', 'source-quietly', 'version',
    'help', 'editor', 'no-use-colors', 'debug'), '-w', '-P', '-r', '-x', '-b', '-Q', '-v', '-h', '-e', '-X', '-d'], 'other', false],
]);

/** gdb's option for a name as typed (without dashes): exact, else the one option every name it begins names. */
function gdbOption(name: string): DebuggerOption | null {
  const exact = GDB_OPTIONS.get(name);
  if (exact) return exact;
  const found = new Set([...GDB_OPTIONS].filter(([n]) => n.startsWith(name)).map(([, o]) => o));
  return name !== '' && found.size === 1 ? [...found][0]! : null;
}

/** An option word's parts: lldb takes its value in the next word; gdb also after `=`, and `-p1234` is read as an attach however spelled. */
function optionOf(which: Debugger, word: string): { option: DebuggerOption; attached: string | null } | null {
  if (which === 'lldb') {
    const exact = LLDB_OPTIONS.get(word);
    if (exact) return { option: exact, attached: null };
    // `-p1234`, `--attach-pid=1`: lldb refuses them, but they name the process all the same
    const m = /^(-p|-n|--?attach-(?:pid|name)=?)(.+)$/s.exec(word);
    return m ? { option: LLDB_OPTIONS.get(m[1]!.replace(/=$/, ''))!, attached: m[2]! } : null;
  }
  const body = word.replace(/^--?/, '');
  const eq = body.indexOf('=');
  const option = gdbOption(eq < 0 ? body : body.slice(0, eq));
  if (option) return { option, attached: eq < 0 ? null : body.slice(eq + 1) };
  // `-p1234`, `-p$PID`: no such gdb option, but plainly meant as one
  const rest = word.slice(2);
  return word.startsWith('-p') && (/^\d/.test(rest) || rest.startsWith(UNKNOWN)) ? { option: GDB_OPTIONS.get('p')!, attached: rest } : null;
}

/** gdb (`-p PID`, `--pid=PID`, `PROG PID`, `-ex 'attach PID'`) and lldb (`-p PID`, `-n NAME`, `-o 'process attach …'`): what they attach to and dump. */
export function debuggerRun(which: Debugger, args: readonly Arg[], read: FileReader, stdin: string | null = null): DebuggerRun {
  let attach: string | null = null;
  const commands: string[] = [];
  const files: Arg[] = [];
  const operands: Arg[] = [];
  let core = false;
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (a.v === '--') {
      // gdb: only operands follow; lldb: the arguments of the program it starts
      if (which === 'gdb') operands.push(...args.slice(i + 1));
      break;
    }
    const o = a.v.startsWith('-') && a.v !== '-' ? optionOf(which, a.v) : null;
    if (!o) {
      if (!a.v.startsWith('-') || a.v === '-') operands.push(a);
      continue;
    }
    if (o.option.key === 'args') break;
    const value = !o.option.value ? null : o.attached !== null ? { ...a, v: o.attached } : args[++i] ?? null;
    const shown = [a, ...(o.attached === null && value ? [value] : [])].map(show).join(' ');
    const key = o.option.key;
    if (key === 'core') core = true;
    // old gdb attached to `-c PID` when it began with a digit
    if (key === 'pid' || key === 'name' || (key === 'core' && value && /^\d/.test(value.v))) attach ??= shown;
    if (key === 'command' && value) commands.push(value.v);
    if (key === 'file' && value) files.push(value);
  }
  // `gdb PROG PID`: a second operand that begins with a digit is tried as a process id (one not known may be one)
  const second = which === 'gdb' && attach === null && !core ? operands[1] : undefined;
  if (second && (literal(second.v) === null || /^\d/.test(literal(second.v)!))) attach = `${show(operands[0]!)} ${show(second)}`;
  const patterns = which === 'gdb' ? GDB_COMMANDS : LLDB_COMMANDS;
  // commands piped in (`echo 'attach 1' | gdb`) are read as a command file's lines
  const piped = stdin === null ? [] : stdin.split('\n');
  const all = [...commands, ...files.flatMap((f) => fileCommands(f, read, patterns.source, 0)), ...piped];
  const attaching = all.find((c) => patterns.attach.test(plain(c)));
  attach ??= attaching === undefined ? null : display(attaching).trim();
  return { attach, dumps: all.filter((c) => patterns.dumps.some((re) => re.test(plain(c)))).map((c) => display(c).trim()) };
}

const show = (a: Arg): string => showArg(a.v);

/** gdb commands naming the program `run` starts: `file PROG`, `exec-file PROG`, `target exec PROG` (gdb_buildargv unquotes it). */
const GDB_PROGRAM_COMMAND = /^\s*(?:fil|file|exec-f\w*|tar\w*\s+exec)\s+(?:"(?<dq>[^"]*)"|'(?<sq>[^']*)'|(?<word>\S+))/s;

/**
 * The program gdb's `run ARGS` starts (`/bin/sh -c exec PROG ARGS`): the word after `--args`, else the first operand,
 * else `-e`/`--exec`/`-se` PROG; a `file PROG` command (`-ex`, `-iex`) may name another. When they name more than one,
 * which runs depends on their order: a program not known (so asked), not one picked at random.
 */
export function gdbProgram(args: readonly Arg[]): Arg | null {
  let line: Arg | null = null;
  const options: Arg[] = [];
  const commands: Arg[] = [];
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (a.v === '--' || (a.v.startsWith('-') && optionOf('gdb', a.v)?.option.key === 'args')) { line = args[i + 1] ?? line; break; }
    const o = a.v.startsWith('-') && a.v !== '-' ? optionOf('gdb', a.v) : null;
    const value = !o?.option.value ? null : o.attached !== null ? { ...a, v: o.attached } : args[++i] ?? null;
    if (o?.option.key === 'exec' && value) options.push(value);
    if (o?.option.key === 'command' && value) {
      const g = GDB_PROGRAM_COMMAND.exec(plain(value.v))?.groups;
      const named = g ? g.dq ?? g.sq ?? g.word : undefined;
      if (named !== undefined) commands.push({ ...value, v: named });
    }
    // getopt_long_only permutes: options may follow the operands, and only the first operand is the program
    if (!o && !a.v.startsWith('-')) line ??= a;
  }
  const found = [line ?? options[options.length - 1], ...commands].filter((a): a is Arg => a !== undefined && a !== null);
  const distinct = new Set(found.map((a) => a.v));
  if (distinct.size <= 1) return found[0] ?? null;
  return { v: UNKNOWN, info: { ...found[0]!.info, computed: true, raw: found.map(show).join(' or ') } };
}

/**
 * lldb's command line as its driver reads it (Driver.cpp): the target and its run arguments are `-f FILE`, then the
 * operands, then the words after `--` (`lldb PROG A B` = `lldb -f PROG -- A B`); `commands` are the `-o`/`-O`/`-k`
 * one-line commands, in order.
 */
export function lldbTarget(args: readonly Arg[]): { argv: Arg[]; commands: Arg[] } {
  let file: Arg | null = null;
  const operands: Arg[] = [];
  const commands: Arg[] = [];
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (a.v === '--') { operands.push(...args.slice(i + 1)); break; }
    const o = a.v.startsWith('-') && a.v !== '-' ? optionOf('lldb', a.v) : null;
    if (!o) { if (!a.v.startsWith('-') || a.v === '-') operands.push(a); continue; }
    const value = !o.option.value ? null : o.attached !== null ? { ...a, v: o.attached } : args[++i] ?? null;
    if (o.option.key === 'exec' && value) file = value;
    if (o.option.key === 'command' && value) commands.push(value);
  }
  return { argv: file ? [file, ...operands] : operands, commands };
}

/** The lines of a command file this line wrote, with the files they source in turn. */
function fileCommands(file: Arg, read: FileReader, source: RegExp, depth: number): string[] {
  const text = read(file);
  if (typeof text !== 'string' || depth >= MAX_FILE_DEPTH) return [];
  return text.split('\n').flatMap((line) => {
    const sourced = source.exec(plain(line))?.groups?.file;
    return sourced ? [line, ...fileCommands({ ...file, v: sourced.trim() }, read, source, depth + 1)] : [line];
  });
}

/** An expression that reads the environment: the `environ` array, or a getenv() call. */
const ENVIRONMENT = String.raw`.*(?:\b(?:__)?environ\b|\b(?:secure_)?getenv\s*\()`;

/** gdb commands: `attach` (and its prefixes), dumps (`gcore`, `generate-core-file`, `dump`/`append` memory or values), printing the environment. */
const GDB_COMMANDS = {
  attach: /^\s*at(?:t(?:a(?:c(?:h)?)?)?)?(?:\s|$)/,
  dumps: [
    /^\s*(?:gc(?:o(?:r(?:e)?)?)?|gen[\w-]*)(?:\s|$)/,
    /^\s*(?:du(?:mp?)?|app(?:e(?:n(?:d)?)?)?)\s/,
    new RegExp(String.raw`^\s*(?:p|pr|pri|prin|print|inspect|call|output|x|printf|dprintf|disp\w*|echo)(?:/\S*)?\s${ENVIRONMENT}`, 's'),
  ],
  source: /^\s*so(?:u(?:r(?:ce?)?)?)?\s+(?:-[sv]\s+)*(?<file>\S.*)$/s,
};

/** lldb commands: `process attach` (`attach`, `pro att`), `process save-core`, `memory read --outfile`, printing the environment. */
const LLDB_COMMANDS = {
  attach: /^\s*(?:(?:pla\w*\s+)?pro\w*\s+a\w*|(?:_regexp-)?at\w*)(?:\s|$)/,
  dumps: [
    /^\s*pro\w*\s+sa\w*/,
    /^\s*(?:me\w*\s+r\w*|x)\s(?:.*\s)?(?:-o|--outf\w*)/s,
    new RegExp(String.raw`^\s*(?:p|po|pri\w*|call|e|exp\w*|dwim-print|v|var|fr\w*\s+v\w*|ta\w*\s+v\w*|x|me\w*\s+r\w*)\s${ENVIRONMENT}`, 's'),
  ],
  source: /^\s*com\w*\s+so\w*\s+(?:-\w\s+\S+\s+)*(?<file>\S.*)$/s,
};
