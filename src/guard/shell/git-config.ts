import { CONFIG_HOME_READERS, ENV_CODE_OPTIONS, ENV_UNSEEN, PRELOAD_VARIABLES, SYSTEM_LIBRARY, GIT_CONFIG_CODE, GIT_CONFIG_UNSEEN, GIT_EXT_URL, GIT_HOME_UNSEEN, GIT_PROTOCOL_LIST, NOWHERE } from './code-tables.ts';
import { codeOf, variableCode } from './code-values.ts';
import { INPUT_GIT_KEYS, INPUT_VARIABLES, checkInputRunner } from './input-runners.ts';
import { has, parseOptions, valuesOf, type OptionSpec } from './flags.ts';
import { gitCommand } from './git-command.ts';
import type { Arg, Emit, Invocation } from './model.ts';
import { canonical, showCanon } from './paths.ts';
import { checkPathVariable } from './path-variable.ts';
import { GIT_GLOBAL } from './program-tables.ts';
import { UNKNOWN, display, isKnown, literal, plain } from './values.ts';

/** Git configuration that runs commands, wherever it is set: `-c`, `--config-env`, the environment, `git config`. */

const UNSEEN = 'shell.code.unseen_setting';

/** The table keys a configuration key answers to: section and name are case-insensitive, a subsection is not (but is lowered in the full key, to be safe). */
function tableKeys(key: string): string[] {
  const first = key.indexOf('.');
  const last = key.lastIndexOf('.');
  if (first <= 0 || last === key.length - 1) return [];
  const section = key.slice(0, first).toLowerCase();
  const name = key.slice(last + 1).toLowerCase();
  return first === last ? [`${section}.${name}`, `${section}.*`] : [key.toLowerCase(), `${section}.*.${name}`, `${section}.*`];
}

/** `url.<BASE>.insteadOf`: URLs are rewritten to start with BASE, so an `ext::` BASE is a command git runs. */
function rewrittenTo(key: string): string | null {
  const m = /^url\.(.*)\.(?:push)?insteadof$/is.exec(key);
  return m ? codeOf(m[1]!, GIT_EXT_URL)?.shell ?? null : null;
}

/**
 * Shell code one setting carries (`core.pager` → its value, an `ext::` URL → its command), to be walked like `sh -c`.
 * A key or value the guard cannot see (null), and a hooks directory or included file anywhere but /dev/null (see
 * GIT_CONFIG_UNSEEN), are flagged instead.
 * A value with unknown parts is walked as it is, like `GIT_PAGER="$X"`.
 */
function settingCode(key: string | null, value: string | null, shown: string, emit: Emit): string[] {
  if (key === null) { emit(UNSEEN, shown); return []; }
  const keys = tableKeys(key);
  const unseen = keys.map((k) => GIT_CONFIG_UNSEEN[k]).find((fine) => fine !== undefined);
  if (unseen) {
    const v = value === null ? null : literal(value);
    if (v === null || !(unseen.includes(v) || unseen.includes(v.toLowerCase()))) emit(UNSEEN, shown);
    return [];
  }
  const rewrite = rewrittenTo(key);
  if (rewrite !== null) return [rewrite];
  const how = keys.map((k) => GIT_CONFIG_CODE[k]).find((h) => h !== undefined);
  if (!how) return [];
  if (value === null) { emit(UNSEEN, shown); return []; }
  const code = codeOf(plain(value), how)?.shell;
  // `core.pager=sh`: a pager or editor that is a shell runs what git gives it
  if (code !== undefined && keys.some((k) => INPUT_GIT_KEYS.has(k))) checkInputRunner(shown, code, emit);
  return code === undefined ? [] : [code];
}

/** `KEY=VALUE` as `-c` and GIT_CONFIG_PARAMETERS give it: the key ends at the first `=`; no `=` is a boolean. */
function entryCode(entry: string, shown: string, emit: Emit): string[] {
  const eq = entry.indexOf('=');
  const key = eq < 0 ? entry : entry.slice(0, eq);
  return settingCode(literal(key), eq < 0 ? 'true' : entry.slice(eq + 1), shown, emit);
}

