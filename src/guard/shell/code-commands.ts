import { codeText } from './code-text.ts';
import { aliasShell } from './command-settings.ts';
import { argumentCode, cronCommands, perFileCommands, scheduledSource } from './embedded-code.ts';
import { childState, childVars } from './environment.ts';
import { carriesDownload, interpreterView, isDownloadOrDecode, isStdin } from './interpreters.ts';
import { awkCommands, awkProgram } from './awk-program.ts';
import { AWK_EXEC, AWKS } from './program-tables.ts';
import { staticOutput } from './static-output.ts';
import { isLister } from './listers.ts';
import type { Arg, Invocation } from './model.ts';
import { HOME_DIR, canonical } from './paths.ts';
import { fileText, runsFile, scriptFromSubstitution, scriptOnStdin } from './scripts.ts';
import { makeCode, projectCode } from './project-files.ts';
import { copy, showArg, type State } from './shell-state.ts';
import { FIELD_SPLIT, UNKNOWN, isKnown, plain } from './values.ts';
import { isFdPath, otherDialect, type WalkHost } from './walk-support.ts';
import { DOWNLOADED } from './written-files.ts';

/**
 * Commands whose arguments, stdin or files are themselves code, walked one level deeper: shells, eval, source, a
 * script this line wrote, trap, alias, schedulers, find -exec. `head`: the program word as given.
 */
export function walkCodeOf(w: WalkHost, inv: Invocation, st: State, head: Arg): void {
  if (head.v.includes('/')) runsFile(w, head, st, inv.program, true, 'exec');
  // a script runs in a new process, which sees only what is exported; `source` and `eval` run it in this shell
  const view = interpreterView(inv);
  const runner = view && view.family !== 'source' && view.family !== 'eval' ? childState(st) : st;
  if (st.funcs.includes(inv.program) && (st.piped || st.background)) w.emit('shell.process.fork_bomb', `${inv.program}() calling itself in a pipeline or background`);
  const dialect = view?.family === 'shell' ? otherDialect(inv, view.inline && view.code ? plain(view.code.v) : view.readsStdin ? inv.stdinText : null) : null;
  if (dialect !== null) w.emit('shell.input.dialect', dialect);
  if (view?.family === 'shell' && view.inline && view.code) {
    const vars = runner.vars;
    view.positional.forEach((a, i) => vars.set(String(i), a.v));
    // xargs and find -exec append arguments the guard cannot see
    vars.set('@', [...view.positional.slice(1).map((a) => a.v), ...(inv.appendsArgs ? [UNKNOWN] : [])].join(FIELD_SPLIT));
    w.listings.positional(vars, view.positional.map((a) => a.v), inv);
    // `sh -c "cat '{}'"` from xargs -I or find -exec: the name stays unknown inside the code's quotes
    w.nestedCode(codeText(view.code.v), copy(runner, { upstream: [], stdinFrom: null }));
  } else if ((view?.family === 'shell' || view?.family === 'source') && view.readsStdin && inv.stdinText !== null) {
    w.nestedCode(inv.stdinText, copy(runner, { upstream: [], stdinFrom: null }));
  } else if (view?.family === 'eval' && view.code) {
    w.nestedCode(plain(view.code.v), st);
  }
  // `find -exec sh {} ;`, `fd -x bash`, `xargs sh`, `rg --pre sh`: each name found becomes the script of a shell or interpreter
  if (view && (view.family === 'shell' || view.family === 'code') && !view.inline && (inv.appendsArgs || (inv.listedBy?.length ?? 0) > 0)) {
    // `bash -n` only reads the script for its syntax
    const noexec = view.family === 'shell' && inv.args.some((a) => /^-[A-Za-z]*n[A-Za-z]*$/.test(a.v));
    if (!noexec && (view.script ? !isKnown(view.script.v) : view.readsStdin && inv.appendsArgs)) w.emit('shell.interpreter.unseen_script', `${inv.text} (runs each name it is given as a script)`);
  }
  const how = view?.family === 'code' ? 'code' : 'shell';
  if (view?.script && isFdPath(view.script.v)) scriptFromSubstitution(w, view.script, runner, inv, how);
  else if (view?.script) runsFile(w, view.script, runner, inv.program, false, how);
  if (view?.family !== 'eval' && view?.readsStdin && inv.stdinText === null) scriptOnStdin(w, inv, runner, how);
  scheduled(w, inv, st);
  intoSubstitutions(w, inv, st);
  // a makefile, package.json or justfile this line wrote: their commands run with the shell
  for (const code of [...makeCode(inv, w.files, w.emit), ...projectCode(inv, w.files, w.emit)]) w.nestedCode(code, copy(runner, { upstream: [], stdinFrom: null }));
  // alias values, trap actions, git -c core.pager=…, printf -v LESSOPEN … run as shell code
  for (const code of argumentCode(inv, w.emit, st.vars, (f) => fileText(w.files, f, inv.cwd))) w.nestedCode(code, copy(st));
  // `awk 'BEGIN { system("CMD") }'`, `awk -f prog.awk` this line wrote: the commands its strings run
  for (const code of awkCode(w, inv)) w.nestedCode(code, copy(runner, { upstream: [], stdinFrom: null }));
  w.settings.remember(inv);
  const alias = aliasShell(inv, st);
  if (alias) w.nestedCode(...alias);
  // `find -exec CMD {} ;`, `fd -x CMD`, `rg --pre CMD`: CMD runs on each file found
  for (const sub of perFileCommands(inv)) w.commandLine(sub, copy(st, { piped: false, ...(isLister(inv) ? { listed: [inv] } : {}) }), [], true);
}

