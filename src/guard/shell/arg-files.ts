import { parseOptions, valuesOf } from './flags.ts';
import type { Arg, Invocation } from './model.ts';
import type { Canon } from './paths.ts';
import { showArg } from './shell-state.ts';
import { literal } from './values.ts';
import { WRAPPERS } from './wrapper-tables.ts';

const INPUT_SEPARATOR = /^(::::?)\+?$/;

/** Where xargs or GNU parallel (sem) takes its arguments from, its options parsed as it parses them. */
export interface ArgSources {
  readonly parsed: ReturnType<typeof parseOptions>;
  /** Files of arguments: `-a FILE`, `--arg-file[=]FILE`, `-ra FILE`, and parallel's `:::: FILE`. */
  readonly files: Arg[];
  /** parallel's `::: ITEM…`. */
  readonly items: Arg[];
  /** Whether an input source was named at all (else the arguments come from stdin). */
  readonly named: boolean;
}

/** `args`: the wrapper's words after its name (its options stop at the command); null for other programs. */
export function argSources(name: string, args: readonly Arg[]): ArgSources | null {
  const spec = WRAPPERS[name];
  if (!spec || (name !== 'xargs' && !spec.inputs)) return null;
  const parsed = parseOptions(args, spec);
  const files = [...valuesOf(parsed, 'a', 'arg-file')];
  const items: Arg[] = [];
  let mode: 'command' | ':::' | '::::' = 'command';
  for (const a of spec.inputs ? parsed.operands : []) {
    const sep = INPUT_SEPARATOR.exec(literal(a.v) ?? '');
    if (sep) mode = sep[1] as ':::' | '::::';
    else if (mode !== 'command') (mode === '::::' ? files : items).push(a);
  }
  return { parsed, files, items, named: files.length > 0 || mode !== 'command' };
}

/** The files xargs and GNU parallel (and sem) take their arguments from (ArgSources.files). */
export function argFiles(name: string, args: readonly Arg[]): Arg[] {
  return argSources(name, args)?.files ?? [];
}

/**
 * The wrapper reads each of those files as `cat FILE` does (their lines become arguments: `xargs -a /etc/shadow echo`
 * prints password hashes): a `cat` of them, shown as the wrapper's command line, for the rule checks.
 */
export function argFileReads(name: string, args: readonly Arg[], cwd: Canon | null, depth: number): Invocation[] {
  const files = argFiles(name, args);
  if (files.length === 0) return [];
  const text = [name, ...args.map((a) => showArg(a.v))].join(' ').slice(0, 200);
  return [{ program: 'cat', args: files, cwd, redirs: [], stdinText: null, upstream: [], appendsArgs: false, depth, text }];
}
