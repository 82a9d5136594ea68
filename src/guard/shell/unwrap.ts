import { has, parseOptions, valueOf, valuesOf, type ParsedOptions } from './flags.ts';
import type { Arg } from './model.ts';
import { CONTAINER_EXEC, CONTAINER_GLOBALS, DETACHERS, WRAPPERS, type SubcommandSpec, type WrapperSpec } from './wrapper-tables.ts';
import { UNKNOWN, literal, plain } from './values.ts';
import { codeText } from './code-text.ts';
import { suUnwrap } from './su-family.ts';
import { profiledRun } from './profilers.ts';
import { kittyRemote } from './kitty-remote.ts';
import { NOWHERE } from './code-tables.ts';
import { formatJobs, runsShell, tmuxCommandLines, tmuxLine } from './tmux-commands.ts';
import type { FileReader } from './embedded-code.ts';
import { screenStuff, tmuxKeys } from './typed-keys.ts';
import { environmentShell, optionShell } from './tmux-options.ts';
import { bufferUse } from './tmux-buffers.ts';
import { nixRun, runnerArgs } from './runner-tables.ts';

/** A wrapper taken off a command line. */
export interface Unwrapped {
  /** The wrapped command line; empty when the wrapper runs nothing (or only code). */
  readonly rest: readonly Arg[];
  /** Shell code the wrapper runs (`su -c`, `env -S`, `watch`, `ssh host …`). */
  readonly code: string | null;
  readonly chdir: Arg | null;
  readonly appendsArgs: boolean;
  readonly remote: boolean;
  /**
   * The wrapped command line read as if an option the wrapper's table does not know (a long one, or a lone `-Z`) took
   * the next word as its value (each such option alone, then all of them); judged too. A table misses options of other versions
   * (`sudo --auth-type x rm -rf /` was allowed), and a wrong guess starts mid-arguments (`sudo --login ls -la`
   * as `-la`), which judges nothing.
   */
  readonly alternates?: readonly (readonly Arg[])[];
  /** Settings read from a file the guard cannot see that may change what runs (`uftrace --opt-file FILE`). */
  readonly unseen?: string;
  /** Shell code for what it does without starting anything (tmux `load-buffer FILE` as `cat -- FILE`): judged, no detach. */
  readonly effects?: readonly string[];
}

const SAFE_WORD = /^[^\s;&|<>()$`"'\\{}]*$/;
const ASSIGNMENT = /^[A-Za-z_][A-Za-z0-9_]*=/;

/** An argument as shell text that re-parses to the same word (globs stay live). */
export function quoteArg(a: Arg): string {
  const p = plain(a.v);
  if (SAFE_WORD.test(p.replace(/\$HOME|\$__unknown/g, ''))) return p;
  return '"' + a.v.replace(/["\\$`]/g, '\\$&').replace(/[\u0000\uE000-\uE005\uE010]/g, (c) => plain(c)) + '"';
}

/** Program name as the rules see it: basename, lower case, no `.exe`; null when not known. */
export function programName(v: string): string | null {
  const lit = literal(v);
  if (lit === null) return null;
  const base = lit.slice(lit.lastIndexOf('/') + 1).toLowerCase();
  return base.endsWith('.exe') ? base.slice(0, -4) : base;
}

/** `docker exec CTR CMD…`, `kubectl exec POD -- CMD…`: the command runs in a container, still a command. */
function containerExec(name: string, args: readonly Arg[]): readonly Arg[] | null {
  if (name === 'docker' || name === 'podman' || name === 'nerdctl') {
    // global options may come first (`docker -H HOST exec`, `podman --root DIR container exec`)
    const ops = parseOptions(args, CONTAINER_GLOBALS).operands;
    const at = literal(ops[0]?.v ?? '') === 'exec' ? 1 : literal(ops[0]?.v ?? '') === 'container' && literal(ops[1]?.v ?? '') === 'exec' ? 2 : 0;
    if (at === 0) return null;
    const p = parseOptions(ops.slice(at), CONTAINER_EXEC);
    return p.operands.slice(name === 'podman' && has(p, 'l', 'latest') ? 0 : 1);
  }
  if (literal(args[0]?.v ?? '') !== 'exec') return null;
  if (name === 'kubectl' || name === 'oc') {
    const dash = args.findIndex((a) => a.v === '--');
    return dash < 0 ? [] : args.slice(dash + 1);
  }
  return null;
}

