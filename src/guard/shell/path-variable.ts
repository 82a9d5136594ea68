import type { Emit } from './model.ts';
import { canonical, showCanon } from './paths.ts';
import { HOME, UNKNOWN, display } from './values.ts';

/**
 * PATH set to a directory a command line can fill with programs of its own: the working directory (`.`, an empty entry,
 * any relative one) or a world-writable one (/tmp). A program name then may resolve to a file the line wrote, which the
 * guard never saw run (`echo 'rm -rf ~' > ls; chmod +x ls; PATH=.:$PATH ls`). An entry starting with an expansion the
 * guard cannot see (`$PATH` itself, `$(npm bin)`) is left alone.
 */
const WRITABLE = /^\/(?:tmp|var\/tmp|dev\/shm)(?:\/|$)/;

/** Why programs in `dir` may be files this line wrote (see above), or null. */
export function writableEntry(dir: string): string | null {
  if (dir === '') return 'the working directory (an empty entry)';
  if (dir.startsWith(UNKNOWN)) return null;
  if (!dir.startsWith('/') && !dir.startsWith(HOME)) return `the relative directory ${display(dir)}`;
  const c = canonical(dir, null);
  return c !== null && WRITABLE.test(showCanon(c)) ? `the world-writable ${showCanon(c)}` : null;
}

/** Flags `PATH=VALUE` (for one command, exported, through env or sudo) naming such a directory (see above). */
export function checkPathVariable(name: string, value: string, emit: Emit): void {
  if (name !== 'PATH') return;
  const why = value.split(':').map(writableEntry).find((w) => w !== null);
  if (why) emit('shell.code.unseen_setting', `PATH=${display(value)} (programs are looked up in ${why})`);
}
