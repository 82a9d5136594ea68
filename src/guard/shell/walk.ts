import type { GuardFinding, NormalisedCommand } from '../types.ts';
import { arithmeticValues, expand, expandArgs, type EvalContext } from './evaluate.ts';
import { carriesDownload, interpreterView, isDownloadOrDecode } from './interpreters.ts';
import type { Arg, Emit, Invocation, RedirFact } from './model.ts';
import { ListingFiles } from './listing-files.ts';
import { codeText } from './code-text.ts';
import { HOME_DIR, canonical, segRegex, type Canon } from './paths.ts';
import { shellFinding } from './rules.ts';
import { subcommandOf } from './static-output.ts';
import { copy, makeInvocation, resolveName, setVar, showArg, stdinText, substOutput, trackState, type State } from './shell-state.ts';
import { DOWNLOADED, WrittenFiles } from './written-files.ts';
import type { Command, Stmt, Word } from './syntax/ast.ts';
import { argumentCode, cronCommands, embeddedCode, perFileCommands, scheduledSource } from './embedded-code.ts';
import { variableCode } from './code-values.ts';
import { envConfigCode } from './git-config.ts';
import { CommandSettings, aliasShell } from './command-settings.ts';
import { isLister } from './listers.ts';
import { Listings, readTargets, stdinInner, stdinListers } from './listings.ts';
import { fileText, runsFile, scriptFromSubstitution, scriptOnStdin, type ScriptHost } from './scripts.ts';
import { childState, childVars, commandVars, resetEnv, wrapperVars } from './environment.ts';
import { PRINTS_ONLY, andOrChain, argFileReads, isFdPath, otherDialect, printsOnly, printsTo, redirFact, startsShell, type Checks, type Reparse } from './walk-support.ts';
import { detaches, programName, unwrapOnce, xargsCommandLines, xargsPlaceholders } from './unwrap.ts';
import { FIELD_SPLIT, UNKNOWN, hasGlob, isKnown, plain } from './values.ts';

/** How deep `bash -c "bash -c …"` may nest before the guard stops and asks. */
export const MAX_CODE_DEPTH = 8;
/** Bound on commands examined for one input (loops are walked per item). */
const MAX_WORK = 20_000;
const MAX_LOOP_ITEMS = 16;
const MAX_PIPE_STAGES = 512;

/** Walks every command of a script and runs the rule checks on each. */
export class Walker {
  readonly findings: GuardFinding[] = [];
  readonly commands: NormalisedCommand[] = [];
  private readonly seen = new Set<string>();
  private readonly seenCommands = new Set<string>();
  private work = 0;
  private exhausted = false;
  /** Functions defined so far: a call walks the body again with its arguments bound. */
  private readonly functions = new Map<string, Stmt>();
  /** Files this command line writes before running them. */
  private readonly files = new WrittenFiles();
  /** Every invocation seen, in order (pipelines read the ones their stages produced). */
  private readonly invocations: Invocation[] = [];
  /** Files holding, and variables holding, the names a find or fd lists. */
  private readonly listingFiles = new ListingFiles();
  private readonly listings = new Listings(this.listingFiles.carried);
  /** git aliases and ugrep configuration set earlier on the line. */
  private readonly settings = new CommandSettings(this.files, (rule, matched) => this.emit(rule, matched));

  /** What scripts.ts needs to run a script's text. */
  private readonly scripts: ScriptHost = { emit: (r, m) => this.emit(r, m), files: this.files, nestedCode: (code, st) => this.nestedCode(code, st) };

  constructor(private readonly reparse: Reparse, private readonly checks: Checks) {}

  readonly emit: Emit = (rule, matched) => {
    const key = rule + '\u0001' + matched;
    if (this.seen.has(key)) return;
    this.seen.add(key);
    this.findings.push(shellFinding(rule, matched));
  };

  run(stmts: readonly Stmt[], cwd: Canon | null = null): void {
    this.stmts(stmts, { cwd, vars: new Map(), depth: 0, funcs: [], upstream: [], piped: false, background: false, stdinFrom: null, loopFactor: 1 });
  }

