import { ProgramNames } from './renamed-programs.ts';
import type { GuardFinding, NormalisedCommand } from '../types.ts';
import { walkCommandLine } from './command-line.ts';
import { CommandSettings } from './command-settings.ts';
import { variableCode } from './code-values.ts';
import { arithmeticValues, expand, expandArgs, type EvalContext } from './evaluate.ts';
import { envConfigCode } from './git-config.ts';
import { ListingFiles } from './listing-files.ts';
import { Listings, stdinInner } from './listings.ts';
import type { Arg, Emit, Invocation, RedirFact } from './model.ts';
import type { Canon } from './paths.ts';
import { shellFinding } from './rules.ts';
import { assignValues, copy, resolveName, setVar, substOutput, type State } from './shell-state.ts';
import { arrayValues } from './builtin-values.ts';
import { subcommandOf } from './static-output.ts';
import { gitScope, type GitScope } from './git-scope.ts';
import type { Command, Stmt, Word } from './syntax/ast.ts';
import { FIELD_SPLIT, UNKNOWN, isKnown } from './values.ts';
import { MAX_LOOP_ITEMS, andOrChain, printsTo, redirFact, type Checks, type ProgramFile, type Reparse, type WalkHost } from './walk-support.ts';
import { WrittenFiles } from './written-files.ts';

/** How deep `bash -c "bash -c …"` may nest before the guard stops and asks. */
export const MAX_CODE_DEPTH = 8;
/** Bound on commands examined for one input (loops are walked per item). */
const MAX_WORK = 20_000;
const MAX_PIPE_STAGES = 512;

/** Walks every command of a script and runs the rule checks on each: statements, compound commands, loops, pipelines, functions. */

/** Compound commands whose parts may not all run. */
const MAY_NOT_RUN: ReadonlySet<Command['kind']> = new Set(['andor', 'if', 'loop', 'for', 'cfor', 'case']);
export class Walker implements WalkHost {
  readonly findings: GuardFinding[] = [];
  readonly commands: NormalisedCommand[] = [];
  private readonly seen = new Set<string>();
  private readonly seenCommands = new Set<string>();
  private work = 0;
  private exhausted = false;
  /** Functions defined so far: a call walks the body again with its arguments bound. */
  private readonly functions = new Map<string, Stmt>();
  /** Aliases, hashed names and copies of programs made so far. */
  private readonly names = new ProgramNames();
  /** Files this command line writes before running them. */
  readonly files = new WrittenFiles();
  /** Every invocation seen, in order (pipelines read the ones their stages produced). */
  private readonly invocations: Invocation[] = [];
  /** Files holding, and variables holding, the names a find or fd lists. */
  readonly listingFiles = new ListingFiles();
  readonly listings = new Listings(this.listingFiles.carried);
  readonly settings = new CommandSettings(this.files, (rule, matched) => this.emit(rule, matched));