/** `echo '* * * * * CMD' | crontab -`, `at now < job.sh`: the commands it installs to run later, when they can be seen. */
function scheduled(w: WalkHost, inv: Invocation, st: State): void {
  const s = scheduledSource(inv);
  if (!s) return;
  const text = s.from === 'stdin' ? inv.stdinText : w.files.lookup(canonical(s.from.v, inv.cwd));
  if (text === DOWNLOADED || (s.from === 'stdin' && inv.upstream.some(isDownloadOrDecode))) w.emit('shell.download.exec', inv.text);
  else if (typeof text === 'string') {
    // cron runs a job in the home directory with an environment of its own; at keeps the directory and the exported variables
    const cron = s.format === 'crontab';
    w.nestedCode(cron ? cronCommands(text).join('\n') : text, copy(st, { cwd: cron ? HOME_DIR : st.cwd, vars: cron ? new Map() : childVars(st.vars), upstream: [], stdinFrom: null }));
  }
}

const OUTPUT_OPS = /^(>|>>|>\||&>|&>>)$/;

/**
 * `CMD > >(sh)`, `tee >(bash)`: a shell or interpreter in an output process substitution reads what CMD prints, as in
 * `CMD | sh`: static text is walked (judged like `python -c` for another interpreter), a download or decoding flagged,
 * anything else is code on stdin.
 */
export function intoSubstitutions(w: WalkHost, inv: Invocation, st: State): void {
  const targets = [...inv.redirs.filter((r) => OUTPUT_OPS.test(r.op) && r.target && isFdPath(r.target.v)).map((r) => r.inner), ...(inv.program === 'tee' ? inv.args.filter((a) => isFdPath(a.v)).map((a) => a.info.inner) : [])];
  for (const reader of targets.map((inner) => inner[0]).filter((i): i is Invocation => i !== undefined)) {
    const view = interpreterView(reader);
    if (!view?.readsStdin || view.family === 'source' || view.family === 'eval') continue;
    const text = inv.program === 'tee' ? inv.stdinText : staticOutput(inv);
    if (carriesDownload(inv)) w.emit('shell.download.exec', `${inv.text} > >(${reader.text})`);
    else if (text !== null && view.family === 'shell') w.nestedCode(text, copy(st, { upstream: [], stdinFrom: null }));
    else w.emit('shell.interpreter.inline', `${reader.text} (code on stdin from ${inv.program || 'a redirection'})`);
  }
}

/**
 * awk's program: the commands its string literals run (`system("CMD")`, `"CMD" | getline`) are walked; a program file this
 * line wrote or a substitution prints is read, and runs commands like inline code does; one downloaded, or from a
 * substitution not known, is flagged; any other file is like `bash script.sh`.
 */
function awkCode(w: WalkHost, inv: Invocation): string[] {
  if (!AWKS.has(inv.program)) return [];
  const prog = awkProgram(inv.args);
  const out = prog.texts.flatMap((t) => awkCommands(plain(t.v)));
  for (const f of prog.files) {
    const stdin = isStdin(f);
    const text = stdin ? inv.stdinText ?? undefined : fileText(w.files, f, inv.cwd);
    if (text === DOWNLOADED) w.emit('shell.download.exec', `${inv.text} (runs the downloaded awk program ${showArg(f.v)})`);
    else if (typeof text === 'string') {
      // code on stdin is flagged as such already (checkExec)
      if (!stdin && AWK_EXEC.test(text)) w.emit('shell.interpreter.inline', `${inv.text} (the awk program this command line wrote runs commands: ${text.split('\n')[0]!.slice(0, 80)})`);
      out.push(...awkCommands(text));
    } else if (isFdPath(f.v)) w.emit('shell.interpreter.unseen_script', `${inv.text} (awk program from a process substitution)`);
  }
  return out;
}
