import { redactText } from '../../util/redact.ts';
import { parseOptions } from './flags.ts';
import type { Arg } from './model.ts';
import { GIT_GLOBAL } from './program-tables.ts';
import { literal } from './values.ts';

/**
 * What picks the repository and the configuration a git command uses, beyond the directory it runs in: git's global
 * options (`-C DIR`, `--git-dir`, `--work-tree`, `-c KEY=VALUE`, `--bare`, …) and the variables the line sets that do
 * the same (GIT_DIR, GIT_WORK_TREE, GIT_CONFIG*, GIT_EXEC_PATH, …). They are part of the command's approval scope (`git -C sub status` is not
 * `git status`; scope.git_context), so an "always" for the one does not cover the other; one whose value cannot be seen
 * leaves the command no scope (null), so that no record can match it.
 */
export interface GitScope {
  readonly env: readonly string[];
  readonly options: readonly string[];
}

/** git's global options that change the repository, its configuration or the programs it runs. */
const PICKS = new Set(['C', 'c', 'git-dir', 'work-tree', 'namespace', 'config-env', 'super-prefix', 'exec-path', 'shallow-file', 'attr-source', 'bare']);
/** Variables that pick the repository, its configuration or git's programs (GIT_PAGER and the like are code, scoped as such). */
const PICKING = /^GIT_(?:DIR|WORK_TREE|COMMON_DIR|INDEX_FILE|OBJECT_DIRECTORY|ALTERNATE_OBJECT_DIRECTORIES|NAMESPACE|CEILING_DIRECTORIES|DISCOVERY_ACROSS_FILESYSTEM|CONFIG[A-Z0-9_]*|EXEC_PATH|TEMPLATE_DIR)$/;
const EXPORTED = /^-x (GIT_[A-Za-z0-9_]*)$/;

export function gitScope(args: readonly Arg[], vars: ReadonlyMap<string, string>): GitScope | null {
  const options: string[] = [];
  for (const o of parseOptions(args, GIT_GLOBAL).opts) {
    if (!PICKS.has(o.name)) continue;
    if (o.value === null) { options.push(o.name.length === 1 ? `-${o.name}` : `--${o.name}`); continue; }
    const v = literal(o.value.v);
    if (v === null) return null;
    options.push(o.name.length === 1 ? `-${o.name} ${quoted(redactText(v))}` : `--${o.name}=${quoted(redactText(v))}`);
  }
  const env: string[] = [];
  for (const [key] of vars) {
    // set on the line (a prefix, `export`): an unknown value is no longer held, only its export mark
    const name = PICKING.test(key) ? key : EXPORTED.exec(key)?.[1];
    if (name === undefined || !PICKING.test(name) || (name !== key && vars.has(name))) continue;
    const v = vars.get(name);
    const text = v === undefined ? null : literal(v);
    if (text === null) return null;
    env.push(`${name}=${quoted(redactText(text))}`);
  }
  return { env: env.sort(), options };
}

/** A value as one scope word: quoted when blanks or quotes would let it read as more words. */
const quoted = (v: string): string => (/[\s"\\]/.test(v) || v === '' ? JSON.stringify(v) : v);