  private budget(): boolean {
    if (++this.work <= MAX_WORK) return true;
    if (!this.exhausted) this.emit('shell.input.too_complex', 'command expands beyond the checking budget');
    this.exhausted = true;
    return false;
  }

  private stmts(list: readonly Stmt[], st: State): void {
    for (const s of list) this.stmt(s, st);
  }

  private stmt(s: Stmt, st: State): void {
    if (!this.budget()) return;
    let inner = s.background ? copy(st, { background: true }) : st;
    let facts: RedirFact[] = [];
    if (s.cmd.kind !== 'simple') {
      facts = s.redirs.map((r) => redirFact(r, this.ctx(inner), inner.cwd));
      for (const f of facts) this.checks.redirect(f, this.emit);
      // `while read f; do …; done < <(find …)`: what feeds the compound's stdin feeds its commands, like a pipe
      const fed = [...stdinInner(facts), ...this.listingFiles.onStdin(facts)];
      if (fed.length > 0 || printsTo(facts)) inner = { ...inner, upstream: [...inner.upstream, ...fed], feeds: inner.feeds || printsTo(facts) };
    }
    const before = this.invocations.length;
    this.command(s.cmd, s, inner);
    if (facts.length > 0) this.listingFiles.compound(facts, this.invocations.slice(before));
    if (inner !== st && !s.background) st.cwd = inner.cwd;
  }

  private command(c: Command, s: Stmt, st: State): void {
    switch (c.kind) {
      case 'simple': return this.simple(c, s, st);
      case 'andor': for (const part of andOrChain(s)) this.stmt(part, st); return;
      case 'pipe': return this.pipe(c.stages, st);
      case 'subshell': return this.stmts(c.body, copy(st));
      case 'block': return this.stmts(c.body, st);
      case 'if':
        for (const cl of c.clauses) { this.stmts(cl.cond, st); this.stmts(cl.body, st); }
        return this.stmts(c.otherwise, st);
      case 'loop': this.stmts(c.cond, st); return this.stmts(c.body, st);
      case 'for': return this.forLoop(c.name, c.items, c.body, st);
      case 'cfor': for (const e of c.exprs) expand(e, this.ctx(st)); return this.stmts(c.body, st);
      case 'case':
        expand(c.word, this.ctx(st));
        for (const item of c.items) { expandArgs(item.patterns, this.ctx(st)); this.stmts(item.body, st); }
        return;
      case 'func':
        this.functions.set(c.name.toLowerCase(), c.body);
        return this.stmt(c.body, copy(st, { funcs: [...st.funcs, c.name.toLowerCase()] }));
      case 'arith': { const ctx = this.ctx(st); expand(c.expr, ctx); arithmeticValues(c.expr.raw, ctx); return; }
      case 'test': expandArgs(c.words, this.ctx(st)); return;
      case 'coproc': return this.stmt(c.body, copy(st, { background: true }));
    }
  }

  private forLoop(name: string, items: readonly Word[] | null, body: readonly Stmt[], st: State): void {
    const args = items ? expandArgs(items, this.ctx(st)) : [];
    const values = args.map((a) => a.v);
    if (items && values.length > 0 && values.length * st.loopFactor <= MAX_LOOP_ITEMS && values.every(isKnown)) {
      const inner = { ...st, loopFactor: st.loopFactor * values.length };
      for (const v of values) {
        setVar(st, name, v);
        this.stmts(body, inner);
        if (inner.cwd !== st.cwd) st.cwd = inner.cwd;
      }
      return;
    }
    st.vars.delete(name);
    // `for f in $(find ~)`, `for f; do` over listed arguments: f holds the names find lists
    this.listings.mark(st.vars, name, items && items.length > 0 ? this.listings.inWords(items, args, st.vars) : this.listings.of(st.vars, '@'));
    this.stmts(body, st);
  }

