import { has, type ParsedOptions } from './flags.ts';
import type { Arg } from './model.ts';
import { isKnown, literal, plain } from './values.ts';
import { quoteArg } from './unwrap.ts';

/**
 * tmux's paste buffers (cmd-load-buffer.c, cmd-save-buffer.c, cmd-set-buffer.c, cmd-paste-buffer.c): `load-buffer FILE`
 * reads a file into a buffer, `save-buffer [-a] FILE` writes one out, `set-buffer DATA` holds text a paste types into a
 * pane later, and `paste-buffer` types a buffer into a pane, where its lines run like `send-keys`. `-` is stdin or stdout.
 */
export type BufferUse = 'load' | 'save' | 'set' | 'paste';

/**
 * What a buffer command stands for: `effects` are shell code for what it does without starting anything (`cat -- FILE`
 * for a read, `: > FILE` for a write, the text a paste will type), judged but no detach; `unseen` a paste of text the
 * guard cannot see (a buffer filled elsewhere, by copy mode, a file or an earlier line).
 */
export function bufferUse(use: BufferUse, p: ParsedOptions): { effects: string[]; unseen: string | null } {
  const path: Arg | undefined = p.operands[0];
  const file = path && literal(path.v) !== '-' ? quoteArg(path) : null;
  switch (use) {
    case 'load': return { effects: file ? [`cat -- ${file}`] : [], unseen: null };
    case 'save': return { effects: file ? [`: ${has(p, 'a') ? '>>' : '>'} ${file}`] : [], unseen: null };
    // text not known here is unseen when it is pasted, not when it is stored (`set-buffer "$(git rev-parse HEAD)"`)
    case 'set': return { effects: path && isKnown(path.v) && plain(path.v).trim() !== '' ? [plain(path.v)] : [], unseen: null };
    case 'paste': return { effects: [], unseen: 'paste-buffer (types a buffer the guard cannot see into a pane)' };
  }
}
