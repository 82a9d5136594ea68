import type { Arg, Emit, Invocation } from '../model.ts';
import { literal } from '../values.ts';

/**
 * Programs that hand over another process's environment or memory, the secrets /proc/<pid>/environ and mem hold
 * (echo-agent's own, the parent of the exec tool's shell, has the configuration's): `ps e` and friends print every
 * process's environment, gcore dumps a process's memory to a file.
 */
export function checkProcessSecrets(inv: Invocation, emit: Emit): void {
  const why = PROCESS_READERS[inv.program]?.(inv.args);
  if (why) emit('shell.secret.read', `${inv.text} (${why})`);
}

const ENVIRONMENT = 'prints processes\' environments';
const MEMORY = 'reads a process\'s memory';

const PROCESS_READERS: Readonly<Record<string, (args: readonly Arg[]) => string | null>> = {
  ps: (args) => (psShowsEnvironment(args) ? ENVIRONMENT : null),
  // Solaris and illumos: `pargs -e PID`
  pargs: (args) => (args.some((a) => /^-[a-zA-Z]*e/.test(literal(a.v) ?? '')) ? ENVIRONMENT : null),
  // gdb's script that attaches and dumps a core file (`gcore [-a] [-o FILE] PID…`)
  gcore: (args) => (operands(args, /^-o$/).length > 0 ? MEMORY : null),
};

/** Programs the check looks at (a glob in program position is matched against them). */
export const PROCESS_READER_PROGRAMS: readonly string[] = Object.keys(PROCESS_READERS);

/** ps's options taking a value: a dash cluster's (procps, macOS), a BSD word's, long ones (`--format x`, `--pid=1`). */
const PS_DASH_VALUE = 'CDGgOopqstUu';
const PS_BSD_VALUE = 'OopqtUk';
const PS_LONG_VALUE = new Set(['format', 'pid', 'ppid', 'sid', 'tty', 'user', 'User', 'group', 'Group', 'sort', 'cols', 'columns', 'width', 'rows', 'lines', 'quick-pid']);
const PS_FORMATS = new Set(['o', 'O', 'format']);
/** Format keywords for the environment (procps and macOS have none, so nothing ordinary asks for one). */
const ENV_COLUMN = /^(env|environ|environment)([:=]|$)/;

/**
 * `ps e`, `ps eww`, `ps auxe` (a word without a dash is a cluster of BSD options, `e` the environment after the
 * command), macOS `ps -E`/`-axwwE`, an env column asked for. `ps -e` is every process (procps, macOS) and does not count.
 */
function psShowsEnvironment(args: readonly Arg[]): boolean {
  for (let i = 0; i < args.length; i++) {
    const w = literal(args[i]!.v);
    if (w === null) continue;
    const long = /^--([^=]+)(?:=(.*))?$/s.exec(w);
    if (long) {
      if (!PS_LONG_VALUE.has(long[1]!)) continue;
      const value = long[2] ?? literal(args[++i]?.v ?? '');
      if (PS_FORMATS.has(long[1]!) && envColumn(value)) return true;
      continue;
    }
    const dash = w.startsWith('-');
    const body = dash ? w.slice(1) : w;
    if (!/^[A-Za-z]/.test(body)) continue;
    for (let k = 0; k < body.length; k++) {
      const c = body[k]!;
      if (c === (dash ? 'E' : 'e')) return true;
      if ((dash ? PS_DASH_VALUE : PS_BSD_VALUE).includes(c)) {
        const value = k + 1 < body.length ? body.slice(k + 1) : literal(args[++i]?.v ?? '');
        if (PS_FORMATS.has(c) && envColumn(value)) return true;
        break;
      }
    }
  }
  return false;
}

const envColumn = (list: string | null): boolean => list !== null && list.split(/[,\s]+/).some((t) => ENV_COLUMN.test(t));

/** Operands left after options, where `takesValue` tells the option words that take the next one. */
function operands(args: readonly Arg[], takesValue: RegExp): Arg[] {
  const out: Arg[] = [];
  for (let i = 0; i < args.length; i++) {
    const w = literal(args[i]!.v);
    if (w === '--') { out.push(...args.slice(i + 1)); break; }
    if (w === null || !w.startsWith('-') || w === '-') { out.push(args[i]!); continue; }
    if (!w.includes('=') && takesValue.test(w)) i++;
  }
  return out;
}
