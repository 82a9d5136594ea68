import { shellWord } from './code-values.ts';
import { parseOptions, valuesOf, type OptionSpec } from './flags.ts';
import type { Arg } from './model.ts';
import { HOME, literal, plain } from './values.ts';

/**
 * kitty's remote control (`kitty @ CMD`, `kitten @ CMD`): `launch` and `new-window` start the command after their
 * options in a window of the running kitty, `run` runs it on kitty's machine, and `send-text` types its text into a
 * window's shell (with `\r`, `\n` decoded); `action NAME ARGS` runs a mappable action (`launch`, `send_text`, …). Option
 * tables from kitty's rc/*.py and launch.py; flags are listed so an abbreviation is not taken for a value option.
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

const ACTION: OptionSpec = { posix: true, short: 'm', long: ['match'], flags: ['self', 'no-response', 'help'] };
/** Mappable actions (`kitty @ action NAME ARGS`) as the remote-control command doing the same; `combine SEP A SEP B` runs each. */
const ACTIONS: Readonly<Record<string, string>> = Object.fromEntries([
  ...['launch', 'new_window', 'new_window_with_cwd', 'new_tab', 'new_tab_with_cwd', 'new_os_window', 'new_os_window_with_cwd'].map((a) => [a, 'launch']),
  ['remote_control', ''], ['remote_control_script', 'launch'], ['kitten', 'kitten'],
]);

const word = (v: string): Arg => ({ v, info: { computed: false, ansi: false, quoted: false, inner: [], raw: v } });
const words = (list: readonly Arg[]): string => list.map((a) => shellWord(plain(a.v))).join(' ');

/** `kitty @ action NAME ARGS…` as shell code running the remote-control command that does the same; null when it runs nothing. */
function actionCode(ops: readonly Arg[]): string | null {
  const [first, ...rest] = parseOptions(ops, ACTION).operands;
  if (!first) return null;
  // one word holding the action and its arguments is split by kitty (shlex): re-read as words
  if (rest.length === 0 && /\s/.test(plain(first.v).trim())) return `kitty @ action ${plain(first.v)}`;
  const name = literal(first.v) ?? '';
  if (name === 'combine' && rest[0]) {
    const sep = plain(rest[0].v);
    const parts: Arg[][] = [[]];
    for (const a of rest.slice(1)) if (plain(a.v) === sep) parts.push([]); else parts[parts.length - 1]!.push(a);
    const codes = parts.filter((p) => p.length > 0).map((p) => actionCode(p)).filter((c): c is string => c !== null);
    return codes.length > 0 ? codes.join('; ') : null;
  }
  // send_text MODES TEXT: the text typed, as `send-text` types it
  if (name === 'send_text') return rest.length > 1 ? `kitty @ send-text ${words(rest.slice(1))}` : null;
  if (!Object.hasOwn(ACTIONS, name) || rest.length === 0) return null;
  return `kitty @ ${ACTIONS[name]} ${words(rest)}`.replace(/ {2,}/g, ' ');
}

/** `kitty +runpy CODE`, `kitty + runpy CODE`: Python run by kitty's interpreter, as `python3 -c`; `+launch FILE` a script; `+kitten NAME`. */
function kittyPython(args: readonly Arg[]): readonly Arg[] | null {
  const first = literal(args[0]?.v ?? '') ?? '';
  const [cmd, rest] = first === '+' ? [literal(args[1]?.v ?? '') ?? '', args.slice(2)] : first.startsWith('+') ? [first.slice(1), args.slice(1)] : ['', []];
  if (cmd === 'runpy') return [word('python3'), word('-c'), ...rest];
  if (cmd === 'launch') return [word('python3'), ...rest];
  return cmd === 'kitten' ? customKitten(rest, true) : null;
}

/** kitty's own kittens (kittens/*), by the name kitty resolves (`-` read as `_`, `url_hints` is hints). */
const BUILTIN_KITTENS: ReadonlySet<string> = new Set([
  'ask', 'broadcast', 'choose', 'choose_files', 'choose_fonts', 'clipboard', 'desktop_ui', 'diff', 'hints', 'hyperlinked_grep', 'icat', 'notify', 'panel',
  'query_terminal', 'quick_access_terminal', 'remote_file', 'resize_window', 'show_error', 'show_key', 'ssh', 'themes', 'transfer', 'tui', 'unicode_input',
  'update_self', 'url_hints',
]);

/**
 * A custom kitten (kittens/runner.py) as the Python it runs, `python3 FILE ARGS`: a NAME ending in `.py`, and with `+kitten`
 * (run_kitten) any NAME that is no builtin, as NAME.py; a relative one is in kitty's configuration directory. Null for a builtin.
 */
function customKitten(words: readonly Arg[], fallback: boolean): readonly Arg[] | null {
  const [name, ...rest] = words;
  const n = name ? plain(name.v) : '';
  if (!name || n === '' || (!n.endsWith('.py') && (!fallback || BUILTIN_KITTENS.has(n.replace(/-/g, '_'))))) return null;
  // expanduser, then kitty's configuration directory for a relative path
  const file = (n.endsWith('.py') ? name.v : `${name.v}.py`).replace(/^~(?=\/|$)/, HOME);
  const path = file.startsWith('/') || file.startsWith(HOME) ? file : `${HOME}/.config/kitty/${file}`;
  return [word('python3'), { v: path, info: name.info }, ...rest];
}

/** What `kitty @ …` runs: a command line, or text typed into a shell; null when the line is no remote control. */
export function kittyRemote(name: string, args: readonly Arg[]): { rest: readonly Arg[]; code: string | null } | null {
  const python = name === 'kitty' ? kittyPython(args) : null;
  if (python) return { rest: python, code: null };
  if ((name !== 'kitty' && name !== 'kitten') || literal(args[0]?.v ?? '') !== '@') return null;
  const ops = parseOptions(args.slice(1), GLOBAL).operands;
  const sub = literal(ops[0]?.v ?? '') ?? '';
  if (Object.hasOwn(RUNS, sub)) {
    // `--env NAME=VALUE`: the command runs with it (as `env NAME=VALUE CMD`)
    const p = parseOptions(ops.slice(1), RUNS[sub]);
    const env = valuesOf(p, 'env').filter((a) => /^[A-Za-z_][A-Za-z0-9_]*=/.test(a.v));
    // `--watcher FILE.py`: Python kitty runs for the window's events, in its own process
    const watchers = valuesOf(p, 'watcher').map((w) => customKitten([w], false)).filter((c): c is readonly Arg[] => c !== null);
    const code = watchers.length > 0 ? watchers.map((c) => c.map((a) => shellWord(plain(a.v))).join(' ')).join('; ') : null;
    return { rest: env.length > 0 && p.operands.length > 0 ? [word('env'), ...env, ...p.operands] : p.operands, code };
  }
  // `kitty @ kitten NAME.py`: the running kitty runs that Python file
  if (sub === 'kitten') return { rest: customKitten(parseOptions(ops.slice(1), ACTION).operands, false) ?? [], code: null };
  if (sub === 'action') return { rest: [], code: actionCode(ops.slice(1)) };
  if (sub !== 'send-text') return { rest: [], code: null };
  const text = parseOptions(ops.slice(1), SEND_TEXT).operands.map((a) => plain(a.v)).join(' ');
  const typed = text.replace(/\\([rn])/g, '\n').replace(/\\[et]/g, ' ');
  return { rest: [], code: typed.trim() === '' ? null : typed };
}
