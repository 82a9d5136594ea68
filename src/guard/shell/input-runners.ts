import { interpreterView } from './interpreters.ts';
import type { Arg, Emit } from './model.ts';
import { programName, unwrapOnce } from './unwrap.ts';
import { literal } from './values.ts';

/**
 * Pagers, editors and filters given as commands: the program is handed text to show on stdin (`git -c core.pager=…`),
 * a file to edit (`EDITOR`, `LESSOPEN`'s `%s`) or content to filter. A shell or interpreter named there with no code of
 * its own (`core.pager=sh`, `EDITOR=python3`, `LESSOPEN='|bash %s'`) runs that text as its script: commit messages,
 * a file's content, which the guard cannot see. git aliases are not among them: `!sh` reads the terminal, like `sh`.
 */
export const INPUT_VARIABLES: ReadonlySet<string> = new Set([
  'PAGER', 'GIT_PAGER', 'MANPAGER', 'SYSTEMD_PAGER', 'BAT_PAGER', 'GH_PAGER', 'AWS_PAGER', 'DELTA_PAGER', 'PSQL_PAGER', 'EDITOR', 'VISUAL', 'GIT_EDITOR',
  'GIT_SEQUENCE_EDITOR', 'FCEDIT', 'SUDO_EDITOR', 'PSQL_EDITOR', 'LESSOPEN', 'LESSCLOSE', 'GIT_EXTERNAL_DIFF',
]);
/** git keys of the same kind, as GIT_CONFIG_CODE spells them. */
export const INPUT_GIT_KEYS: ReadonlySet<string> = new Set([
  'core.pager', 'pager.*', 'core.editor', 'sequence.editor', 'interactive.difffilter', 'diff.external', 'diff.*.textconv', 'diff.*.command', 'filter.*.clean',
  'filter.*.smudge', 'filter.*.process', 'merge.*.driver', 'difftool.*.cmd', 'mergetool.*.cmd', 'credential.helper', 'credential.*.helper', 'gpg.program',
  'gpg.*.program',
]);
/** Program options of the same kind (tar pipes each member it extracts to --to-command, a compressor reads the archive). */
export const INPUT_OPTIONS: Readonly<Record<string, readonly string[]>> = {
  man: ['P', 'pager'], bat: ['pager'], batcat: ['pager'], ugrep: ['pager'], ug: ['pager'], 'ugrep+': ['pager'], 'ug+': ['pager'],
  tar: ['to-command', 'use-compress-program', 'I'], gtar: ['to-command', 'use-compress-program', 'I'], bsdtar: ['to-command', 'use-compress-program', 'I'],
};

/** `%s`, `%f`: where the program puts the file's name (LESSOPEN, some editors' templates). */
const PLACEHOLDER = /^%[a-zA-Z]$/;
const word = (v: string): Arg => ({ v, info: { computed: false, ansi: false, quoted: false, inner: [], raw: v } });

/** The interpreter a pager or editor command is, when it has no code of its own and so runs what it is given; else null. */
export function inputInterpreter(code: string): string | null {
  let words = code.trim().split(/\s+/).filter((w) => w !== '').map((w) => word(w.replace(/^['"]|['"]$/g, '')));
  // wrappers off (`env -i sh`, `nice sh`, `timeout 9 bash`), as the rest of the guard takes them off
  for (let hop = 0; hop < 16 && words.length > 0; hop++) {
    while (words.length > 0 && (/^[A-Za-z_][A-Za-z0-9_]*=/.test(words[0]!.v) || words[0]!.v === 'exec')) words = words.slice(1);
    const name = words[0] ? programName(words[0].v) : null;
    const inner = name === null ? null : unwrapOnce(name, words.slice(1));
    if (!inner || inner.rest.length === 0) break;
    words = [...inner.rest];
  }
  const head = words[0]?.v;
  if (!head) return null;
  const program = head.slice(head.lastIndexOf('/') + 1).toLowerCase();
  const args = words.slice(1);
  const view = interpreterView({ program, args, cwd: null, redirs: [], stdinText: null, upstream: [], appendsArgs: false, depth: 0, text: code });
  if (!view || (view.family !== 'shell' && view.family !== 'code') || view.inline) return null;
  return view.readsStdin || (view.script !== null && PLACEHOLDER.test(literal(view.script.v) ?? '')) ? program : null;
}

/** Flags a pager, editor or filter command (`shown`: where it was set) that is a bare shell or interpreter. */
export function checkInputRunner(shown: string, code: string | null, emit: Emit): void {
  const interpreter = code === null ? null : inputInterpreter(code);
  if (interpreter !== null) emit('shell.interpreter.unseen_script', `${shown.slice(0, 120)} (${interpreter} runs the text or file it is given as a script)`);
}
