import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { LineCounter, parseDocument } from 'yaml';
import type { z } from 'zod';
import { configSchema, type Config } from './schema.ts';
import { knownToRedaction } from './secrets.ts';
import { holdsSecret, isSecretKey } from '../util/redact.ts';
import { configWarnings, type ConfigWarning } from './warnings.ts';
import { keysAt } from './schema-keys.ts';
import { nearestName } from '../util/nearest-name.ts';
import { unreadable } from '../util/file-errors.ts';
import { unanchoredAlias, withAliasHint } from './yaml-aliases.ts';
import { byPosition, formatPath, locatedLine, nowhere, yamlLocator, type KeyPath, type Locate, type Location } from './locate.ts';

export { formatPath } from './locate.ts';

export const DEFAULT_CONFIG_PATH = 'config/echo-agent.yaml';
/** EX_CONFIG from sysexits.h: what operators' tooling expects for a bad configuration. */
export const EXIT_CONFIG = 78;

/** A problem, with its line and column in the file (or the variable its value came from) where it has one. */
export interface ConfigProblem extends Location {
  readonly path: string;
  readonly message: string;
}

export class ConfigError extends Error {
  /** `problems` in the order given: parseConfigText gives them in file order. */
  constructor(readonly file: string, readonly problems: readonly ConfigProblem[]) {
    super(`${file}: ${problems.length} problem(s)\n${problems.map((p) => locatedLine(file, p)).join('\n')}`);
    this.name = 'ConfigError';
  }
}

export interface LoadedConfig {
  readonly config: Config;
  readonly file: string | null;
  readonly warnings: readonly ConfigWarning[];
  /** Where a key path is in the file read, for checks made after loading (`config validate`'s directories). */
  readonly locate: Locate;
}

/** Which file to read: the flag, then ECHO_AGENT_CONFIG, then the default path if it exists. */
export function resolveConfigPath(flag?: string, env: NodeJS.ProcessEnv = process.env): string | null {
  if (flag === '') throw new ConfigError('--config', [{ path: '(option)', message: 'is empty; give a file or leave the option out' }]);
  if (flag) return resolve(flag);
  if (env.ECHO_AGENT_CONFIG) return resolve(env.ECHO_AGENT_CONFIG);
  const fallback = resolve(DEFAULT_CONFIG_PATH);
  return existsSync(fallback) ? fallback : null;
}

export function loadConfig(flag?: string, env: NodeJS.ProcessEnv = process.env): LoadedConfig {
  const file = resolveConfigPath(flag, env);
  if (file === null) return { config: configSchema.parse({}), file: null, warnings: [], locate: nowhere };
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    throw new ConfigError(file, [{ path: '(file)', message: `cannot read: ${unreadable(err)}` }]);
  }
  const parsed = parseConfigText(text, file, env);
  return { ...parsed, config: { ...parsed.config, loaded_from: resolve(file) }, file };
}

export function parseConfigText(text: string, file = '(inline)', env: NodeJS.ProcessEnv = process.env): Omit<LoadedConfig, 'file'> {
  const lines = new LineCounter();
  const doc = parseDocument(text, { prettyErrors: true, uniqueKeys: true, lineCounter: lines });
  // a warning (an unknown `!tag`, say) means the value read is not the one written
  const yamlProblems = [...doc.errors, ...doc.warnings];
  if (yamlProblems.length > 0) {
    const found = yamlProblems.map((e) => ({
      path: '(yaml)',
      message: withAliasHint((e.message.split('\n')[0] ?? e.message).replace(/ at line \d+, column \d+:?$/, '')),
      ...(e.linePos?.[0] ? { line: e.linePos[0].line, column: e.linePos[0].col } : {}),
    }));
    // one unquoted `*/5 * * * *` gives the same error for each `*`: once is enough
    throw new ConfigError(file, byPosition(found.filter((p, i) => found.findIndex((q) => q.line === p.line && q.message === p.message) === i)));
  }
  const alias = unanchoredAlias(doc, lines);
  if (alias) throw new ConfigError(file, [{ path: '(yaml)', ...alias }]);
  const fromEnv = new Map<string, string[]>();
  const locate = yamlLocator(doc, lines, fromEnv);
  const raw: unknown = doc.toJS() ?? {};
  if (typeof raw !== 'object' || Array.isArray(raw)) {
    throw new ConfigError(file, [{ path: '(root)', message: `expected a mapping of sections, got ${describe(raw)}`, ...locate([]) }]);
  }
  const envProblems: Found[] = [];
  let substituted = substituteEnv(raw, [], env, envProblems, fromEnv);
  let result = configSchema.safeParse(substituted);
  if (!result.success) {
    // `port: ${PORT}` is text after substitution; where the schema wants a number or a boolean, read it as one
    const retyped = retypeWholeReferences(raw, substituted, result.error.issues);
    if (retyped !== substituted) {
      substituted = retyped;
      result = configSchema.safeParse(substituted);
    }
  }
  // a value emptied by a missing variable fails the schema too; the variable is the one problem to report
  const envPaths = new Set(envProblems.map((p) => formatPath(p.keys)));
  const schemaProblems = result.success ? [] : result.error.issues.flatMap((i) => toProblems(i, substituted)).filter((p) => !envPaths.has(formatPath(p.keys)));
  const problems = [...envProblems, ...schemaProblems].map(({ keys, at, message }) => ({ path: formatPath(keys), message, ...locate(keys, at) }));
  if (problems.length > 0 || !result.success) throw new ConfigError(file, byPosition(problems));
  return { config: knownToRedaction(result.data), warnings: byPosition(configWarnings(result.data, undefined, locate)), locate };
}