  private pipe(stages: readonly Stmt[], st: State): void {
    if (stages.length > MAX_PIPE_STAGES) { this.emit('shell.input.too_complex', `pipeline of ${stages.length} commands`); return; }
    const fed: Invocation[] = [];
    let last: Invocation | null = null;
    for (const [i, stage] of stages.entries()) {
      const before = this.invocations.length;
      this.stmt(stage, copy(st, { piped: true, upstream: [...st.upstream, ...fed], stdinFrom: last, feeds: st.feeds || i < stages.length - 1 }));
      const produced = this.invocations.slice(before);
      fed.push(...produced, ...produced.flatMap((i) => this.listingFiles.relayed(i)));
      last = produced[produced.length - 1] ?? null;
    }
  }

  private ctx(st: State): EvalContext {
    return {
      vars: st.vars,
      cwd: st.cwd,
      walkSubst: (stmts, async = false) => {
        const before = this.invocations.length;
        // `f(){ f <(f) <(f); }`: each call starts copies of itself that run at once, like `f|f&`
        this.stmts(stmts, copy(st, { piped: false, background: async, stdinFrom: null, feeds: true }));
        return this.invocations.slice(before);
      },
      substOutput: (stmts) => substOutput(stmts, st, 0),
      expandsAsCode: (value, text) => {
        if (value === null || !isKnown(value)) this.emit('shell.expansion.prompt', text);
        else this.nestedCode(`: "${value.replace(/["\\]/g, '\\$&')}"`, copy(st));
      },
    };
  }

  private simple(c: Extract<Command, { kind: 'simple' }>, s: Stmt, st: State): void {
    const ctx = this.ctx(st);
    // `let` evaluates its words as arithmetic, which expands variable values (see arithmeticValues)
    if (c.words[0]?.raw === 'let') arithmeticValues(c.words.slice(1).map((w) => w.raw).join(' '), ctx);
    const assigned: [string, string][] = [];
    const listedAssigns: [string, Invocation[]][] = [];
    for (const a of c.assigns) {
      if (a.index) expand(a.index, ctx);
      if (a.array) { expandArgs(a.array, ctx, 'word'); assigned.push([resolveName(st.vars, a.name), UNKNOWN]); continue; }
      const e = a.value ? expand(a.value, ctx, 'assignment') : null;
      const name = resolveName(st.vars, a.name);
      assigned.push([name, e ? e.values.join(' ') : '']);
      // `files=$(find ~)`: the variable holds the names find lists
      if (e && a.value) listedAssigns.push([name, this.listings.inWords([a.value], [{ v: e.values.join(' '), info: e.info }], st.vars)]);
    }
    const redirs = s.redirs.map((r) => redirFact(r, ctx, st.cwd));
    const args = expandArgs(c.words, ctx);
    // values a later prompt or pager runs (PROMPT_COMMAND, LESSOPEN), set for one command or for the shell
    for (const [name, v] of assigned) { const code = variableCode(name, v); if (code !== null) this.nestedCode(code, copy(st)); }
    // git configuration in GIT_CONFIG_KEY_n / GIT_CONFIG_VALUE_n pairs runs like `git -c`
    if (assigned.length > 0) for (const code of envConfigCode(new Map(assigned), st.vars, this.emit)) this.nestedCode(code, copy(st));
    // `LD_PRELOAD=… git status` is not `git status`: an "always" for the one must not cover the other
    if (args.length > 0) for (const [name] of assigned) this.scope('env', name);
    if (args.length === 0) {
      for (const [name, v] of assigned) setVar(st, name, v);
      for (const [name, listers] of listedAssigns) this.listings.mark(st.vars, name, listers);
      for (const r of redirs) this.checks.redirect(r, this.emit);
      // `$(< list)` prints the file: the names a listing file holds
      this.invocations.push(...this.listingFiles.onStdin(redirs));
      return;
    }
    // `cat "$f"` with f read from `find ~ |`, `cat $(find ~)`, `cat < "$f"`: the command is given the names find lists
    const listers = this.listings.inCommand(c.words, args, s.redirs, redirs, st.vars);
    // `xargs cat < list`, `xargs cat < <(find ~)`: what feeds stdin lists names, like a pipe
    const fed = [...this.listingFiles.onStdin(redirs), ...stdinInner(redirs).flatMap(this.listingFiles.carried)];
    const run = listers.length > 0 || fed.length > 0 ? { ...st, listed: [...(st.listed ?? []), ...listers], upstream: [...st.upstream, ...fed] } : st;
    this.argv(args, run, redirs, false, assigned);
    if (run !== st) st.cwd = run.cwd;
  }

