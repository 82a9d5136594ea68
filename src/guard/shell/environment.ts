import { has, parseOptions, valuesOf } from './flags.ts';
import type { Arg } from './model.ts';
import type { Canon } from './paths.ts';
import { suEnvironment } from './su-family.ts';
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
 * keepenv) cannot be seen, so an exported variable may or may not reach the command. su, runuser, run0 and machinectl
 * shell reset it as su-family.ts says.
 */
const ENV_RESETTERS: Readonly<Record<string, readonly string[]>> = { sudo: ['E', 'preserve-env'], doas: [], pkexec: [] };

/** The exported variables but those kept dropped from `vars`; null when none would be. */
function dropExported(vars: Map<string, string>, keep: (name: string) => boolean): Map<string, string> | null {
  const out = new Map(vars);
  let dropped = false;
  for (const k of vars.keys()) {
    if (!NAME.test(k) || keep(k) || !isExported(vars, k)) continue;
    out.delete(k);
    setExported(out, k, false);
    dropped = true;
  }
  return dropped ? out : null;
}

/** `--setenv=NAME=VALUE` sets NAME; `--setenv=NAME` passes NAME on as it is. */
function setenv(vars: Map<string, string>, from: Map<string, string>, given: readonly Arg[]): Map<string, string> {
  const assigned: [string, string][] = [];
  for (const a of given) {
    const m = /^([A-Za-z_][A-Za-z0-9_]*)(=?)/.exec(a.v);
    if (!m) continue;
    const v = m[2] ? a.v.slice(m[0].length) : from.get(m[1]!);
    if (v !== undefined) assigned.push([m[1]!, v]);
  }
  return commandVars(vars, assigned);
}

/**
 * The variables and directory a wrapped command starts with if its wrapper resets the environment (`X=1 sudo sh -c …`
 * may run without X, `su - -c …` does, in the target's home): the exported ones dropped, but those the wrapper keeps or
 * sets itself; null when nothing would change.
 */
export function resetEnv(name: string, args: readonly Arg[], vars: Map<string, string>, cwd: Canon | null): { vars: Map<string, string>; cwd: Canon | null } | null {
  const su = suEnvironment(name, args, cwd);
  if (su) {
    const out = dropExported(vars, (k) => su.keep(k) || su.set.some((a) => a.v === k || a.v.startsWith(`${k}=`)));
    return out || su.cwd !== cwd ? { vars: setenv(out ?? vars, vars, su.set), cwd: su.cwd } : null;
  }
  const keeps = ENV_RESETTERS[name];
  if (!keeps) return null;
  const p = parseOptions(args, WRAPPERS[name] ?? {});
  const lists = valuesOf(p, ...keeps);
  if (has(p, ...keeps) && lists.length === 0) return null;
  const kept = new Set(lists.flatMap((a) => (literal(a.v) ?? '').split(',')));
  const out = dropExported(vars, (k) => kept.has(k));
  return out ? { vars: wrapperVars(name, args, out), cwd } : null;
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