/** A problem at a key path, before it is given its place in the file. */
interface Found {
  readonly keys: KeyPath;
  readonly at: 'key' | 'value' | 'written';
  readonly message: string;
}

const ENV_REF = /\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g;

/**
 * Replaces `${VAR}` / `${VAR:-fallback}` in string values; an unset VAR without fallback is a problem, at the
 * reference. `fromEnv` gets, per key path, the variables whose values were used there.
 */
function substituteEnv(value: unknown, path: (string | number)[], env: NodeJS.ProcessEnv, problems: Found[], fromEnv: Map<string, string[]>): unknown {
  if (typeof value === 'string') {
    const used: string[] = [];
    const out = value.replace(ENV_REF, (whole, name: string, fallback: string | undefined) => {
      const v = env[name];
      if (v !== undefined && v !== '') {
        used.push(name);
        return v;
      }
      if (fallback !== undefined) return fallback;
      problems.push({ keys: path, at: 'written', message: `environment variable ${name} is ${v === undefined ? 'not set' : 'empty'} (referenced as ${whole})` });
      return '';
    });
    if (used.length > 0) fromEnv.set(formatPath(path), [...new Set(used)]);
    return out;
  }
  if (Array.isArray(value)) return value.map((v, i) => substituteEnv(v, [...path, i], env, problems, fromEnv));
  if (value && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, substituteEnv(v, [...path, k], env, problems, fromEnv)]));
  }
  return value;
}

const WHOLE_REFERENCE = /^\$\{[A-Za-z_][A-Za-z0-9_]*(?::-[^}]*)?\}$/;

/** A copy where each value that was only an env reference and must be a number or boolean is read as one. */
function retypeWholeReferences(raw: unknown, substituted: unknown, issues: readonly z.core.$ZodIssue[]): unknown {
  let out = substituted;
  for (const issue of issues) {
    if (issue.code !== 'invalid_type' || (issue.expected !== 'number' && issue.expected !== 'boolean')) continue;
    const before = valueAt(raw, issue.path);
    const text = valueAt(out, issue.path);
    if (typeof before !== 'string' || !WHOLE_REFERENCE.test(before.trim()) || typeof text !== 'string') continue;
    const typed = issue.expected === 'boolean'
      ? (text === 'true' ? true : text === 'false' ? false : undefined)
      : (/^-?\d+(\.\d+)?$/.test(text.trim()) ? Number(text) : undefined);
    if (typed !== undefined) out = withValueAt(out, issue.path, typed);
  }
  return out;
}

function withValueAt(input: unknown, path: readonly PropertyKey[], value: unknown): unknown {
  if (path.length === 0) return value;
  const [key, ...rest] = path;
  const copy = (Array.isArray(input) ? [...input] : { ...(input as object) }) as Record<PropertyKey, unknown>;
  copy[key!] = withValueAt(copy[key!], rest, value);
  return copy;
}

/** Besides credential keys, config values that may embed one: a URL's password, any `*key`. */
const MAY_EMBED_SECRET = /(url|key)$/i;

/**
 * A problem with a value that may hold a credential (I11) names its type, never the value. The key holding the
 * value is judged with it (`hung_pass_seconds: 1` is a number of seconds); the keys above it by name alone.
 */
function mayHoldSecret(path: readonly PropertyKey[], value: unknown): boolean {
  return path.some((k, i) => typeof k === 'string' && ((i === path.length - 1 ? holdsSecret(k, value) : isSecretKey(k))
    || MAY_EMBED_SECRET.test(k) || (k === 'headers' && i < path.length - 1)));
}

function toProblems(issue: z.core.$ZodIssue, input: unknown): Found[] {
  const keys = issue.path as KeyPath;
  const value = valueAt(input, issue.path);
  const got = mayHoldSecret(issue.path, value) && value !== null && value !== undefined && typeof value !== 'object'
    ? `${describeType(value)} (not shown: it may hold a credential)` : describe(value);
  const at = (message: string): Found[] => [{ keys, at: 'value', message }];
  // a check that says what is wrong without the value (schema.ts connectionUrl's): the value may hold a password
  if (issue.code === 'custom' && issue.params?.whole === true) return at(issue.message);
  switch (issue.code) {
    case 'invalid_value':
      return at(`expected one of ${issue.values.map(String).join(', ')}, got ${got}`);
    case 'invalid_type':
      return at(`expected ${issue.expected}, got ${got}`);
    case 'unrecognized_keys':
      // one a key, each at its own line
      return issue.keys.map((k) => ({ keys: [...keys, k], at: 'key', message: unknownKey(k, issue.path) }));
    default:
      return at(`${issue.message.replace(/^Invalid input: /, '')}, got ${got}`);
  }
}

/** An unknown key, with the one it most likely meant when there is one. */
function unknownKey(key: string, at: readonly PropertyKey[]): string {
  const meant = nearestName(key, keysAt(configSchema, at) ?? []);
  return meant ? `unknown key (did you mean "${meant}"?)` : 'unknown key (check the spelling against config/echo-agent.example.yaml)';
}

function valueAt(input: unknown, path: readonly PropertyKey[]): unknown {
  let cur = input;
  for (const key of path) {
    if (cur === null || typeof cur !== 'object') return undefined;
    cur = (cur as Record<PropertyKey, unknown>)[key];
  }
  return cur;
}

function describeType(value: unknown): string {
  return typeof value === 'string' ? `a text of ${value.length} characters` : `a ${typeof value}`;
}

function describe(value: unknown): string {
  if (value === undefined) return 'nothing';
  if (value === null) return 'null';
  if (typeof value === 'number' && !Number.isFinite(value)) return String(value); // JSON would say null
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'object') return 'a mapping';
  return JSON.stringify(value);
}
