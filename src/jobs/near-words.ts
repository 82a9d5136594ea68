import { nearestName } from '../util/nearest-name.ts';

/**
 * The known name a word most likely meant, as a hint: a typo of it (`timout_seconds`), the word another tool or
 * scheduler uses for it (`aliases`), the one name it is a part of (`retries`: max_retries), or the one name it
 * lengthens (`list_directory`: list_dir).
 */
export function meantName(word: string, known: readonly string[], aliases: Readonly<Record<string, string>> = {}): string | undefined {
  const near = nearestName(word, known);
  if (near !== undefined) return near;
  const w = word.toLowerCase();
  const alias = Object.hasOwn(aliases, w) ? aliases[w] : undefined;
  if (alias !== undefined && known.includes(alias)) return alias;
  const partOf = known.filter((k) => k.split('_').includes(w));
  if (partOf.length === 1) return partOf[0];
  // a short name is the start of too many words to be a hint (`list` of `list_jobs`)
  const lengthened = known.filter((k) => k.length >= 5 && w.startsWith(k));
  return lengthened.length === 1 ? lengthened[0] : undefined;
}

/**
 * The parameter an unknown one most likely meant: one of the required parameters missing beside it first (a typo
 * leaves its own missing), or the one it abbreviates (`cmd` beside a missing `command`, not `cwd`), else one of
 * the others not given.
 */
export function meantParameter(word: string, missing: readonly string[], notGiven: readonly string[]): string | undefined {
  const w = word.toLowerCase();
  const abbreviated = w.length >= 2 ? missing.filter((k) => k[0] === w[0] && k.length > w.length && inOrderIn(w, k)) : [];
  return meantName(word, missing) ?? (abbreviated.length === 1 ? abbreviated[0] : undefined) ?? meantName(word, notGiven);
}

/** Whether every letter of `short` is in `long`, in the same order (`cmd` in `command`). */
function inOrderIn(short: string, long: string): boolean {
  let at = 0;
  for (const c of long) if (c === short[at]) at++;
  return at === short.length;
}

/** Job fields by the names other schedulers give them. */
export const JOB_FIELD_ALIASES: Readonly<Record<string, string>> = { cron: 'schedule', tz: 'timezone', zone: 'timezone', notify: 'delivery', retry: 'max_retries', jitter: 'jitter_seconds', timeout: 'timeout_seconds' };

/** Tools by the commands and names people reach for. */
export const TOOL_ALIASES: Readonly<Record<string, string>> = {
  ls: 'list_dir', dir: 'list_dir', cat: 'read_file', read: 'read_file', write: 'write_file', grep: 'search_files', find: 'search_files',
  fetch: 'web_fetch', curl: 'web_fetch', http: 'web_fetch', search: 'web_search', shell: 'exec', bash: 'exec', sh: 'exec', run: 'exec',
};
