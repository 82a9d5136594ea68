import { checkDownloadedCommands } from './checks/exec.ts';
import { intoSubstitutions, walkCodeOf } from './code-commands.ts';
import { embeddedCode, type FileReader } from './embedded-code.ts';
import { childVars, commandVars, resetEnv, wrapperVars } from './environment.ts';
import { carriesDownload } from './interpreters.ts';
import { isLister } from './listers.ts';
import { readTargets, stdinListers } from './listings.ts';
import type { Arg, Emit, RedirFact } from './model.ts';
import { HOME_DIR, canonical, segRegex } from './paths.ts';
import { fileText } from './scripts.ts';
import { copy, makeInvocation, showArg, stdinText, trackState, type State } from './shell-state.ts';
import { detaches, programName, unwrapOnce, xargsCommandLines, xargsPlaceholders } from './unwrap.ts';
import { hasGlob } from './values.ts';
import { MAX_LOOP_ITEMS, PRINTS_ONLY, argFileReads, printsOnly, programFile, startsShell, type Checks, type WalkHost } from './walk-support.ts';

/**
 * One command line (also a find -exec or xargs payload): its wrappers taken off hop by hop (`sudo`, `env`, `xargs`,
 * `ssh host`, …), each with what it changes on the way (directory, environment, code it runs), down to the program.
 */
export function walkCommandLine(w: WalkHost, args: readonly Arg[], st: State, redirs: readonly RedirFact[], appendsArgs: boolean, assigned: readonly [string, string][] = []): void {
  let cur = args;
  let cwd = st.cwd;
  let appends = appendsArgs;
  // the variables the command (and, exported, what it starts) sees: `env -i`, `sudo X=1` change them on the way
  let vars = commandVars(st.vars, assigned);
  for (let hop = 0; hop < 32 && cur.length > 0; hop++) {
    const head = cur[0]!;
    const name = programOf(head, w.emit);
    if (name === null) {
      w.record(makeInvocation('', cur.slice(1), { ...st, cwd }, redirs, appends));
      return;
    }
    // aliases set earlier for git, ugrep's configuration file: given first
    cur = w.settings.apply(name, cur, vars, cwd);
    const read: FileReader = (f) => fileText(w.files, f, cwd);
    // code in option values (`tar --to-command=…`, `vim -c '!…'`) runs like `sh -c`
    for (const code of embeddedCode(name, cur.slice(1), w.emit, vars, read, stdinText(redirs, st), stdinFile(redirs))) w.nestedCode(code, copy(st, { cwd, vars: childVars(vars), upstream: [], stdinFrom: null }));
    // what it does to processes already running (`strace -p 1 CMD`): a wrapper's own arguments count too
    w.checks.program(name, cur.slice(1), w.emit, read, stdinText(redirs, st), { vars, stdinFile: stdinFile(redirs) });
    checkDownloadedCommands(name, cur.slice(1), st.upstream, redirs, w.emit);
    const u = printsOnly(name, cur.slice(1), st.feeds ?? false, redirs) ? PRINTS_ONLY : unwrapOnce(name, cur.slice(1), read);
    if (detaches(name, cur.slice(1), u)) w.emit('shell.process.detach', cur.map((a) => showArg(a.v)).join(' ').slice(0, 200));
    if (!u) break;
    if (u.unseen) w.emit('shell.code.unseen_setting', u.unseen);
    // `sudo -u nobody git status` is not `git status` either: the wrapper is a scope of its own
    w.scope(name, undefined, programFile(head.v, cwd, vars.has('HOME'), st.cwdGuessed));
    // `xargs -a FILE`, `parallel CMD :::: FILE`: FILE is read like `cat FILE` (its lines are the arguments)
    for (const read of argFileReads(name, cur.slice(1), cwd, st.depth)) w.checks.invocation(read, w.emit);
    if (name === 'xargs' && u.rest.length > 0) {
      // text echoed from a listing (`find ~ | while read f; do echo "$f"; done | xargs cat`) is not static
      const input = st.upstream.some(isLister) ? null : stdinText(redirs, st);
      const lines = input === null ? null : xargsCommandLines(cur.slice(1, cur.length - u.rest.length), u.rest, input);
      if (lines) {
        for (const line of lines.slice(0, MAX_LOOP_ITEMS)) walkCommandLine(w, line, copy(st, { cwd, vars: new Map(vars), stdinFrom: null }), [], appends);
        return;
      }
    }
    const rest = name === 'xargs' ? xargsPlaceholders(cur.slice(1, cur.length - u.rest.length), u.rest) : u.rest;
    // `xargs -a list CMD`: the names a listing file holds are its arguments
    const fromFile = name === 'xargs' ? w.listingFiles.argFile(cur.slice(1, cur.length - u.rest.length), cwd) : [];
    if (fromFile.length > 0) st = { ...st, upstream: [...st.upstream, ...fromFile] };
    if (u.chdir) cwd = canonical(u.chdir.v, cwd);
    // `X=1 sudo sh -c '…$X…'`: sudo may reset the environment (env_reset) or keep X (env_keep), `su -` resets it and starts in the target's home: judged both ways
    const reset = u.remote ? null : resetEnv(name, cur.slice(1), vars, cwd);
    if (reset && u.rest.length > 0) walkCommandLine(w, u.rest, copy(st, reset), redirs, appends || u.appendsArgs);
    // an option the wrapper's table does not know may take the next word: that reading is judged as well
    for (const other of u.alternates ?? []) walkCommandLine(w, other, copy(st, { cwd, vars: new Map(vars) }), redirs, appends || u.appendsArgs);
    vars = wrapperVars(name, cur.slice(1), vars);
    const runs = [{ cwd: u.remote ? HOME_DIR : cwd, vars: u.remote ? new Map<string, string>() : vars }, ...(reset ? [reset] : [])];
    // `find ~ | parallel cat`, `parallel cat :::: list`: the code's `$__unknown` (its `{}`) holds the names listed
    const inputs = w.listingFiles.parallelInputs(name, cur.slice(1), st.upstream, cwd);
    for (const e of u.effects ?? []) w.nestedCode(e, copy(st, { cwd, vars: childVars(vars), upstream: [], stdinFrom: null }));
    if (u.code !== null) for (const r of runs) w.nestedCode(u.code, copy(st, { cwd: r.cwd, vars: w.listings.mark(childVars(r.vars), '__unknown', inputs) }));
    appends ||= u.appendsArgs;
    if (u.rest.length === 0 || u.remote) {
      const inv = makeInvocation(name, u.code !== null ? [] : cur.slice(1), { ...st, cwd }, redirs, appends);
      w.record(inv, programFile(head.v, cwd, vars.has('HOME'), st.cwdGuessed), vars);
      // `exec > >(sh)`: what the rest of the script prints goes to that shell
      intoSubstitutions(w, inv, copy(st, { cwd }));
      // the shell it starts reads the script on stdin: judged as `sh` reading it
      for (const r of u.code === null && !u.remote && u !== PRINTS_ONLY && startsShell(name, cur.slice(1)) ? runs : []) {
        const local = copy(st, { cwd: r.cwd, vars: new Map(r.vars) });
        const shell = makeInvocation('sh', [], local, redirs, appends);
        walkCodeOf(w, shell, local, { v: 'sh', info: head.info });
        w.record(shell);
      }
      return;
    }
    cur = rest;
  }
  if (cur.length === 0) return;
  const head = cur[0]!;
  const names = candidates(head, w.checks);
  const local = copy(st, { cwd, vars: new Map(vars) });
  // `/usr/bin/gd? -p 1`: each program the glob may name (the name as typed was checked above)
  if (hasGlob(head.v)) for (const program of names) w.checks.program(program, cur.slice(1), w.emit, (f) => fileText(w.files, f, cwd));
  for (const program of names) {
    const inv = makeInvocation(program, cur.slice(1), local, redirs, appends);
    walkCodeOf(w, inv, local, head);
    w.record(inv, programFile(head.v, cwd, vars.has('HOME'), st.cwdGuessed), vars);
    w.callFunction(inv, local);
  }
  if (cwd === st.cwd) trackState(names[0] ?? '', cur.slice(1), st, { stdin: stdinText(redirs, st), vars });
  // `find ~ | while read f`, `mapfile -t a < <(find ~)`: what it reads are the names find lists
  for (const n of readTargets(names[0] ?? '', cur.slice(1))) w.listings.mark(st.vars, n, stdinListers(st.upstream, redirs));
}