/** Takes one wrapper (`sudo -u x`, `env -i A=b`, `timeout 5`, …) off `args`; null when `name` is not one. */
export function unwrapOnce(name: string, args: readonly Arg[], read?: FileReader): Unwrapped | null {
  const inContainer = containerExec(name, args);
  if (inContainer) return { rest: inContainer, code: null, chdir: null, appendsArgs: false, remote: false };
  // su, runuser, machinectl shell: see su-family.ts
  const su = suUnwrap(name, args);
  if (su) return { ...su, chdir: null, appendsArgs: false, remote: false };
  // perf record, rr, gdbserver, hyperfine, …: see profilers.ts; `kitty @ launch CMD…`: kitty-remote.ts
  const profiled = profiledRun(name, args) ?? kittyRemote(name, args);
  if (profiled) return { ...profiled, chdir: null, appendsArgs: false, remote: false };
  // `npm exec CMD`, `poetry run CMD`, `nix develop -c CMD`: the verb taken off, read as a wrapper (runner-tables.ts)
  const nix = nixRun(name, args);
  if (nix) return { rest: nix, code: null, chdir: null, appendsArgs: false, remote: false };
  const runner = runnerArgs(name, args);
  if (runner) args = runner.args;
  const spec = runner?.spec ?? WRAPPERS[name];
  if (!spec) return null;
  const base = { code: null, chdir: null, appendsArgs: spec.appendsArgs ?? false, remote: spec.remote ?? false };
  if (name === 'busybox' || name === 'toybox') {
    return { ...base, rest: args[0] && !args[0].v.startsWith('-') ? args : [] };
  }
  if (spec.commandAfter) return commandAfter(args, spec, base);
  const parsed = parseOptions(args, spec);
  const u = unwrapBySpec(name, args, spec, base, parsed, read);
  let unknown = unknownOptions(parsed, spec, []);
  if (unknown.length === 0 || u.remote) return u;
  // one read as a flag hides the options after its value (`-Z x -Y y CMD`): found again with those known taking one
  for (let more = unknown; more.length > 0 && unknown.length < MAX_UNKNOWN_OPTIONS; unknown = [...unknown, ...more]) {
    more = unknownOptions(parseOptions(args, taking(spec, unknown)), spec, unknown);
  }
  unknown = unknown.slice(0, MAX_UNKNOWN_OPTIONS);
  const readings = [...unknown.map((o) => [o]), ...(unknown.length > 1 ? [unknown] : [])];
  const alternates: (readonly Arg[])[] = [];
  for (const names of readings) {
    const other = unwrapBySpec(name, args, taking(spec, names), base, undefined, read).rest;
    const seen = [u.rest, ...alternates].some((r) => r.length === other.length && r.every((a, i) => a === other[i]));
    // a reading that starts at an option word took a flag for an option with a value: it names no program
    if (!seen && other.length > 0 && !(literal(other[0]!.v) ?? '').startsWith('-')) alternates.push(other);
  }
  return alternates.length > 0 ? { ...u, alternates } : u;
}

/** Past this many unknown options on one wrapper, the rest are read as flags only: each reading is a walk. */
const MAX_UNKNOWN_OPTIONS = 4;

/** Letters a wrapper's table knows: with a value, as flags, or named by one of its lists (`command -v`, `su -c`). */
function knownShort(spec: WrapperSpec, c: string): boolean {
  const lists = [spec.noCommand, spec.noCommandBare, spec.code, spec.chdir, spec.split, spec.subcommandsWith ? [spec.subcommandsWith] : undefined];
  return [spec.short, spec.attached, spec.shortFlags, spec.nextWord, spec.optionalWord].some((l) => l?.includes(c)) ||
    lists.some((l) => l?.includes(c)) || Object.hasOwn(spec.alias ?? {}, c) || (spec.digits === true && /\d/.test(c));
}

/**
 * Options the table does not know that took no value: long names (`--auth-type`), and lone short words (`-Z`; a
 * letter in a cluster is left alone, every split of a cluster would be a reading), up to MAX_UNKNOWN_OPTIONS.
 */
