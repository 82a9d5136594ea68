import { has, parseOptions, valuesOf, type OptionSpec } from './flags.ts';
import type { Arg } from './model.ts';
import { TAR_OPTIONS, ZIP_OPTIONS } from './program-tables.ts';
import { literal } from './values.ts';
import { WRAPPERS } from './wrapper-tables.ts';

/**
 * More files programs write through an option or operand (beside checks/targets.ts's copies, dd, tee, sort -o, …): tar's
 * archive in its create, append and update modes, zip's and 7z's archive, the log of time -o, strace/ltrace -o (not a
 * `|CMD` pipe), script's typescript and logs, openssl's -out/-keyout, qemu-img convert's and bmaptool copy's destination,
 * fallocate's file (its -z zeroes a range of a device). Judged like a redirection there (a device, a start-up file).
 */
interface OutputSpec {
  readonly spec: OptionSpec;
  readonly options?: readonly string[];
  /** The operand written, counted from 0 (from the end when negative), after `verbs` when given. */
  readonly operand?: number;
  /** Only with one of these options (tar's modes). */
  readonly modes?: readonly string[];
  /** Only after one of these first operands (`7z a`, `qemu-img convert`); the operand index counts after it. */
  readonly verbs?: readonly string[];
  /** Option values that are no file (strace -o '|CMD'). */
  readonly not?: RegExp;
}

const TAR: OutputSpec = { spec: TAR_OPTIONS, options: ['f', 'file'], modes: ['c', 'create', 'r', 'append', 'u', 'update'] };
const SEVEN_ZIP: OutputSpec = { spec: {}, operand: 0, verbs: ['a', 'u', 'd', 'rn'] };
const TRACE: OutputSpec = { spec: WRAPPERS.strace!, options: ['o', 'output'], not: /^\s*[|!]/ };

const OUTPUTS: Readonly<Record<string, OutputSpec>> = {
  tar: TAR, gtar: TAR, bsdtar: TAR,
  zip: { spec: ZIP_OPTIONS, operand: 0 },
  '7z': SEVEN_ZIP, '7za': SEVEN_ZIP, '7zz': SEVEN_ZIP, '7zr': SEVEN_ZIP,
  time: { spec: WRAPPERS.time!, options: ['o', 'output'] },
  strace: TRACE, ltrace: { ...TRACE, spec: WRAPPERS.ltrace! },
  script: { spec: WRAPPERS.script!, options: ['O', 'log-out', 'I', 'log-in', 'B', 'log-io', 'T', 'log-timing'], operand: 0 },
  'qemu-img': { spec: { short: 'fFOobBlSmrTtW', long: ['object', 'image-opts', 'target-image-opts'] }, operand: -1, verbs: ['convert', 'create', 'dd'] },
  bmaptool: { spec: { long: ['bmap', 'bmap-sig'] }, operand: 1, verbs: ['copy'] },
  fallocate: { spec: { short: 'lo', long: ['length', 'offset'] }, operand: 0 },
};

/** openssl's single-dash options naming a file it writes. */
const OPENSSL_OUT = new Set(['-out', '-keyout']);

/**
 * The files a program writes through its options or operands, per OUTPUTS (and openssl's -out). A wrapper's (time -o,
 * strace -o, script) are judged where its own words are (checks.program), as it may run a command after them.
 */
export function outputFiles(program: string, args: readonly Arg[]): Arg[] {
  if (program === 'openssl') return args.filter((_, i) => i > 0 && OPENSSL_OUT.has(literal(args[i - 1]!.v) ?? ''));
  const t = Object.hasOwn(OUTPUTS, program) ? OUTPUTS[program]! : null;
  if (!t) return [];
  const p = parseOptions(args, t.spec);
  if (t.modes && !has(p, ...t.modes)) return [];
  const out = t.options ? valuesOf(p, ...t.options).filter((a) => !(t.not?.test(a.v) ?? false)) : [];
  let ops = p.operands;
  if (t.verbs) {
    if (!t.verbs.includes(literal(ops[0]?.v ?? '') ?? '')) return out;
    ops = ops.slice(1);
  }
  const at = t.operand === undefined ? undefined : t.operand < 0 ? ops.length + t.operand : t.operand;
  if (at !== undefined && ops[at] && (t.verbs || ops.length > at)) out.push(ops[at]!);
  return out;
}
