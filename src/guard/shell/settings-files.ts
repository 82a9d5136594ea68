import type { FileReader } from './embedded-code.ts';
import { variableCode } from './code-values.ts';
import { tmuxFileCode } from './unwrap.ts';

/**
 * Settings files this command line wrote, read as their program reads them (`echo 'run-shell CMD' > t.conf; tmux -f t.conf`):
 * tmux's are tmux commands; a lesskey source's `#env` lines set variables less runs (LESSOPEN), and its key bindings
 * (`#command`, whose extra strings are typed, `!CMD` among them) are not read, so a file with any is still unseen.
 */
export type SettingsFormat = 'tmux' | 'lesskey';

const LESSKEY_SECTION = /^#(command|line-edit|env|stop)\s*$/;
const LESSKEY_VARIABLE = /^\s*([A-Za-z_][A-Za-z0-9_]*)\s*[=+]?=\s*(.*)$/;

/** The shell code a settings file runs, and what in it the guard cannot see. */
export function settingsCode(format: SettingsFormat, text: string, read: FileReader): { codes: string[]; unseen: string[] } {
  if (format === 'tmux') return tmuxFileCode(text, read);
  const codes: string[] = [];
  const unseen: string[] = [];
  // lesskey starts in its #command section
  let section = 'command';
  for (const line of text.split('\n')) {
    const head = LESSKEY_SECTION.exec(line.trim());
    if (head) { section = head[1]!; if (section === 'stop') break; continue; }
    if (line.trim() === '' || line.trimStart().startsWith('#')) continue;
    const v = section === 'env' ? LESSKEY_VARIABLE.exec(line) : null;
    const code = v ? variableCode(v[1]!, v[2]!) : null;
    if (code !== null) codes.push(code);
    if (!v) unseen.push(`${section}: ${line.trim().slice(0, 60)}`);
  }
  return { codes, unseen };
}
