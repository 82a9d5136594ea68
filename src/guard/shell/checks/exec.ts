import { carriesDownload, interpreterView, isDownloadOrDecode } from '../interpreters.ts';
import type { Emit, Invocation } from '../model.ts';

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
