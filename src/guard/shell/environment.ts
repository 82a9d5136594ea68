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

/**
 * Wrappers that start the command with a reset environment: sudo (env_reset, unless -E or --preserve-env, which with a
 * list keeps only the names listed), doas and pkexec. What the site's configuration keeps (sudoers env_keep, doas
 * keepenv) cannot be seen, so an exported variable may or may not reach the command.
 */
const ENV_RESETTERS: Readonly<Record<string, readonly string[]>> = { sudo: ['E', 'preserve-env'], doas: [], pkexec: [] };

/**
 * The variables a wrapped command sees if its wrapper resets the environment (`X=1 sudo sh -c …` may run without X): the
 * exported ones dropped, but those the wrapper keeps or sets itself; null when nothing would be dropped.
 */
export function resetVars(name: string, args: readonly Arg[], vars: Map<string, string>): Map<string, string> | null {
  const keeps = ENV_RESETTERS[name];
  if (!keeps) return null;
  const p = parseOptions(args, WRAPPERS[name] ?? {});
  const lists = valuesOf(p, ...keeps);
  if (has(p, ...keeps) && lists.length === 0) return null;
  const kept = new Set(lists.flatMap((a) => (literal(a.v) ?? '').split(',')));
  const out = new Map(vars);
  let dropped = false;
  for (const k of vars.keys()) {
    if (!NAME.test(k) || kept.has(k) || !isExported(vars, k)) continue;
    out.delete(k);
    setExported(out, k, false);
    dropped = true;
  }
  return dropped ? wrapperVars(name, args, out) : null;
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
