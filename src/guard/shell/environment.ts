import { has, parseOptions, valuesOf } from './flags.ts';
import type { Arg } from './model.ts';
import { assignVar, copy, isExported, setExported, type State } from './shell-state.ts';
import { literal } from './values.ts';
import { WRAPPERS } from './wrapper-tables.ts';

/**
 * The environment of a new process: a command sees the shell's variables and its own assignments (`X=1 cmd`,
 * `env X=1 cmd`); a shell it starts (`bash -c`, `sh script`, `watch …`) gets only what is exported.
 */

const NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** The variables a command runs with: the shell's, with its prefix assignments set and exported. */
export function commandVars(vars: Map<string, string>, assigned: readonly (readonly [string, string])[]): Map<string, string> {
  if (assigned.length === 0) return vars;
  const out = new Map(vars);
  for (const [name, v] of assigned) {
    assignVar(out, name, v);
    setExported(out, name, true);
  }
  return out;
}

/** `env [-i] [-u NAME] NAME=VALUE… CMD`, `sudo NAME=VALUE… CMD`: the variables CMD runs with (`vars` when unchanged). */
export function wrapperVars(name: string, args: readonly Arg[], vars: Map<string, string>): Map<string, string> {
  const spec = WRAPPERS[name];
  if (!spec?.assignments) return vars;
  const p = parseOptions(args, spec);
  const cleared = name === 'env' && (has(p, 'i', 'ignore-environment') || literal(p.operands[0]?.v ?? '') === '-');
  const unset = name === 'env' ? valuesOf(p, 'u', 'unset') : [];
  const ops = p.operands.slice(literal(p.operands[0]?.v ?? '') === '-' ? 1 : 0);
  const assigned: [string, string][] = [];
  for (const a of ops) {
    const m = /^([A-Za-z_][A-Za-z0-9_]*)=/.exec(a.v);
    if (!m) break;
    assigned.push([m[1]!, a.v.slice(m[0].length)]);
  }
  if (!cleared && unset.length === 0 && assigned.length === 0) return vars;
  const out = cleared ? new Map<string, string>() : new Map(vars);
  for (const u of unset) { out.delete(u.v); setExported(out, u.v, false); }
  return commandVars(out, assigned);
}

/** What a child process inherits: the exported variables (see isExported), exported in it too. */
export function childVars(vars: ReadonlyMap<string, string>): Map<string, string> {
  const out = new Map<string, string>();
  for (const [k, v] of vars) {
    if (!NAME.test(k) || !isExported(vars, k)) continue;
    out.set(k, v);
    setExported(out, k, true);
  }
  return out;
}

/** The state a new shell process starts in: the same place, with the environment it inherits. */
export const childState = (st: State, over: Partial<State> = {}): State => copy(st, { vars: childVars(st.vars), ...over });
