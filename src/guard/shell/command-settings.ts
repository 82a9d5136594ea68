import { childVars } from './environment.ts';
import { configAlias, envAliases, gitAliasOptions } from './git-config.ts';
import { gitCommand } from './git-command.ts';
import type { Arg, Emit, Invocation } from './model.ts';
import { canonical, type Canon } from './paths.ts';
import { copy, isExported, type State } from './shell-state.ts';
import { withUgrepConfig } from './ugrep.ts';
import { FIELD_SPLIT, plain } from './values.ts';
import type { WrittenFiles } from './written-files.ts';

/** Settings made earlier on the command line that change what a later command runs: git aliases, ugrep's configuration file. */
export class CommandSettings {
  /** Aliases `git config alias.NAME VALUE` set, by lower-case name. */
  private readonly aliases = new Map<string, Arg>();

  constructor(private readonly files: WrittenFiles, private readonly emit: Emit) {}

  /** `git config alias.NAME VALUE` (or `--unset`): remembered for the git commands after it. */
  remember(inv: Invocation): void {
    const set = configAlias(inv);
    if (set?.value) this.aliases.set(set.name, set.value);
    else if (set) this.aliases.delete(set.name);
  }

  /**
   * A command line with the settings it runs with given first: for git, the aliases set earlier and those in its
   * environment as `-c alias.NAME=VALUE` (see gitCommand); for ugrep, the options of its configuration file.
   */
  apply(name: string, cur: readonly Arg[], vars: ReadonlyMap<string, string>, cwd: Canon | null): readonly Arg[] {
    const head = cur[0]!;
    if (name === 'git') {
      const env = envAliases(vars, (n) => isExported(vars, n)).map(([n, v]): [string, Arg] => [n, { v, info: { ...head.info, computed: true, raw: v } }]);
      const options = gitAliasOptions([...this.aliases, ...env]);
      return options.length > 0 ? [head, ...options, ...cur.slice(1)] : cur;
    }
    const tail = cur.slice(1);
    const rest = withUgrepConfig(name, tail, (f) => this.files.lookup(canonical(f, cwd)), this.emit);
    return rest === tail ? cur : [head, ...rest];
  }
}

/** The `!` alias a git command runs, as git runs it: `sh -c 'CODE "$@"'` with the words after it, from the top of the work tree. */
export function aliasShell(inv: Invocation, st: State): [string, State] | null {
  const alias = inv.program === 'git' ? gitCommand(inv.args).shell : undefined;
  if (!alias) return null;
  const vars = childVars(st.vars);
  alias.args.forEach((a, i) => vars.set(String(i + 1), a.v));
  vars.set('@', alias.args.map((a) => a.v).join(FIELD_SPLIT));
  return [plain(alias.code) + (alias.args.length > 0 ? ' "$@"' : ''), copy(st, { cwd: null, vars, upstream: [], stdinFrom: null })];
}
