import { has, type ParsedOptions } from './flags.ts';
import { shellWord, variableCode } from './code-values.ts';
import type { Arg } from './model.ts';
import { plain } from './values.ts';

/**
 * tmux options whose value tmux runs (options-table.c; `set-option NAME VALUE`, `setw`): shell code run for each new pane
 * (`default-command`), by `lock-session` (`lock-command`), by copy mode's pipes (`copy-command`) or to edit a buffer
 * (`editor`); the program new panes start (`default-shell`); and tmux commands: `default-client-command`, hooks, which are
 * options too (`set -g after-new-window CMD`, `pane-exited[1]`), and `command-alias` entries (`NAME=COMMAND`). tmux takes
 * a unique prefix of a name (options_match): one that begins a name here is read as it.
 */
const KINDS: Readonly<Record<string, 'shell' | 'program' | 'command' | 'alias'>> = {
  'default-command': 'shell', 'lock-command': 'shell', 'copy-command': 'shell', editor: 'shell', 'default-shell': 'program',
  'default-client-command': 'command', 'command-alias': 'alias',
  ...Object.fromEntries([
    'alert-activity', 'alert-bell', 'alert-silence', 'client-active', 'client-attached', 'client-detached', 'client-focus-in', 'client-focus-out',
    'client-resized', 'client-session-changed', 'client-light-theme', 'client-dark-theme', 'command-error', 'pane-died', 'pane-exited', 'pane-focus-in',
    'pane-focus-out', 'pane-mode-changed', 'pane-set-clipboard', 'pane-title-changed', 'session-closed', 'session-created', 'session-renamed',
    'session-window-changed', 'window-layout-changed', 'window-linked', 'window-pane-changed', 'window-renamed', 'window-resized', 'window-unlinked',
  ].map((h) => [h, 'command'])),
};
/** `after-<command>` hooks run after each such command. */
const AFTER_HOOK = /^after-[a-z-]+$/;

/** What an option's name (its `[index]` off) makes of its value; null for an option tmux only stores or shows. */
function kindOf(name: string): (typeof KINDS)[string] | null {
  const n = name.replace(/\[\d*\]$/, '');
  if (Object.hasOwn(KINDS, n)) return KINDS[n]!;
  if (AFTER_HOOK.test(n)) return 'command';
  const prefixed = n.length >= 2 && !n.startsWith('@') ? Object.keys(KINDS).find((k) => k.startsWith(n)) : undefined;
  return prefixed ? KINDS[prefixed]! : 'after-'.startsWith(n) && n.length >= 2 ? 'command' : null;
}

/** The name and value `set-option` sets; none when it unsets (-u, -U). */
function setting(p: ParsedOptions): { kind: (typeof KINDS)[string] | null; value: Arg } | null {
  const [name, value] = p.operands;
  if (!name || !value || has(p, 'u', 'U')) return null;
  return { kind: kindOf(plain(name.v)), value };
}

/** The shell code an option set runs (`set -g default-command CMD`, `default-shell PROGRAM`); null when none. */
export function optionShell(p: ParsedOptions): string | null {
  const s = setting(p);
  if (s?.kind === 'shell') return plain(s.value.v);
  return s?.kind === 'program' ? shellWord(plain(s.value.v)) : null;
}

/** The tmux command an option set holds (a hook, `default-client-command`, a `command-alias` entry's COMMAND); null when none. */
export function optionCommand(p: ParsedOptions): Arg | null {
  const s = setting(p);
  if (s?.kind === 'command') return s.value;
  const eq = s?.kind === 'alias' ? s.value.v.indexOf('=') : -1;
  return eq >= 0 ? { v: s!.value.v.slice(eq + 1), info: s!.value.info } : null;
}

/** display-menu's items (cmd-display-menu.c): NAME KEY COMMAND each, an empty NAME a separator standing alone; the commands. */
export function menuCommands(ops: readonly Arg[]): Arg[] {
  const out: Arg[] = [];
  for (let i = 0; i < ops.length;) {
    if (ops[i++]!.v === '') continue;
    if (ops[i + 1]) out.push(ops[i + 1]!);
    i += 2;
  }
  return out;
}

/** `set-environment [-g] NAME VALUE`: what new panes and sessions start with; a value a program runs (LESSOPEN) is code. */
export function environmentShell(p: ParsedOptions): string | null {
  const [name, value] = p.operands;
  return name && value && !has(p, 'u', 'r') ? variableCode(plain(name.v), value.v) : null;
}