  constructor(private readonly reparse: Reparse, readonly checks: Checks) {}

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
    if (inner !== st && !s.background) { st.cwd = inner.cwd; st.cwdGuessed = inner.cwdGuessed; }
  }

  private command(c: Command, s: Stmt, st: State): void {
    const before = st.cwd;
    this.commandOnce(c, s, st);
    // a `cd` in a branch, a loop or after `&&`/`||` may not have run: later commands are judged where it leads (what
    // the line wrote there is read), but an "always" for `./build.sh` must not be matched from a guessed directory
    if (MAY_NOT_RUN.has(c.kind) && st.cwd !== before) st.cwdGuessed = true;
  }

  private commandOnce(c: Command, s: Stmt, st: State): void {
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
      assignDefault: (name, value) => setVar(st, name, value),
    };
  }

  private simple(c: Extract<Command, { kind: 'simple' }>, s: Stmt, st: State): void {
    const ctx = this.ctx(st);
    // `let` evaluates its words as arithmetic, which expands variable values (see arithmeticValues)
    if (c.words[0]?.raw === 'let') arithmeticValues(c.words.slice(1).map((w) => w.raw).join(' '), ctx);
    const assigned: [string, string][] = [];
    const arrays: [string, string][][] = [];
    const listedAssigns: [string, Invocation[]][] = [];
    for (const a of c.assigns) {
      if (a.index) expand(a.index, ctx);
      if (a.array) {
        const elements = expandArgs(a.array, ctx, 'word').map((e) => e.v);
        const name = resolveName(st.vars, a.name);
        assigned.push([name, UNKNOWN]);
        // `x=(/etc/shadow); cat ${x[0]}`: the elements, kept once the line assigns them for good (below)
        arrays.push(arrayValues(name, elements));
        continue;
      }
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
    for (const [name, v] of assigned) this.checks.assignment(name, v, this.emit);
    // git configuration in GIT_CONFIG_KEY_n / GIT_CONFIG_VALUE_n pairs runs like `git -c`
    if (assigned.length > 0) for (const code of envConfigCode(new Map(assigned), st.vars, this.emit)) this.nestedCode(code, copy(st));
    // `LD_PRELOAD=… git status` is not `git status`: an "always" for the one must not cover the other
    if (args.length > 0) for (const [name] of assigned) this.scope('env', name);
    if (args.length === 0) {
      for (const [name, v] of assigned) setVar(st, name, v);
      for (const pairs of arrays) assignValues(st.vars, pairs);
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
    // `alias ls=rm; ls -rf /`, `ln -s /bin/rm x; ./x -rf /`: judged as what the name was given to as well
    const renamed = this.names.renamed(args, st.cwd, st.funcs);
    if (renamed) this.nestedCode(renamed.code, copy(st, { funcs: [...st.funcs, renamed.marker] }));
    this.commandLine(args, run, redirs, false, assigned);
    if (run !== st) st.cwd = run.cwd;
  }

  commandLine(args: readonly Arg[], st: State, redirs: readonly RedirFact[], appendsArgs: boolean, assigned: readonly [string, string][] = []): void {
    walkCommandLine(this, args, st, redirs, appendsArgs, assigned);
  }

  scope(program: string, sub?: string, file?: ProgramFile, context?: GitScope | null): void {
    // `./build.sh` is that file, not every build.sh: its path is the scope (null: a place nobody can know)
    const named: NormalisedCommand = file === undefined ? { program } : file === null ? { program, file: false } : { program: file, file: true };
    // `git -C sub status`: what picks the repository is part of the scope; unseen, there is none (see git-scope.ts)
    const ctx: Partial<NormalisedCommand> = context === null ? { unscoped: true }
      : context && context.env.length + context.options.length > 0 ? { ...(context.env.length > 0 ? { env: context.env } : {}), ...(context.options.length > 0 ? { options: context.options } : {}) } : {};
    const key = [named.program, sub ?? '', String(file === undefined ? '' : file !== null), JSON.stringify(ctx)].join('\u0001');
    if (this.seenCommands.has(key)) return;
    this.seenCommands.add(key);
    this.commands.push({ ...named, ...(sub === undefined ? {} : { subcommand: sub }), ...ctx });
  }

  record(given: Invocation, file?: ProgramFile, vars?: ReadonlyMap<string, string>): void {
    const inv = this.listingFiles.withNameLists(given);
    this.invocations.push(inv);
    if (inv.program === '') return;
    this.scope(inv.program, subcommandOf(inv), file, inv.program === 'git' ? gitScope(inv.args, vars ?? new Map()) : undefined);
    this.checks.invocation(inv, this.emit);
    for (const r of inv.redirs) this.checks.redirect(r, this.emit);
    this.files.remember(inv);
    this.listingFiles.remember(inv);
    this.names.remember(inv);
  }

  callFunction(inv: Invocation, st: State): void {
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
  nestedCode(code: string, st: State): void {
    if (st.depth + 1 > MAX_CODE_DEPTH) { this.emit('shell.input.too_complex', code); return; }
    if (!this.budget()) return;
    const stmts = this.reparse(code);
    if (!stmts) { this.emit('shell.input.unparseable', code); return; }
    this.stmts(stmts, copy(st, { depth: st.depth + 1, listed: [] }));
  }
}