/** `git config` options that read, list, remove or rename rather than set a value (git accepts prefixes of them). */
const CONFIG_SPEC: OptionSpec = {
  short: 'f', long: ['file', 'blob', 'type', 'default', 'comment', 'value', 'url'],
  flags: ['get', 'get-all', 'get-regexp', 'get-urlmatch', 'get-color', 'get-colorbool', 'list', 'unset', 'unset-all', 'rename-section',
    'remove-section', 'edit', 'add', 'replace-all', 'global', 'system', 'local', 'worktree', 'show-origin', 'show-scope', 'name-only', 'null',
    'includes', 'no-includes', 'bool', 'int', 'bool-or-int', 'path', 'expiry-date', 'fixed-value', 'all', 'regexp', 'no-type'],
};
const CONFIG_NOT_SETTING = ['get', 'get-all', 'get-regexp', 'get-urlmatch', 'get-color', 'get-colorbool', 'list', 'l', 'unset', 'unset-all', 'rename-section', 'remove-section', 'edit', 'e'];
const CONFIG_VERBS_NOT_SETTING = new Set(['get', 'list', 'unset', 'rename-section', 'remove-section', 'edit']);

/** `git config [--global] KEY VALUE`, `git config set KEY VALUE`: the code every later git command will run. */
function configWrite(words: readonly Arg[], emit: Emit): string[] {
  const p = parseOptions(words, CONFIG_SPEC);
  if (has(p, ...CONFIG_NOT_SETTING)) return [];
  let ops = p.operands;
  const verb = literal(ops[0]?.v ?? '');
  if (verb === 'set') ops = ops.slice(1);
  else if (verb !== null && CONFIG_VERBS_NOT_SETTING.has(verb)) return [];
  if (ops.length < 2) return [];
  const shown = `git config ${display(ops[0]!.v)} ${display(ops[1]!.v)}`;
  // an alias whose value the guard cannot see may be a `!` alias: shell code every later `git NAME` runs
  if (/^alias\./i.test(literal(ops[0]!.v) ?? '') && ops[1]!.v.trimStart().startsWith(UNKNOWN)) emit(UNSEEN, shown);
  return settingCode(literal(ops[0]!.v), ops[1]!.v, shown, emit);
}

/** `git config [--global] alias.NAME VALUE` (`set`), `--unset alias.NAME`: the alias it sets (value null: removed), by lower-case name. */
export function configAlias(inv: Invocation): { readonly name: string; readonly value: Arg | null } | null {
  if (inv.program !== 'git') return null;
  const words = gitCommand(inv.args).words;
  if (literal(words[0]?.v ?? '') !== 'config') return null;
  const p = parseOptions(words.slice(1), CONFIG_SPEC);
  let ops = p.operands;
  const verb = literal(ops[0]?.v ?? '');
  if (verb === 'set' || verb === 'unset') ops = ops.slice(1);
  const unset = verb === 'unset' || has(p, 'unset', 'unset-all');
  if (!unset && (has(p, ...CONFIG_NOT_SETTING) || (verb !== null && CONFIG_VERBS_NOT_SETTING.has(verb)) || ops.length < 2)) return null;
  const name = /^alias\.(.+)$/is.exec(literal(ops[0]?.v ?? '') ?? '')?.[1]?.toLowerCase();
  return name === undefined ? null : { name, value: unset ? null : ops[1]! };
}

const COUNT = 'GIT_CONFIG_COUNT';

/**
 * How many GIT_CONFIG_KEY_n / GIT_CONFIG_VALUE_n pairs git reads: those below GIT_CONFIG_COUNT (0 and a count git cannot
 * parse, like `x` or `-1`, which stops it: none). git reads none without a count, but one this line does not set may
 * be in the environment it inherits (or set by an earlier line written to the same shell), and a computed one may be
 * any: then every pair is judged, as if git read it.
 */
function envConfigCount(v: string | undefined): number {
  if (v === undefined || !isKnown(v)) return Infinity;
  const m = /^\s*\+?(\d+)$/.exec(literal(v) ?? '');
  return m ? Number(m[1]) : 0;
}

