import { parseOptions, valuesOf } from './flags.ts';
import type { Arg, Invocation } from './model.ts';
import type { Canon } from './paths.ts';
import { showArg } from './shell-state.ts';
import { literal } from './values.ts';
import { WRAPPERS } from './wrapper-tables.ts';

const INPUT_SEPARATOR = /^(::::?)\+?$/;

/**
 * The files xargs and GNU parallel (and sem) take their arguments from: `xargs -a FILE`, `--arg-file[=]FILE`, `-ra FILE`,
 * `parallel -a FILE`, `parallel CMD :::: FILE`. `args`: the wrapper's words after its name (its options stop at the command).
 */
export function argFiles(name: string, args: readonly Arg[]): Arg[] {
  const spec = WRAPPERS[name];
  if (!spec || (name !== 'xargs' && !spec.inputs)) return [];
  const p = parseOptions(args, spec);
  const files = [...valuesOf(p, 'a', 'arg-file')];
  if (!spec.inputs) return files;
  let fromFiles = false;
  for (const a of p.operands) {
    const sep = INPUT_SEPARATOR.exec(literal(a.v) ?? '');
    if (sep) fromFiles = sep[1] === '::::';
    else if (fromFiles) files.push(a);
  }
  return files;
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
