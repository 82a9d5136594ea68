import { ATTACHERS, type AttachSpec } from '../attach-tables.ts';
import { DEBUGGERS, debuggerRun } from '../debuggers.ts';
import type { FileReader } from '../embedded-code.ts';
import { firstOf, parseOptions, type Opt, type OptionSpec } from '../flags.ts';
import type { Arg, Emit } from '../model.ts';
import { showArg } from '../shell-state.ts';
import { literal } from '../values.ts';

/**
 * A debugger, tracer or profiler attached to a running process reads its memory and environment (echo-agent's own
 * hold the configuration's secrets), can run code in it and change it: a person decides. One that, attached, dumps
 * the memory to a file or prints the environment hands those secrets over, a hard block as `gcore PID` is.
 * Called for every program of a command line, wrappers included (`strace -p 1 CMD`, `gdb -p 1 --args PROG`).
 */
export function checkAttach(name: string, args: readonly Arg[], emit: Emit, read: FileReader, stdin: string | null = null): void {
  const found = attachOf(name, args, read, stdin);
  if (!found) return;
  const text = [name, ...args.map((a) => showArg(a.v))].join(' ');
  emit('shell.process.attach', `${text} (attaches: ${found.attach})`);
  for (const d of found.dumps) emit('shell.secret.read', `${text} (attached, ${d})`);
}

function attachOf(name: string, args: readonly Arg[], read: FileReader, stdin: string | null): { attach: string; dumps: readonly string[] } | null {
  const which = DEBUGGERS[name];
  if (which) {
    const run = debuggerRun(which, args, read, stdin);
    return run.attach === null ? null : { attach: run.attach, dumps: run.dumps.map((c) => `runs ${c}`) };
  }
  const spec = ATTACHERS[name];
  const attach = spec ? tableAttach(spec, args, read) : null;
  if (attach === null) return null;
  const dump = spec!.dumps?.(args);
  return { attach, dumps: dump ? [dump] : [] };
}

/** What names a running process on a command line the table describes, or null. */
function tableAttach(s: AttachSpec, args: readonly Arg[], read: FileReader): string | null {
  const other = s.other?.(args, read);
  if (other) return other;
  const segments = s.locate ? s.locate(args) : [{ words: subcommandWords(s, args), spec: s.spec ?? {} }];
  for (const { words, spec } of segments ?? []) {
    if (words === null) continue;
    const found = optionAttach(s, words, spec);
    if (found !== null) return found;
  }
  return null;
}

/** The words after the sub-command the table asks for, or all of them; null under another sub-command. */
function subcommandWords(s: AttachSpec, args: readonly Arg[]): readonly Arg[] | null {
  if (!s.subcommands) return args;
  const g = parseOptions(args, { ...s.globals, posix: true });
  return s.subcommands.includes(literal(g.operands[0]?.v ?? '') ?? '') ? g.operands.slice(1) : null;
}

/** An option naming a running process, or an operand that does, among words spelled as `spec` says. */
function optionAttach(s: AttachSpec, words: readonly Arg[], spec: OptionSpec): string | null {
  const p = parseOptions(words, spec);
  const names = s.options ?? [];
  const opt = firstOf(p, ...names);
  // a value in the next word is shown with its option (`-p 1234`); an attached one is part of it (`-p1234`)
  const next = (o: Opt): Arg | null => (o.value && words.includes(o.value) ? o.value : null);
  if (opt) return [opt.arg, ...(next(opt) ? [next(opt)!] : [])].map((a) => showArg(a.v)).join(' ');
  // a flag read as taking a value swallows what follows: `perf record -d -p 1` is still `-p 1`
  const swallowed = p.opts.map(next).find((v) => v && /^-./.test(v.v) && firstOf(parseOptions([v], spec), ...names));
  if (swallowed) return showArg(swallowed.v);
  if (!s.operands || (s.spawns && firstOf(p, ...s.spawns))) return null;
  const op = p.operands.find((a) => s.operands === 'any' || literal(a.v) === null || /^\d/.test(literal(a.v)!));
  return op ? showArg(op.v) : null;
}
