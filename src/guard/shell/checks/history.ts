import { has, parseOptions } from '../flags.ts';
import type { Arg, Emit, Invocation, RedirFact } from '../model.ts';
import { canonical, showCanon, type Canon } from '../paths.ts';
import { HISTORY_FILES } from '../path-tables.ts';
import { TRANSFER_OPTIONS } from '../program-tables.ts';
import { literal } from '../values.ts';
import { writeTargets } from './targets.ts';

/**
 * Anti-forensics: emptying or deleting a history file (`> ~/.bash_history`, `truncate -s0`, `rm`, `ln -sf /dev/null`),
 * clearing the shell's list (`history -c`, `-d`), or turning history off (`unset HISTFILE`, `HISTFILE=/dev/null`,
 * `HISTSIZE=0`, `set +o history`) hides what was run from whoever reviews it later: a person decides.
 */
const RULE = 'shell.history.erase';
const HISTORY_SEGS: readonly (readonly string[])[] = HISTORY_FILES.map((f) => f.split('/'));
/** Redirections that empty the file first (`>>` only adds to it). */
const TRUNCATES = new Set(['>', '>|', '&>']);
/** Programs that delete their operands. */
const DELETERS = new Set(['rm', 'unlink', 'shred', 'srm', 'wipe', 'trash', 'trash-put']);
/** Variables whose value keeps (or turns off) the history: off when empty, /dev/…, or a size of 0. */
const HISTORY_VARIABLES: Readonly<Record<string, RegExp>> = {
  HISTFILE: /^(?:|\/dev\/.*)$/, HISTSIZE: /^0+$/, HISTFILESIZE: /^0+$/, SAVEHIST: /^0+$/,
};
const ASSIGNERS = new Set(['export', 'declare', 'typeset', 'local', 'readonly']);

export function isHistoryFile(c: Canon | null): boolean {
  return c !== null && HISTORY_SEGS.some((t) => t.length <= c.segs.length && t.every((name, i) => c.segs[c.segs.length - t.length + i] === name));
}

/** `HISTFILE=/dev/null`, `HISTSIZE=0`: history turned off for the shell (or the command it is set for). */
export function checkHistoryVariable(name: string, value: string, emit: Emit): void {
  const off = Object.hasOwn(HISTORY_VARIABLES, name) ? HISTORY_VARIABLES[name]! : null;
  const v = literal(value);
  if (off && v !== null && off.test(v.trim())) emit(RULE, `${name}=${v}`);
}

/** A redirection emptying a history file. */
export function checkHistoryRedirect(r: RedirFact, emit: Emit): void {
  if (!r.target || !TRUNCATES.has(r.op)) return;
  const c = canonical(r.target.v, r.cwd);
  if (isHistoryFile(c)) emit(RULE, `${r.fd}${r.op} ${showCanon(c!)}`);
}

const word = (a: Arg): string => literal(a.v) ?? '';

export function checkHistory(inv: Invocation, emit: Emit): void {
  const prog = inv.program;
  const words = inv.args.map(word);
  if (prog === 'history' && words.some((w) => /^-[A-Za-z]*[cd]/.test(w))) { emit(RULE, inv.text); return; }
  if (prog === 'set' && words.some((w, i) => (w === '+o' && words[i + 1] === 'history') || w === '+H')) { emit(RULE, inv.text); return; }
  if (prog === 'unset' && words.some((w) => w === 'HISTFILE')) { emit(RULE, inv.text); return; }
  if (ASSIGNERS.has(prog)) {
    for (const w of words) {
      const eq = /^([A-Za-z_][A-Za-z0-9_]*)=(.*)$/s.exec(w);
      if (eq) checkHistoryVariable(eq[1]!, eq[2]!, emit);
    }
    return;
  }
  const files = [...deleted(inv), ...writeTargets(inv).map((t) => t.arg)];
  for (const a of files) {
    const c = canonical(a.v, inv.cwd);
    // `tee -a` only adds
    if (isHistoryFile(c) && !(prog === 'tee' && words.some((w) => /^-[A-Za-z]*a|^--append$/.test(w)))) { emit(RULE, `${inv.text} → ${showCanon(c!)}`); return; }
  }
}

/** Operands a program deletes, moves away or replaces with a link (`ln -sf /dev/null ~/.bash_history`). */
function deleted(inv: Invocation): Arg[] {
  const prog = inv.program;
  if (DELETERS.has(prog)) return [...parseOptions(inv.args, {}).operands];
  if (prog === 'mv') return [...parseOptions(inv.args, TRANSFER_OPTIONS.mv!).operands];
  if (prog === 'ln') {
    const p = parseOptions(inv.args, { short: 'St', long: ['suffix', 'target-directory'] });
    return has(p, 'f', 'force') ? p.operands.slice(-1) : [];
  }
  return [];
}