  /** Unwraps and checks one command line (also used for find -exec and xargs payloads); `assigned`: its `NAME=VALUE` prefix. */
  private argv(args: readonly Arg[], st: State, redirs: readonly RedirFact[], appendsArgs: boolean, assigned: readonly [string, string][] = []): void {
    let cur = args;
    let cwd = st.cwd;
    let appends = appendsArgs;
    // the variables the command (and, exported, what it starts) sees: `env -i`, `sudo X=1` change them on the way
    let vars = commandVars(st.vars, assigned);
    for (let hop = 0; hop < 32 && cur.length > 0; hop++) {
      const head = cur[0]!;
      const name = this.programOf(head);
      if (name === null) {
        this.record(makeInvocation('', cur.slice(1), { ...st, cwd }, redirs, appends));
        return;
      }
      // aliases set earlier for git, ugrep's configuration file: given first
      cur = this.settings.apply(name, cur, vars, cwd);
      // code in option values (`tar --to-command=…`, `vim -c '!…'`) runs like `sh -c`
      for (const code of embeddedCode(name, cur.slice(1), this.emit, vars, (f) => fileText(this.files, f, cwd))) this.nestedCode(code, copy(st, { cwd, vars: childVars(vars), upstream: [], stdinFrom: null }));
      const u = printsOnly(name, cur.slice(1), st.feeds ?? false, redirs) ? PRINTS_ONLY : unwrapOnce(name, cur.slice(1));
      if (detaches(name, cur.slice(1), u)) this.emit('shell.process.detach', cur.map((a) => showArg(a.v)).join(' ').slice(0, 200));
      if (!u) break;
      // `sudo -u nobody git status` is not `git status` either: the wrapper is a scope of its own
      this.scope(name);
      // `xargs -a FILE`, `parallel CMD :::: FILE`: FILE is read like `cat FILE` (its lines are the arguments)
      for (const read of argFileReads(name, cur.slice(1), cwd, st.depth)) this.checks.invocation(read, this.emit);
      if (name === 'xargs' && u.rest.length > 0) {
        // text echoed from a listing (`find ~ | while read f; do echo "$f"; done | xargs cat`) is not static
        const input = st.upstream.some(isLister) ? null : stdinText(redirs, st);
        const lines = input === null ? null : xargsCommandLines(cur.slice(1, cur.length - u.rest.length), u.rest, input);
        if (lines) {
          for (const line of lines.slice(0, MAX_LOOP_ITEMS)) this.argv(line, copy(st, { cwd, vars: new Map(vars), stdinFrom: null }), [], appends);
          return;
        }
      }
      const rest = name === 'xargs' ? xargsPlaceholders(cur.slice(1, cur.length - u.rest.length), u.rest) : u.rest;
      // `xargs -a list CMD`: the names a listing file holds are its arguments
      const fromFile = name === 'xargs' ? this.listingFiles.argFile(cur.slice(1, cur.length - u.rest.length), cwd) : [];
      if (fromFile.length > 0) st = { ...st, upstream: [...st.upstream, ...fromFile] };
      if (u.chdir) cwd = canonical(u.chdir.v, cwd);
      // `X=1 sudo sh -c '…$X…'`: sudo may reset the environment (env_reset) or keep X (env_keep), `su -` resets it and starts in the target's home: judged both ways
      const reset = u.remote ? null : resetEnv(name, cur.slice(1), vars, cwd);
      if (reset && u.rest.length > 0) this.argv(u.rest, copy(st, reset), redirs, appends || u.appendsArgs);
      vars = wrapperVars(name, cur.slice(1), vars);
      const runs = [{ cwd: u.remote ? HOME_DIR : cwd, vars: u.remote ? new Map<string, string>() : vars }, ...(reset ? [reset] : [])];
      // `find ~ | parallel cat`, `parallel cat :::: list`: the code's `$__unknown` (its `{}`) holds the names listed
      const inputs = this.listingFiles.parallelInputs(name, cur.slice(1), st.upstream, cwd);
      if (u.code !== null) for (const r of runs) this.nestedCode(u.code, copy(st, { cwd: r.cwd, vars: this.listings.mark(childVars(r.vars), '__unknown', inputs) }));
      appends ||= u.appendsArgs;
      if (u.rest.length === 0 || u.remote) {
        this.record(makeInvocation(name, u.code !== null ? [] : cur.slice(1), { ...st, cwd }, redirs, appends));
        // the shell it starts reads the script on stdin: judged as `sh` reading it
        for (const r of u.code === null && !u.remote && u !== PRINTS_ONLY && startsShell(name, cur.slice(1)) ? runs : []) {
          const local = copy(st, { cwd: r.cwd, vars: new Map(r.vars) });
          const shell = makeInvocation('sh', [], local, redirs, appends);
          this.special(shell, local, { v: 'sh', info: head.info });
          this.record(shell);
        }
        return;
      }
      cur = rest;
    }
    if (cur.length === 0) return;
    const head = cur[0]!;
    const names = this.candidates(head);
    const local = copy(st, { cwd, vars: new Map(vars) });
    for (const program of names) {
      const inv = makeInvocation(program, cur.slice(1), local, redirs, appends);
      this.special(inv, local, head);
      this.record(inv);
      this.callFunction(inv, local);
    }
    if (cwd === st.cwd) trackState(names[0] ?? '', cur.slice(1), st);
    // `find ~ | while read f`, `mapfile -t a < <(find ~)`: what it reads are the names find lists
    for (const n of readTargets(names[0] ?? '', cur.slice(1))) this.listings.mark(st.vars, n, stdinListers(st.upstream, redirs));
  }