/** Aliases in the environment git gets: GIT_CONFIG_KEY_n / GIT_CONFIG_VALUE_n pairs below GIT_CONFIG_COUNT and GIT_CONFIG_PARAMETERS, exported. */
export function envAliases(vars: ReadonlyMap<string, string>, exported: (name: string) => boolean): [string, string][] {
  const out: [string, string][] = [];
  const count = envConfigCount(exported(COUNT) ? vars.get(COUNT) : undefined);
  for (const [name, key] of vars) {
    const n = /^GIT_CONFIG_KEY_(\d+)$/.exec(name)?.[1];
    const alias = n === undefined || Number(n) >= count ? undefined : /^alias\.(.+)$/is.exec(literal(key) ?? '')?.[1];
    const value = vars.get(`GIT_CONFIG_VALUE_${n}`);
    if (alias !== undefined && value !== undefined && exported(name) && exported(`GIT_CONFIG_VALUE_${n}`)) out.push([alias.toLowerCase(), value]);
  }
  const params = vars.get('GIT_CONFIG_PARAMETERS');
  if (params !== undefined && isKnown(params) && exported('GIT_CONFIG_PARAMETERS')) {
    for (const m of params.matchAll(PARAMETER)) {
      const alias = /^alias\.(.+)$/is.exec(unquote(m[1]!))?.[1];
      if (alias !== undefined && m[2] !== undefined) out.push([alias.toLowerCase(), unquote(m[2])]);
    }
  }
  return out;
}

/** Aliases set earlier (`git config alias.NAME …`, the environment) as the `-c alias.NAME=VALUE` options gitCommand expands. */
export function gitAliasOptions(aliases: Iterable<readonly [string, Arg]>): Arg[] {
  const out: Arg[] = [];
  for (const [name, value] of aliases) {
    const info = { ...value.info, raw: `alias.${name}=${value.info.raw}` };
    out.push({ v: '-c', info: { ...info, raw: '-c' } }, { v: `alias.${name}=${value.v}`, info });
  }
  return out;
}

/** `git clone -c KEY=VALUE`: configuration of the new repository, which its checkout already uses; `--template=DIR`: hooks to copy in. */
const NEW_REPO: OptionSpec = { short: 'c', long: ['config', 'template'] };

/** Flags a path git (or bash) is told to read code from, unless it is one of the `fine` places (as showCanon writes them). */
export function unseenPath(value: string, fine: readonly string[], shown: string, emit: Emit): void {
  const c = canonical(value, null);
  if (c === null || !fine.includes(showCanon(c))) emit(UNSEEN, shown);
}

/** HOME or XDG_CONFIG_HOME set earlier on the line or for this command (see setVar, commandVars), for git or a CONFIG_HOME_READERS program. */
export function homeSettings(program: string, text: () => string, vars: ReadonlyMap<string, string>, emit: Emit): void {
  if (program !== 'git' && !CONFIG_HOME_READERS.has(program)) return;
  for (const [name, fine] of Object.entries(GIT_HOME_UNSEEN)) {
    const v = vars.get(name);
    if (v !== undefined) unseenPath(v, fine, `${name}=${display(v)} … ${text()}`, emit);
  }
}

/** Shell code in git's own configuration options (`git -c KEY=VALUE`, `--config-env=KEY=VAR`, `clone -c`) and in `git config` writes. */
export function gitConfigCode(inv: Invocation, emit: Emit, vars: ReadonlyMap<string, string>): string[] {
  if (inv.program !== 'git') return [];
  const p = parseOptions(inv.args, GIT_GLOBAL);
  const out: string[] = [];
  homeSettings(inv.program, () => inv.text, vars, emit);
  for (const o of p.opts) {
    if (!o.value) continue;
    const v = o.value.v;
    if (o.name === 'exec-path' && o.arg.v.includes('=')) unseenPath(v, NOWHERE, `git --exec-path=${display(v)}`, emit);
    if (o.name === 'c') out.push(...entryCode(v, `git -c ${display(v)}`, emit));
    else if (o.name === 'config-env') {
      // the value is the named variable's: known when this command line set it
      const eq = v.lastIndexOf('=');
      const from = eq < 0 ? null : literal(v.slice(eq + 1));
      const key = eq < 0 ? null : literal(v.slice(0, eq));
      out.push(...settingCode(key, from === null ? null : vars.get(from) ?? null, `git --config-env=${display(v)}`, emit));
    }
  }
  const words = gitCommand(inv.args).words;
  const sub = literal(words[0]?.v ?? '');
  if (sub === 'config') out.push(...configWrite(words.slice(1), emit));
  if (sub === 'clone' || sub === 'init') {
    const q = parseOptions(words.slice(1), NEW_REPO);
    if (sub === 'clone') for (const v of valuesOf(q, 'c', 'config')) out.push(...entryCode(v.v, `git clone -c ${display(v.v)}`, emit));
    for (const v of valuesOf(q, 'template')) if (v.v !== '') unseenPath(v.v, NOWHERE, `git ${sub} --template=${display(v.v)}`, emit);
  }
  return out;
}