/** Resolves the program word; flags computed names. Null when it cannot be known at all. */
function programOf(head: Arg, emit: Emit): string | null {
  const name = programName(head.v);
  if (head.info.computed || hasGlob(head.v) || name === null) {
    emit('shell.program.computed', head.info.raw);
    if (head.info.inner.some(carriesDownload)) emit('shell.download.exec', head.info.raw);
  }
  return name;
}

/** The programs a program word may run: its name, or every program some rule looks at that a glob there matches. */
function candidates(head: Arg, checks: Checks): string[] {
  const name = programName(head.v);
  if (name === null) return [];
  if (!hasGlob(head.v)) return [name];
  // the basename as the shell globs it, character classes included (`/bin/r[m]`)
  let re: RegExp;
  try {
    re = segRegex(head.v.slice(head.v.lastIndexOf('/') + 1));
  } catch {
    return [name];
  }
  const found = checks.programsMatching(re);
  return found.length > 0 ? [...found] : [name];
}

/** The file a command's stdin is redirected from (`< x`, `< <(…)`), the last one winning; null when none. */
function stdinFile(redirs: readonly RedirFact[]): Arg | null {
  const r = [...redirs].reverse().find((f) => (f.op === '<' || f.op === '<>') && (f.fd === '' || f.fd === '0') && f.target);
  return r?.target ? { v: r.target.v, info: { ...r.target.info, inner: r.inner } } : null;
}
