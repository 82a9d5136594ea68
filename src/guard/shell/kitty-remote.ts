import { parseOptions, type OptionSpec } from './flags.ts';
import type { Arg } from './model.ts';
import { literal, plain } from './values.ts';

/**
 * kitty's remote control (`kitty @ CMD`, `kitten @ CMD`): `launch` and `new-window` start the command after their
 * options in a window of the running kitty, `run` runs it on kitty's machine, and `send-text` types its text into a
 * window's shell (with `\r`, `\n` decoded). Option tables from kitty's rc/*.py and launch.py; flags are listed so an
 * abbreviation is not taken for a value option.
 */

const GLOBAL: OptionSpec = { posix: true, long: ['to', 'password', 'password-file', 'password-env', 'use-password'] };
const LAUNCH: OptionSpec = {
  posix: true, short: 'mw',
  long: [
    'match', 'title', 'window-title', 'tab-title', 'type', 'cwd', 'env', 'var', 'location', 'remote-control-password', 'stdin-source', 'marker',
    'os-window-class', 'os-window-name', 'os-window-title', 'os-window-state', 'logo', 'logo-position', 'logo-alpha', 'color', 'spacing', 'watcher',
    'next-to', 'bias', 'source-window', 'add-to-session', 'os-panel', 'os-window-tag', 'window-type',
  ],
  flags: [
    'no-response', 'keep-focus', 'dont-take-focus', 'copy-colors', 'copy-cmdline', 'copy-env', 'allow-remote-control', 'stdin-add-formatting',
    'stdin-add-line-wrap-markers', 'hold', 'hold-after-ssh', 'self', 'new-tab', 'help',
  ],
};
const SEND_TEXT: OptionSpec = { posix: true, short: 'mt', long: ['match', 'match-tab', 'from-file', 'bracketed-paste'], flags: ['all', 'exclude-active', 'stdin', 'help', 'no-response'] };
/** Each sub-command that runs something, with its options. */
const RUNS: Readonly<Record<string, OptionSpec>> = { launch: LAUNCH, 'new-window': LAUNCH, run: LAUNCH };

/** What `kitty @ …` runs: a command line, or text typed into a shell; null when the line is no remote control. */
export function kittyRemote(name: string, args: readonly Arg[]): { rest: readonly Arg[]; code: string | null } | null {
  if ((name !== 'kitty' && name !== 'kitten') || literal(args[0]?.v ?? '') !== '@') return null;
  const ops = parseOptions(args.slice(1), GLOBAL).operands;
  const sub = literal(ops[0]?.v ?? '') ?? '';
  if (Object.hasOwn(RUNS, sub)) return { rest: parseOptions(ops.slice(1), RUNS[sub]).operands, code: null };
  if (sub !== 'send-text') return { rest: [], code: null };
  const text = parseOptions(ops.slice(1), SEND_TEXT).operands.map((a) => plain(a.v)).join(' ');
  const typed = text.replace(/\\([rn])/g, '\n').replace(/\\[et]/g, ' ');
  return { rest: [], code: typed.trim() === '' ? null : typed };
}