/** A preloaded library outside the system's library directories, or not known (see PRELOAD_VARIABLES). */
const unseenLibrary = (lib: string): boolean => {
  if (lib === '') return false;
  const c = canonical(lib, null);
  return c === null || !SYSTEM_LIBRARY.test(showCanon(c));
};

const SQ = "'((?:[^']|'\\\\'')*)'";
const PARAMETER = new RegExp(`${SQ}(?:=${SQ})?`, 'g');
const unquote = (s: string): string => s.replace(/'\\''/g, "'");

/**
 * git configuration set in the environment: GIT_CONFIG_KEY_n with GIT_CONFIG_VALUE_n below GIT_CONFIG_COUNT (the other
 * half and the count may come from an earlier assignment, in `vars`; a count set now judges the pairs set before) and GIT_CONFIG_PARAMETERS (`'key'='value' …`, as git passes `-c` on);
 * files git (or bash) reads code from (GIT_CONFIG_GLOBAL, BASH_ENV, …). Where git finds the user's config (HOME) is
 * judged at each git command, with the variables it runs with (gitConfigCode).
 */
export function envConfigCode(assigned: ReadonlyMap<string, string>, vars: ReadonlyMap<string, string>, emit: Emit): string[] {
  const out: string[] = [];
  const pairs = new Set<string>();
  const count = envConfigCount(assigned.get(COUNT) ?? vars.get(COUNT));
  const names = [...assigned.keys(), ...(assigned.has(COUNT) ? vars.keys() : [])];
  for (const name of names) {
    const n = /^GIT_CONFIG_(?:KEY|VALUE)_(\d+)$/.exec(name)?.[1];
    if (n === undefined || pairs.has(n) || Number(n) >= count) continue;
    pairs.add(n);
    const key = assigned.get(`GIT_CONFIG_KEY_${n}`) ?? vars.get(`GIT_CONFIG_KEY_${n}`);
    const value = assigned.get(`GIT_CONFIG_VALUE_${n}`) ?? vars.get(`GIT_CONFIG_VALUE_${n}`);
    // half a pair configures nothing yet; the other half, set later, finds this one in `vars`
    if (key !== undefined && value !== undefined) out.push(...settingCode(literal(key), value, `GIT_CONFIG_KEY_${n}=${display(key)} GIT_CONFIG_VALUE_${n}=${display(value)}`, emit));
  }
  for (const [name, v] of assigned) {
    if (Object.hasOwn(ENV_UNSEEN, name)) unseenPath(v, ENV_UNSEEN[name]!, `${name}=${display(v)}`, emit);
    if (PRELOAD_VARIABLES.has(name) && v.split(/[:\s]+/).some(unseenLibrary)) emit(UNSEEN, `${name}=${display(v)}`);
    checkPathVariable(name, v, emit);
    if (INPUT_VARIABLES.has(name)) checkInputRunner(`${name}=${display(v)}`, variableCode(name, v), emit);
    const loads = Object.hasOwn(ENV_CODE_OPTIONS, name) ? ENV_CODE_OPTIONS[name]! : null;
    if (loads && (!isKnown(v) || loads.re.test(v))) emit(loads.inline && isKnown(v) ? 'shell.interpreter.inline' : UNSEEN, `${name}=${display(v)}`);
    if (name === GIT_PROTOCOL_LIST && (!isKnown(v) || v.split(':').some((p) => p.trim().toLowerCase() === 'ext'))) emit(UNSEEN, `${name}=${display(v)}`);
    if (name === 'GIT_CONFIG_PARAMETERS') {
      if (!isKnown(v)) { emit(UNSEEN, `GIT_CONFIG_PARAMETERS=${display(v)}`); continue; }
      for (const m of v.matchAll(PARAMETER)) {
        const entry = m[2] === undefined ? unquote(m[1]!) : `${unquote(m[1]!)}=${unquote(m[2])}`;
        out.push(...entryCode(entry, `GIT_CONFIG_PARAMETERS: ${entry}`, emit));
      }
    }
  }
  return out;
}