function unknownOptions(p: ParsedOptions, spec: WrapperSpec, found: readonly string[]): string[] {
  const out = new Set<string>();
  for (const o of p.opts) {
    if (o.value !== null) continue;
    const w = literal(o.arg.v) ?? '';
    if (o.partial) out.add(o.name);
    else if (/^-[^-]$/.test(w) && !knownShort(spec, w[1]!)) out.add(w);
  }
  return [...out].filter((o) => !found.includes(o)).slice(0, MAX_UNKNOWN_OPTIONS - found.length);
}

/** The table with these unknown options taking a value: a short one written `-Z`, a long one by its name. */
const taking = (spec: WrapperSpec, names: readonly string[]): WrapperSpec => ({
  ...spec,
  long: [...(spec.long ?? []), ...names.filter((o) => !o.startsWith('-'))],
  short: (spec.short ?? '') + names.filter((o) => o.startsWith('-')).map((o) => o.slice(1)).join(''),
});

/** unwrapOnce for a wrapper read by its option table. */
function unwrapBySpec(name: string, args: readonly Arg[], spec: WrapperSpec, base: Omit<Unwrapped, 'rest'>, p: ParsedOptions = parseOptions(args, spec), read?: FileReader): Unwrapped {
  let ops = [...p.operands];
  if (spec.inputs) {
    const run = parallelRuns(ops, has(p, 'a', 'arg-file'), has(p, 'pipe', 'pipepart'));
    return { ...base, rest: [], code: run.codes.length > 0 ? run.codes.join('; ') : null, appendsArgs: run.appends };
  }
  if (name === 'env' && ops[0]?.v === '-') ops.shift();
  // sudo reads `-h X=1` as help with X=1 set, then refuses the command after it; read as the host (as sudo reads other
  // words there), X=1 would hide CMD and its environment: the command is judged, with X=1 set (wrapperVars)
  const setsFirst = spec.assignments === true && ASSIGNMENT.test(ops[0]?.v ?? '');
  if (spec.assignments) while (ops[0] && ASSIGNMENT.test(ops[0].v)) ops.shift();
  const chdir = spec.chdir ? valueOf(p, ...spec.chdir) : null;
  const codes: string[] = [];
  const codeOpt = spec.code ? valueOf(p, ...spec.code) : null;
  if (codeOpt) codes.push(codeText(codeOpt.v));
  const split = spec.split ? valueOf(p, ...spec.split) : null;
  if (split) {
    codes.push([plain(split.v), ...ops.map(quoteArg)].join(' '));
    ops = [];
  }
  // before noCommand: `screen -X stuff TEXT` runs no command of its own, but types one
  const unseen: string[] = [];
  const effects: string[] = [];
  if (spec.subcommands && (!spec.subcommandsWith || has(p, spec.subcommandsWith))) {
    const sub = subcommandCode(ops, spec.subcommands, !spec.subcommandsWith, spec.subcommandNames, 0, read);
    codes.push(...sub.codes);
    unseen.push(...sub.unseen);
    effects.push(...sub.effects);
  }
  if (spec.noCommand && has(p, ...spec.noCommand)) ops = [];
  if (spec.noCommandBare && !setsFirst && p.opts.some((o) => o.value === null && spec.noCommandBare!.includes(o.name))) ops = [];
  if (spec.code && codes.length === 0 && ops.length > (spec.positional ?? 0)) {
    // `flock FILE -c CODE`, `sg GROUP -c CODE`: the option may follow the positional operand
    const after = ops.slice(spec.positional ?? 0);
    const flag = after[0] ? literal(after[0].v) : null;
    if (flag && spec.code.some((c) => flag === (c.length === 1 ? `-${c}` : `--${c}`)) && after[1]) {
      codes.push(codeText(after[1].v));
      ops = [];
    }
  }
  if (spec.codeOnly) ops = [];
  ops = ops.slice(spec.positional ?? 0);
  // `aws-vault exec PROFILE -- CMD`: the end of options may follow the positional operands
  if (spec.positional && literal(ops[0]?.v ?? '') === '--') ops = ops.slice(1);
  if (spec.restIsCode && ops.length > 0) {
    codes.push(ops.map((a) => plain(a.v)).join(' '));
    ops = [];
  }
  const out = { ...base, rest: ops, code: codes.length > 0 ? codes.join('; ') : null, chdir, ...(effects.length > 0 ? { effects } : {}) };
  return unseen.length > 0 ? { ...out, unseen: `${name}: ${unseen.join(', ')} (commands the guard cannot see)` } : out;
}

