import { childState } from './environment.ts';
import { carriesDownload } from './interpreters.ts';
import type { Arg, Emit, Invocation } from './model.ts';
import { canonical, showCanon, type Canon } from './paths.ts';
import { copy, showArg, type State } from './shell-state.ts';
import { staticOutput } from './static-output.ts';
import { isKnown } from './values.ts';
import { isFdPath } from './walk-support.ts';
import { DOWNLOADED, type WrittenFiles } from './written-files.ts';

/** Where a shell's script comes from when it is not inline: a file this line wrote, a substitution, a redirect. */

/** What the walk lends: findings, the files this line wrote, and walking code one level deeper in a state. */
export interface ScriptHost {
  readonly emit: Emit;
  readonly files: WrittenFiles;
  nestedCode(code: string, st: State): void;
}

const fresh = (st: State): State => copy(st, { upstream: [], stdinFrom: null });

/** A `#!` line naming a shell (`#!/bin/sh`, `#!/usr/bin/env bash`, `env -S bash -e`): bash reads the rest like its own. */
const SHELL_SHEBANG = /^#!\s*(?:\S*\/)?(?:env\s+(?:-\S+\s+)*)?(?:\S*\/)?(?:ba|da|k|mk|a|z|ya|po|rba|lk)?sh(?:\s|$)/;

/**
 * Running a file written or downloaded earlier in the same command line (`st`: the state it runs in; `child`: a new
 * process's). `how`: a shell reads it (`bash x.sh`, `. x.sh`), another interpreter does (`python3 x.py`), or the kernel
 * starts it by its `#!` line (`./x`). Code for another interpreter is judged like `python -c CODE`, not read as shell:
 * Python that parses as shell (`@os.system` decorators and no call) ran unflagged.
 */
export function runsFile(host: ScriptHost, file: Arg, st: State, via: string, child = false, how: 'shell' | 'code' | 'exec' = 'shell'): void {
  const c = canonical(file.v, st.cwd);
  const shown = c ? showCanon(c) : showArg(file.v);
  const content = host.files.lookup(c);
  if (content === DOWNLOADED) host.emit('shell.download.exec', `${via} runs downloaded ${shown}`);
  else if (typeof content !== 'string') return;
  else if (how === 'code' || (how === 'exec' && content.startsWith('#!') && !SHELL_SHEBANG.test(content))) {
    host.emit('shell.interpreter.inline', `${via} runs ${shown}, which this command line wrote: ${content.split('\n')[0]!.slice(0, 80)}`);
  } else host.nestedCode(content, fresh(child ? childState(st) : st));
}

/** What a file holds when this line wrote it or (`<(…)`) a substitution prints it, when static; DOWNLOADED for downloaded content. */
export function fileText(files: WrittenFiles, file: Arg, cwd: Canon | null): string | typeof DOWNLOADED | undefined {
  if (!isFdPath(file.v)) return files.lookup(canonical(file.v, cwd));
  if (file.info.inner.some(carriesDownload)) return DOWNLOADED;
  const last = file.info.inner[file.info.inner.length - 1];
  return (last ? staticOutput(last) : null) ?? undefined;
}

/** Static code for a shell is walked; for another interpreter (`python3 <(printf …)`) it is judged like `python -c CODE`. */
function staticCode(host: ScriptHost, text: string, st: State, inv: Invocation, how: 'shell' | 'code'): void {
  if (how === 'shell') host.nestedCode(text, fresh(st));
  else host.emit('shell.interpreter.inline', `${inv.text} (code this command line wrote: ${text.split('\n')[0]!.slice(0, 80)})`);
}

/** `bash <(…)`, `. <(…)`: the script is what the substituted command prints, when that is static; else nobody can see it. */
export function scriptFromSubstitution(host: ScriptHost, script: Arg, st: State, inv: Invocation, how: 'shell' | 'code' = 'shell'): void {
  const text = fileText(host.files, script, st.cwd);
  if (text === DOWNLOADED) return; // shell.download.exec already
  if (text !== undefined) staticCode(host, text, st, inv, how);
  else host.emit('shell.interpreter.unseen_script', `${inv.text} (script from a process substitution)`);
}

/** `bash < file`, `bash </dev/tcp/…`, `python3 < x.py`: a script on stdin from a redirect rather than a heredoc or a pipe. */
export function scriptOnStdin(host: ScriptHost, inv: Invocation, st: State, how: 'shell' | 'code' = 'shell'): void {
  const from = [...inv.redirs].reverse().find((r) => r.op === '<' && r.target);
  if (!from || inv.upstream.length > 0) return;
  const target = from.target!.v;
  if (/^\/dev\/(tcp|udp)\//.test(target)) {
    host.emit('shell.download.exec', `${inv.text} (script read from the network: ${target})`);
    return;
  }
  if (isFdPath(target)) {
    // `bash < <(…)`: what the substituted command prints, when static
    if (from.inner.some(carriesDownload)) return;
    const last = from.inner[from.inner.length - 1];
    const text = last ? staticOutput(last) : null;
    if (text !== null) staticCode(host, text, st, inv, how);
    else host.emit('shell.interpreter.unseen_script', `${inv.text} (script on stdin from a process substitution)`);
    return;
  }
  const content = host.files.lookup(canonical(target, from.cwd ?? st.cwd));
  if (content === DOWNLOADED) host.emit('shell.download.exec', `${inv.text} (runs downloaded ${target})`);
  else if (typeof content === 'string') staticCode(host, content, st, inv, how);
  else if (!isKnown(target) && how === 'shell') host.emit('shell.interpreter.unseen_script', `${inv.text} (script on stdin from ${showArg(target)})`);
}