  /** Resolves the program word; flags computed names. Null when it cannot be known at all. */
  private programOf(head: Arg): string | null {
    const name = programName(head.v);
    if (head.info.computed || hasGlob(head.v) || name === null) {
      this.emit('shell.program.computed', head.info.raw);
      if (head.info.inner.some(carriesDownload)) this.emit('shell.download.exec', head.info.raw);
    }
    return name;
  }

  private candidates(head: Arg): string[] {
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
    const found = this.checks.programsMatching(re);
    return found.length > 0 ? [...found] : [name];
  }

  /** A command the call runs, once each: what a persistent approval is scoped to (SPEC §5 step 9). */
  private scope(program: string, sub?: string): void {
    const key = program + '\u0001' + (sub ?? '');
    if (this.seenCommands.has(key)) return;
    this.seenCommands.add(key);
    this.commands.push(sub === undefined ? { program } : { program, subcommand: sub });
  }

  private record(given: Invocation): void {
    const inv = this.listingFiles.withNameLists(given);
    this.invocations.push(inv);
    if (inv.program === '') return;
    this.scope(inv.program, subcommandOf(inv));
    this.checks.invocation(inv, this.emit);
    for (const r of inv.redirs) this.checks.redirect(r, this.emit);
    this.files.remember(inv);
    this.listingFiles.remember(inv);
  }

