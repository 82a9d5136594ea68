import { EMBEDDED_CODE } from '../code-tables.ts';
import { carriesDownload, interpreterView, isDownloadOrDecode } from '../interpreters.ts';
import type { Arg, Emit, Invocation, RedirFact } from '../model.ts';
import { showArg } from '../shell-state.ts';

const STDIN_OPS = new Set(['<', '<<', '<<-', '<<<']);

/** Inline interpreter code, eval, and downloaded or decoded content reaching an interpreter. */
export function checkExec(inv: Invocation, emit: Emit): void {
  const view = interpreterView(inv);
  if (!view) return;
  if (view.family === 'eval') emit('shell.program.eval', inv.text);
  else if (view.inline) emit('shell.interpreter.inline', inv.text);
  else if (view.readsStdin && view.family !== 'source' && (inv.stdinText !== null || inv.upstream.length > 0)) emit('shell.interpreter.inline', `${inv.text} (code on stdin)`);
  const stdinTainted = view.readsStdin && (inv.upstream.some(isDownloadOrDecode) || inv.redirs.some((r) => STDIN_OPS.has(r.op) && r.inner.some(carriesDownload)));
  const argTainted = inv.args.some((a) => a.info.inner.some(carriesDownload));
  if (stdinTainted || argTainted) emit('shell.download.exec', inv.text);
}

/**
 * A program that reads commands on stdin (gdb, lldb: EMBEDDED_CODE's `stdin`) fed a download or decoded text
 * (`curl … | gdb -batch`, `lldb < <(wget -O- …)`): commands nobody has seen, as `curl … | sh` runs. Every program of
 * the line is asked, wrappers included (`curl … | gdb --args ./prog`).
 */
export function checkDownloadedCommands(name: string, args: readonly Arg[], upstream: readonly Invocation[], redirs: readonly RedirFact[], emit: Emit): void {
  if (!Object.hasOwn(EMBEDDED_CODE, name) || !EMBEDDED_CODE[name]!.stdin) return;
  if (upstream.some(isDownloadOrDecode) || redirs.some((r) => STDIN_OPS.has(r.op) && r.inner.some(carriesDownload))) {
    emit('shell.download.exec', `${[name, ...args.map((a) => showArg(a.v))].join(' ')} (reads debugger commands downloaded or decoded)`);
  }
}
