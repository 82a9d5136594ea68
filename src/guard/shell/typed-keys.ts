import { has, parseOptions, type ParsedOptions } from './flags.ts';
import type { Arg } from './model.ts';
import { literal, plain } from './values.ts';

/** What tmux send-keys and screen's stuff hand a pane's shell: the text they type, or what copy mode pipes to. */

/** tmux key names: Enter and its control forms end a line; the others type nothing the shell reads as code. */
const LINE_KEYS = /^(Enter|KPEnter|C-m|C-j|\^M|\^J)$/i;
const OTHER_KEYS = /^([CMS]-.+|\^.|Escape|Tab|BTab|Space|BSpace|Up|Down|Left|Right|Home|End|NPage|PPage|PageUp|PageDown|PgUp|PgDn|IC|DC|F\d+|KP.+)$/i;

/** Copy-mode commands (window-copy.c) whose first argument, after their -C and -P flags, tmux runs with the shell. */
const COPY_PIPES: ReadonlySet<string> = new Set([
  'copy-pipe', 'copy-pipe-no-clear', 'copy-pipe-and-cancel', 'copy-pipe-end-of-line', 'copy-pipe-end-of-line-and-cancel', 'copy-pipe-line',
  'copy-pipe-line-and-cancel', 'pipe', 'pipe-no-clear', 'pipe-and-cancel',
]);

/** A typed character: a line end as a newline, other control characters as nothing (they edit, not type). */
const typedChar = (code: number): string => (code === 10 || code === 13 ? '\n' : code < 32 || code === 127 ? '' : String.fromCharCode(code));

/**
 * What tmux send-keys types: key names, literal text (-l), or hex codes (-H). With -X it types nothing: its operands are a
 * copy-mode command, and a pipe one (`send -X copy-pipe CMD`) runs CMD with the shell.
 */
export function tmuxKeys(p: ParsedOptions): string {
  if (has(p, 'X')) {
    if (!COPY_PIPES.has(literal(p.operands[0]?.v ?? '') ?? '')) return '';
    const cmd = parseOptions(p.operands.slice(1), { posix: true, shortFlags: 'CP' }).operands[0];
    return cmd ? plain(cmd.v) : '';
  }
  if (has(p, 'l')) return p.operands.map((a) => plain(a.v)).join('');
  if (has(p, 'H')) return p.operands.map((a) => (/^[0-9a-f]{1,2}$/i.test(literal(a.v) ?? '') ? typedChar(parseInt(literal(a.v)!, 16)) : '')).join('');
  return p.operands.map((a) => {
    const k = literal(a.v) ?? '';
    return LINE_KEYS.test(k) ? '\n' : OTHER_KEYS.test(k) ? '' : plain(a.v);
  }).join('');
}

/** What screen's stuff types (it takes no options): its string with `\n`, `\r`, octal `\015` and `^M` decoded. */
export function screenStuff(words: readonly Arg[]): string {
  const text = words.map((a) => plain(a.v)).join(' ').replace(/\r/g, '\n');
  return text.replace(/\\([0-7]{1,3}|[nr]|.)|\^(.)/gs, (_m, esc: string | undefined, ctl: string | undefined) => {
    if (ctl !== undefined) return ctl === '?' ? '' : typedChar(ctl.toUpperCase().charCodeAt(0) & 31);
    return /^[0-7]/.test(esc!) ? typedChar(parseInt(esc!, 8)) : esc === 'n' || esc === 'r' ? '\n' : esc!;
  });
}
