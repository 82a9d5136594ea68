import { GIT_CONFIG_CODE, GIT_CONFIG_UNSEEN } from './code-tables.ts';

/**
 * Whether a text written to a file named like a git directory's config (`config`, `config.worktree`) is git configuration
 * that can run commands: a section of git's that carries commands (core, alias, filter, include, …, the first parts of
 * GIT_CONFIG_CODE and GIT_CONFIG_UNSEEN) or, in a fragment with no section (an edit, a hunk), a key named like one
 * of their keys (`fsmonitor = …`). By section rather than by value: git's syntax has many spellings of one key
 * (`[core] fsmonitor=x` on one line, quoting, continued lines), and no other program's `config` uses these sections.
 * Returns what was found, for the finding, or null.
 */
export function gitConfigRunsCode(text: string): string | null {
  let inSection = false;
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.replace(/^[\s]+/, '');
    const header = /^\[\s*([A-Za-z0-9.-]+)/.exec(line);
    if (header) {
      inSection = true;
      const section = header[1]!.split('.')[0]!.toLowerCase();
      if (CODE_SECTIONS.has(section)) return `[${header[1]}]`;
      continue;
    }
    const key = /^([A-Za-z][A-Za-z0-9-]*)\s*(?:=|$)/.exec(line)?.[1]?.toLowerCase();
    if (!inSection && key !== undefined && CODE_KEY_NAMES.has(key)) return key;
  }
  return null;
}

const KEYS = [...Object.keys(GIT_CONFIG_CODE), ...Object.keys(GIT_CONFIG_UNSEEN), 'url.*.insteadof', 'url.*.pushinsteadof'];
/** Sections whose keys run commands or name files of code. */
const CODE_SECTIONS: ReadonlySet<string> = new Set(KEYS.map((k) => k.split('.')[0]!));
/** The last parts of those keys (`fsmonitor`, `hookspath`, `textconv`): a key outside any section is judged by its name. */
const CODE_KEY_NAMES: ReadonlySet<string> = new Set(KEYS.map((k) => k.slice(k.lastIndexOf('.') + 1)).filter((n) => n !== '*'));

export { GIT_CONFIG_NAMES } from './path-tables.ts';
