import type { FileReader } from './embedded-code.ts';
import { has, parseOptions, valueOf, valuesOf } from './flags.ts';
import type { Arg } from './model.ts';
import { BPFTRACE, DTRACE } from './profiler-tables.ts';
import { showArg } from './shell-state.ts';
import { literal, plain } from './values.ts';
import { DOWNLOADED } from './written-files.ts';

/**
 * Tracers whose probes see every process on the machine, echo-agent's among them: what a bpftrace or dtrace program
 * reads there (`str(arg0)`, `copyinstr`, uprobes on SSL_write) and what sysdig captures (I/O buffers, `proc.env`) is
 * that process's memory and environment, as an attached debugger's is. Each says what attaches, or null.
 */

/** Probes that fire in bpftrace itself, not in a traced process. */
const OWN_PROBES = new Set(['BEGIN', 'END']);

/**
 * The probes of a bpftrace program, from its text: comments, strings, action blocks and predicates dropped, the
 * rest split at commas and blanks. Anything left that is not BEGIN or END traces other processes.
 */
export function otherProbes(text: string): string[] {
  let t = text.replace(/\/\*[\s\S]*?\*\//g, ' ').replace(/\/\/[^\n]*/g, ' ').replace(/"(?:[^"\\]|\\.)*"/g, '""').replace(/^\s*#[^\n]*/gm, ' ');
  for (let prev = ''; prev !== t;) [prev, t] = [t, t.replace(/\{[^{}]*\}/g, ' ')];
  t = t.replace(/\/[^/{}]*\//g, ' ');
  return t.split(/[\s,]+/).filter((p) => p !== '' && !OWN_PROBES.has(p));
}

/** `bpftrace -e PROG` or `bpftrace FILE` (one this line wrote): the probes that reach other processes. */
export function bpftraceProbes(args: readonly Arg[], read: FileReader): string | null {
  const p = parseOptions(args, BPFTRACE);
  if (has(p, 'l')) return null;
  const inline = valueOf(p, 'e');
  const file = inline ? null : p.operands[0] ?? null;
  const text = inline ? literal(inline.v) : file ? read(file) : undefined;
  // a program not known (`-e "$P"`) may probe anything; an unseen script file is left as before
  if (inline && text === null) return `-e ${showArg(inline.v)}`;
  if (typeof text !== 'string') return text === DOWNLOADED ? `${showArg(file!.v)} (downloaded)` : null;
  const probes = otherProbes(text);
  return probes.length > 0 ? `probes ${probes.slice(0, 3).join(', ')} see every process` : null;
}

/** dtrace: probes named (`-n`, read as bpftrace's are, `-P`, `-m`, `-f`, `-i`) or a process grabbed (`-p PID`); listing (`-l`) and header generation (`-h`, `-G`) trace nothing. */
export function dtraceProbes(args: readonly Arg[]): string | null {
  const p = parseOptions(args, DTRACE);
  const grabbed = valueOf(p, 'p');
  if (grabbed) return `-p ${showArg(grabbed.v)}`;
  if (has(p, 'l', 'h', 'G', 'V')) return null;
  const named = valuesOf(p, 'n').flatMap((a) => { const t = literal(a.v); return t === null ? [showArg(a.v)] : otherProbes(t); });
  const probes = [...named, ...valuesOf(p, 'P', 'm', 'f', 'i').map((a) => showArg(a.v))];
  return probes.length > 0 ? `probes ${probes.slice(0, 3).join(', ')} see every process` : null;
}

/** sysdig and csysdig capture every process's system calls, their buffers and environments; reading a capture file (`-r`) or listing fields and chisels does not. */
const SYSDIG_INFO = /^(?:-[lLh]|-cl|--list(?:-\w+)?|--help|--version|--list-chisels)$/;
export function sysdigCapture(args: readonly Arg[]): string | null {
  const words = args.map((a) => plain(a.v));
  if (words.some((w) => /^(?:-r|--read(?:=|$))/.test(w) || SYSDIG_INFO.test(w))) return null;
  return 'captures every process\'s system calls and data';
}
