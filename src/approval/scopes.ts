import type { GuardVerdict, NormalisedCommand } from '../guard/types.ts';
import { CATALOG_BY_NAME } from '../tools/catalog-table.ts';

/** A file's path as a scope word: quoted when a space (or a quote) would let it read as program and sub-command. */
const fileWord = (path: string): string => (/[\s"\\]/.test(path) ? JSON.stringify(path) : path);

/** `git status`; `GIT_DIR=gd git -C sub status` when the variables and options that pick git's repository are given. */
const scopeOf = (c: NormalisedCommand): string => {
  const program = c.file ? fileWord(c.program) : c.program;
  return [...c.env ?? [], program, ...c.options ?? [], ...(c.subcommand ? [c.subcommand] : [])].join(' ');
};

/**
 * What a persistent approval covers (SPEC §5 step 9): for shell-type tools each
 * command's program and sub-command; for other tools the tool name. A program found
 * on PATH is scoped by its name (`git status`); one named by a path (`./build.sh`) by
 * that file's real absolute path (`/ws/build.sh`), so no other file of that name is
 * covered. A shell line that yielded no parsed command, or runs a file from a place
 * that cannot be known, has no scope, so no record can match it.
 */
export function approvalScopes(tool: string, verdict: GuardVerdict): readonly string[] {
  const entry = CATALOG_BY_NAME.get(tool);
  if (!entry?.guarded?.shell) return [tool];
  const commands = verdict.commands ?? [];
  // a program in an unknown place, or git pointed at a repository or configuration by a value nobody can see
  if (commands.some((c) => c.file === false || c.unscoped === true)) return [];
  return [...new Set(commands.map(scopeOf))];
}

/** Why "always" is not offered for a call: a stable id, and the words the approval screens show. */
export const ALWAYS_RULES = {
  'always.dangerous': 'dangerous calls are asked every time',
  'always.flagged': 'a call the guard flagged is asked every time',
  'always.no_scope': 'there is no command scope to remember it by',
} as const;

export type AlwaysRule = keyof typeof ALWAYS_RULES;

export type AlwaysOffer =
  | { readonly offered: true }
  | { readonly offered: false; readonly rule: AlwaysRule; readonly reason: string };

const notOffered = (rule: AlwaysRule): AlwaysOffer => ({ offered: false, rule, reason: ALWAYS_RULES[rule] });

/**
 * Whether a person asked at step 11 may answer "always". It generalises one call to every call of its
 * scope: never for a dangerous or flagged call (each is asked afresh), nor for a call without a scope.
 * The gate decides with it and the screens say why with it, so the two cannot disagree.
 */
export function alwaysOffer(risk: string, flags: readonly unknown[], scopes: readonly string[]): AlwaysOffer {
  if (risk === 'dangerous') return notOffered('always.dangerous');
  if (flags.length > 0) return notOffered('always.flagged');
  if (scopes.length === 0) return notOffered('always.no_scope');
  return { offered: true };
}

/** Why a request offers no "always", for its screen: said, so nobody wonders whether they missed it. */
export function noAlwaysReason(req: { readonly risk: string; readonly flags: readonly unknown[]; readonly scopes: readonly string[] }): string {
  const offer = alwaysOffer(req.risk, req.flags, req.scopes);
  // only a request stored by hand (or by an older build) lacks "always" where alwaysOffer would give it
  return offer.offered ? 'the request was stored without it' : offer.reason;
}