  /** Commands whose arguments are themselves code: shells, eval, trap, alias, find -exec. */
  private special(inv: Invocation, st: State, head: Arg): void {
    if (head.v.includes('/')) runsFile(this.scripts, head, st, inv.program, true);
    // a script runs in a new process, which sees only what is exported; `source` and `eval` run it in this shell
    const view = interpreterView(inv);
    const runner = view && view.family !== 'source' && view.family !== 'eval' ? childState(st) : st;
    if (st.funcs.includes(inv.program) && (st.piped || st.background)) this.emit('shell.process.fork_bomb', `${inv.program}() calling itself in a pipeline or background`);
    const dialect = view?.family === 'shell' ? otherDialect(inv, view.inline && view.code ? plain(view.code.v) : view.readsStdin ? inv.stdinText : null) : null;
    if (dialect !== null) this.emit('shell.input.dialect', dialect);
    if (view?.family === 'shell' && view.inline && view.code) {
      const vars = runner.vars;
      view.positional.forEach((a, i) => vars.set(String(i), a.v));
      // xargs and find -exec append arguments the guard cannot see
      vars.set('@', [...view.positional.slice(1).map((a) => a.v), ...(inv.appendsArgs ? [UNKNOWN] : [])].join(FIELD_SPLIT));
      this.listings.positional(vars, view.positional.map((a) => a.v), inv);
      // `sh -c "cat '{}'"` from xargs -I or find -exec: the name stays unknown inside the code's quotes
      this.nestedCode(codeText(view.code.v), copy(runner, { upstream: [], stdinFrom: null }));
    } else if ((view?.family === 'shell' || view?.family === 'source') && view.readsStdin && inv.stdinText !== null) {
      this.nestedCode(inv.stdinText, copy(runner, { upstream: [], stdinFrom: null }));
    } else if (view?.family === 'eval' && view.code) {
      this.nestedCode(plain(view.code.v), st);
    }
    if (view?.script && isFdPath(view.script.v)) scriptFromSubstitution(this.scripts, view.script, runner, inv);
    else if (view?.script) runsFile(this.scripts, view.script, runner, inv.program);
    if ((view?.family === 'shell' || view?.family === 'source') && view.readsStdin && inv.stdinText === null) scriptOnStdin(this.scripts, inv, runner);
    this.scheduled(inv, st);
    // alias values, trap actions, git -c core.pager=…, printf -v LESSOPEN … run as shell code
    for (const code of argumentCode(inv, this.emit, st.vars)) this.nestedCode(code, copy(st));
    this.settings.remember(inv);
    const alias = aliasShell(inv, st);
    if (alias) this.nestedCode(...alias);
    // `find -exec CMD {} ;`, `fd -x CMD`, `rg --pre CMD`: CMD runs on each file found
    for (const sub of perFileCommands(inv)) this.argv(sub, copy(st, { piped: false, ...(isLister(inv) ? { listed: [inv] } : {}) }), [], true);
  }

  /** `echo '* * * * * CMD' | crontab -`, `at now < job.sh`: the commands it installs to run later, when they can be seen. */
  private scheduled(inv: Invocation, st: State): void {
    const s = scheduledSource(inv);
    if (!s) return;
    const text = s.from === 'stdin' ? inv.stdinText : this.files.lookup(canonical(s.from.v, inv.cwd));
    if (text === DOWNLOADED || (s.from === 'stdin' && inv.upstream.some(isDownloadOrDecode))) this.emit('shell.download.exec', inv.text);
    else if (typeof text === 'string') {
      // cron runs a job in the home directory with an environment of its own; at keeps the directory and the exported variables
      const cron = s.format === 'crontab';
      this.nestedCode(cron ? cronCommands(text).join('\n') : text, copy(st, { cwd: cron ? HOME_DIR : st.cwd, vars: cron ? new Map() : childVars(st.vars), upstream: [], stdinFrom: null }));
    }
  }

  private callFunction(inv: Invocation, st: State): void {
    const body = this.functions.get(inv.program);
    // a call without arguments at the top adds nothing to the walk at its definition; inside another function's body it may close a cycle (a calls b, b calls a), which only walking it shows
    if (!body || st.funcs.includes(inv.program) || (inv.args.length === 0 && st.funcs.length === 0)) return;
    const vars = new Map(st.vars);
    inv.args.forEach((a, i) => vars.set(String(i + 1), a.v));
    vars.set('@', inv.args.map((a) => a.v).join(FIELD_SPLIT));
    this.listings.positional(vars, [inv.program, ...inv.args.map((a) => a.v)], inv);
    this.stmt(body, copy(st, { vars, funcs: [...st.funcs, inv.program], listed: [] }));
  }

  /** Checks code found inside a command, one re-parse level deeper. */
  private nestedCode(code: string, st: State): void {
    if (st.depth + 1 > MAX_CODE_DEPTH) { this.emit('shell.input.too_complex', code); return; }
    if (!this.budget()) return;
    const stmts = this.reparse(code);
    if (!stmts) { this.emit('shell.input.unparseable', code); return; }
    this.stmts(stmts, copy(st, { depth: st.depth + 1, listed: [] }));
  }
}
