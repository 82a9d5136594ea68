import { has, parseOptions, valuesOf, type OptionSpec } from './flags.ts';
import type { Arg } from './model.ts';

/**
 * awk's options: gawk's "F:f:v:W;bcCd::D::e:E:…" (-d, -D, -L, -o, -p take a value only attached: `gawk -d PROG FILE`
 * runs PROG), mawk's and busybox's the same letters; -f/--file and -E/--exec name program files, -e/--source is program
 * text, -i/--include a library file loaded before the program.
 */
export const AWK_OPTIONS: OptionSpec = {
  short: 'FfvWeEilZ', attached: 'dDLop', long: ['field-separator', 'file', 'assign', 'source', 'exec', 'include', 'load'],
};
/** Options giving the program, so the first operand is a data file. */
export const AWK_PROGRAM_GIVEN: readonly string[] = ['f', 'e', 'E', 'file', 'source', 'exec'];
const FILES = ['f', 'file', 'E', 'exec', 'i', 'include'];
const TEXTS = ['e', 'source'];

/** Where an awk command line's program is: text in its words, and files it reads (`-f FILE`, `-f <(…)`, `-f -`). */
export function awkProgram(args: readonly Arg[]): { readonly texts: readonly Arg[]; readonly files: readonly Arg[] } {
  const p = parseOptions(args, AWK_OPTIONS);
  const texts = valuesOf(p, ...TEXTS);
  const first = has(p, ...AWK_PROGRAM_GIVEN) ? null : p.operands[0];
  return { texts: first ? [...texts, first] : texts, files: valuesOf(p, ...FILES) };
}

const STRING = '"((?:[^"\\\\\\n]|\\\\.)*)"';
/** The commands awk runs with /bin/sh: `system("CMD")`, `"CMD" | getline`, `"CMD" |& getline`, `print … | "CMD"`. */
const COMMANDS: readonly RegExp[] = [
  new RegExp(`\\bsystem\\s*\\(\\s*${STRING}\\s*\\)`, 'g'),
  new RegExp(`${STRING}\\s*\\|&?\\s*getline`, 'g'),
  new RegExp(`\\|&?\\s*${STRING}`, 'g'),
];

const ESCAPES: Readonly<Record<string, string>> = { n: '\n', t: '\t', '"': '"', '\\': '\\', '/': '/' };

/** The shell commands an awk program gives as string literals (a command built at run time is not seen, and asks as inline code). */
export function awkCommands(program: string): string[] {
  const out = new Set<string>();
  for (const re of COMMANDS) {
    for (const m of program.matchAll(re)) out.add(m[1]!.replace(/\\(.)/gs, (_, c: string) => ESCAPES[c] ?? c));
  }
  return [...out].filter((c) => c.trim() !== '');
}