const word = (v: string): Arg => ({ v, info: { computed: false, ansi: false, quoted: false, inner: [], raw: v } });
const hasBlank = (a: Arg | undefined): boolean => a !== undefined && /\s/.test(plain(a.v).trim());

/** `xterm -e CMD…`, `gdb --args CMD…`, `capsh -- -c CODE`: the command follows a marker word; one word with blanks is code. */
function commandAfter(args: readonly Arg[], spec: WrapperSpec, base: Omit<Unwrapped, 'rest'>): Unwrapped {
  const at = args.findIndex((a) => spec.commandAfter!.includes(literal(a.v) ?? ''));
  const rest = at < 0 ? [] : args.slice(at + 1);
  if (spec.shellOf) return { ...base, rest: rest.length > 0 ? [word(spec.shellOf), ...rest] : [] };
  if (rest.length === 1 && hasBlank(rest[0])) return { ...base, rest: [], code: plain(rest[0]!.v) };
  return { ...base, rest };
}

const MAX_INPUTS = 16;
const INPUT_SEPARATOR = /^::::?\+?$/;
/** GNU parallel's replacement strings: `{}`, `{.}`, `{/}`, `{//}`, `{/.}`, `{#}`, `{%}`, `{1}`, … */
const REPLACEMENT = /\{\d*(?:\.|\/\.?|\/\/|#|%)?\}/g;

/**
 * `parallel CMD ::: A B`: CMD run by a shell once per input (in `{}` or appended); inputs alone are commands. Inputs
 * read at run time (stdin, `:::: FILE`, `-a FILE`) are unknown: `$__unknown` in the code, which the walk marks as
 * holding the names a lister prints (`find ~ | parallel cat`).
 */
function parallelRuns(ops: readonly Arg[], fromFile: boolean, pipe: boolean): { codes: string[]; appends: boolean } {
  const at = ops.findIndex((a) => INPUT_SEPARATOR.test(literal(a.v) ?? ''));
  const command = (at < 0 ? ops : ops.slice(0, at)).map((a) => plain(a.v)).join(' ');
  // --pipe, --pipepart: the command reads parallel's input in blocks on its stdin (`… | parallel --pipe sh` runs it)
  if (pipe && command !== '') return { codes: [codeText(command.replace(REPLACEMENT, UNKNOWN))], appends: false };
  const files = fromFile || ops.slice(Math.max(at, 0)).some((a) => (literal(a.v) ?? '').startsWith('::::'));
  if (at < 0 || files) {
    const filled = command.replace(REPLACEMENT, UNKNOWN);
    return { codes: command === '' ? [] : [codeText(filled !== command ? filled : `${command} ${UNKNOWN}`)], appends: true };
  }
  const items = ops.slice(at + 1).filter((a) => !INPUT_SEPARATOR.test(literal(a.v) ?? '')).slice(0, MAX_INPUTS);
  if (command === '') return { codes: items.map((a) => plain(a.v)), appends: false };
  const codes = items.map((item) => {
    const q = quoteArg(item);
    const filled = command.replace(REPLACEMENT, () => q);
    return filled !== command ? filled : `${command} ${q}`;
  });
  return { codes: codes.length > 0 ? codes : [command], appends: false };
}

/** The shell code a sub-command's operands are: text typed (`send-keys`, `stuff`), a command and its arguments, or code. */
function shellOperands(p: ParsedOptions, sub: SubcommandSpec, words: readonly Arg[]): string | null {
  if (sub.option) return optionShell(p);
  if (sub.environment) return environmentShell(p);
  if (sub.keys) {
    const typed = sub.keys === 'tmux' ? tmuxKeys(p) : screenStuff(words);
    return typed.trim() !== '' ? typed : null;
  }
  // `new-window -e LESSOPEN=… CMD`: CMD runs with those variables
  const env = sub.envWith ? valuesOf(p, sub.envWith).map((a) => `export ${quoteArg(a)}; `).join('') : '';
  if (sub.argv) {
    const argv = sub.skip?.test(literal(p.operands[0]?.v ?? '') ?? '') ? p.operands.slice(1) : p.operands;
    return argv.length > 0 ? env + argv.map(quoteArg).join(' ') : null;
  }
  const code = sub.first ? p.operands.slice(0, 1) : p.operands;
  return code.length > 0 ? env + code.map((a) => plain(a.v)).join(' ') : null;
}

/** How deep tmux commands may hold tmux commands (`if-shell true 'if-shell true …'`) before the rest counts as unseen. */
const MAX_NESTED_COMMANDS = 8;

/**
 * Code run by sub-commands (`new -d CODE`, `run-shell CODE`, `send-keys TEXT Enter`, `stuff TEXT`), chained with `;` when
 * `split`, and by the tmux commands they hold (`if-shell true 'run-shell CODE'`) or a file this line wrote holds
 * (`source-file FILE`); `unseen`: other files of commands and strings computed at run time.
 */
function subcommandCode(ops: readonly Arg[], table: Readonly<Record<string, SubcommandSpec>>, split: boolean, names?: readonly string[], depth = 0, read?: FileReader): { codes: string[]; unseen: string[]; effects: string[] } {
  const codes: string[] = [];
  const unseen: string[] = [];
  const effects: string[] = [];
  let seg: Arg[] = [];
  const flush = (): void => {
    const key = resolveSubcommand(literal(seg[0]?.v ?? '') ?? '', table, names);
    const sub = Object.hasOwn(table, key) ? table[key] : undefined;
    // tmux expands formats in most commands' arguments
    if (names) codes.push(...formatJobs(seg.slice(1)));
    if (sub) {
      const p = parseOptions(seg.slice(1), sub);
      const files = sub.files ? p.operands.filter((f) => !NOWHERE.includes(literal(f.v) ?? '')) : [];
      const written = files.map((f) => read?.(f));
      unseen.push(...files.filter((_, i) => typeof written[i] !== 'string').map((f) => `${key} ${f.info.raw}`));
      const held = tmuxCommandLines(p, sub);
      unseen.push(...held.unknown.map((raw) => `${key} ${raw}`));
      // a held command may run after this line changed the file (`bind r source-file t.conf`): only a file's own commands read files
      const lines = [...held.lines.map((l) => [l, undefined] as const), ...written.filter((t): t is string => typeof t === 'string').map((t) => [tmuxLine(t), read] as const)];
      for (const [line, reader] of lines) {
        if (depth >= MAX_NESTED_COMMANDS) { unseen.push(`${key} nested ${depth} deep`); break; }
        const inner = subcommandCode(line, table, true, names, depth + 1, reader);
        codes.push(...inner.codes);
        unseen.push(...inner.unseen);
        effects.push(...inner.effects);
      }
      if (sub.buffer) {
        const b = bufferUse(sub.buffer, p);
        effects.push(...b.effects);
        if (b.unseen !== null) unseen.push(b.unseen);
      }
      const code = runsShell(p, sub) ? shellOperands(p, sub, seg.slice(1)) : null;
      if (code !== null) codes.push(code);
    }
    seg = [];
  };
  for (const a of ops) {
    const w = literal(a.v) ?? '';
    if (split && w === ';') { flush(); continue; }
    if (split && w.endsWith(';') && !w.endsWith('\\;')) { seg.push(word(w.slice(0, -1))); flush(); continue; }
    seg.push(a);
  }
  flush();
  return { codes, unseen, effects };
}

/** The code a file of tmux commands this line wrote runs (`tmux -f FILE`), and the files and strings in it the guard cannot see. */
export function tmuxFileCode(text: string, read?: FileReader): { codes: string[]; unseen: string[] } {
  const r = subcommandCode(tmuxLine(text), WRAPPERS.tmux!.subcommands!, true, WRAPPERS.tmux!.subcommandNames, 1, read);
  return { codes: [...r.codes, ...r.effects], unseen: r.unseen };
}

/** A sub-command word as the program reads it: a name or alias in the table, else the one name it is a prefix of. */
function resolveSubcommand(w: string, table: Readonly<Record<string, SubcommandSpec>>, names?: readonly string[]): string {
  if (Object.hasOwn(table, w) || !names || w === '') return w;
  const found = names.filter((n) => n.startsWith(w));
  return found.length === 1 ? found[0]! : w;
}

/** Whether the program starts work outside the caller's process group or session (setsid, `screen -dm`, crontab, …). */
export function detaches(name: string, args: readonly Arg[], unwrapped: Unwrapped | null): boolean {
  const d = DETACHERS[name];
  if (!d || (d.first !== undefined && literal(args[0]?.v ?? '') !== d.first)) return false;
  const p = parseOptions(args, d.spec ?? WRAPPERS[name] ?? {});
  if (d.options && !has(p, ...d.options)) return false;
  if (d.except && has(p, ...d.except)) return false;
  return !d.runsCode || (unwrapped !== null && (unwrapped.code !== null || unwrapped.rest.length > 0));
}

/** The program a command line finally runs, through wrappers (`sudo env nice rm …` → rm); null when not known. */
export function innermostProgram(args: readonly Arg[]): string | null {
  let cur = args;
  for (let hop = 0; hop < 16 && cur.length > 0; hop++) {
    const name = programName(cur[0]!.v);
    if (name === null) return null;
    const u = unwrapOnce(name, cur.slice(1));
    if (!u || u.rest.length === 0) return name;
    cur = u.rest;
  }
  return null;
}

/** The program a command line runs once its wrappers are off (`timeout 5 env A=b git …` → git); null when unknown or none. */
export function innerProgram(words: readonly Arg[]): string | null {
  let cur = words;
  for (let hop = 0; hop < 32 && cur.length > 0; hop++) {
    const name = programName(cur[0]!.v);
    const u = name === null ? null : unwrapOnce(name, cur.slice(1));
    if (!u || u.rest.length === 0) return name;
    cur = u.rest;
  }
  return null;
}

const MAX_XARGS_ITEMS = 64;

/** The command lines xargs runs when its input is static text (`echo / | xargs rm -rf`); null when unknown. */
export function xargsCommandLines(xargsArgs: readonly Arg[], command: readonly Arg[], input: string): Arg[][] | null {
  const spec = WRAPPERS.xargs!;
  const p = parseOptions(xargsArgs, spec);
  if (has(p, 'a', 'arg-file')) return null;
  const repl = valueOf(p, 'I', 'replace')?.v ?? (has(p, 'i') ? valueOf(p, 'i')?.v ?? '{}' : null);
  const delim = has(p, '0', 'null') ? '\u0000' : valueOf(p, 'd', 'delimiter')?.v ?? null;
  const items = (delim !== null ? input.split(delim) : repl !== null ? input.split('\n') : input.split(/\s+/)).map((s) => (repl !== null ? s.trim() : s)).filter((s) => s !== '');
  if (items.length > MAX_XARGS_ITEMS) return null;
  const asArg = (v: string): Arg => ({ v, info: { computed: true, ansi: false, quoted: true, inner: [], raw: v } });
  // BSD `-J %`: a word `%` is replaced by all the names at once
  const all = valueOf(p, 'J')?.v;
  if (all !== undefined) return [command.flatMap((a) => (a.v === all ? items.map(asArg) : [a]))];
  if (repl !== null) return items.map((item) => command.map((a) => (a.v.includes(repl) ? { v: a.v.split(repl).join(item), info: a.info } : a)));
  const n = Number(literal(valueOf(p, 'n', 'max-args')?.v ?? '') ?? '');
  const size = Number.isInteger(n) && n > 0 ? n : Math.max(1, items.length);
  const lines: Arg[][] = [];
  for (let i = 0; i < Math.max(1, items.length); i += size) lines.push([...command, ...items.slice(i, i + size).map(asArg)]);
  return lines;
}

/**
 * The command xargs runs when its input is not known: its replace string (`-I{}`, `-i`) stands for an input item,
 * a value computed at run time (in `sh -c 'rm -rf /{}'` too, whose code then reads `$__unknown` there).
 */
export function xargsPlaceholders(xargsArgs: readonly Arg[], command: readonly Arg[]): readonly Arg[] {
  const p = parseOptions(xargsArgs, WRAPPERS.xargs!);
  const repl = valueOf(p, 'I', 'replace')?.v ?? (has(p, 'i') ? valueOf(p, 'i')?.v ?? '{}' : null);
  const all = valueOf(p, 'J')?.v;
  if (all !== undefined) return command.map((a) => (a.v === all ? { v: UNKNOWN, info: { ...a.info, computed: true } } : a));
  if (repl === null || repl === '') return command;
  return command.map((a) => (a.v.includes(repl) ? { v: a.v.split(repl).join(UNKNOWN), info: { ...a.info, computed: true } } : a));
}
