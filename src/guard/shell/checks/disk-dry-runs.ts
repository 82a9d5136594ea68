import { has, parseOptions, type ParsedOptions } from '../flags.ts';
import type { Arg } from '../model.ts';
import { PARTITION_OPTIONS, SFDISK_ACTS, SFDISK_GETS, SFDISK_LOOKS, SFDISK_NOT_DRY } from '../partition-tables.ts';
import { isKnown } from '../values.ts';

/** Whether every word is known and every option one the table knows by name (no abbreviation read two ways, no `-$x`). */
const allKnown = (args: readonly Arg[], p: ParsedOptions, letters: (name: string) => boolean): boolean =>
  !p.unknown && args.every((a) => isKnown(a.v)) && p.opts.every((o) => !o.partial && letters(o.name));

const SFDISK_NAMES = new Set([
  ...PARTITION_OPTIONS.sfdisk!.short!, ...'aAbcdfFgGhJlLnqrsTvV', ...Object.values(PARTITION_OPTIONS.sfdisk!.alias!),
  ...PARTITION_OPTIONS.sfdisk!.flags!.filter((f) => !Object.hasOwn(PARTITION_OPTIONS.sfdisk!.alias!, f)),
]);

/**
 * Whether sfdisk leaves the disk alone: its last command option only shows (`-l`, `-d`, `--part-type DEV N` without a new
 * type), or `-n` (--no-act) makes the write a dry run (see SFDISK_NOT_DRY). A word or option not known is read as a write.
 */
export function sfdiskLeavesDisk(args: readonly Arg[]): boolean {
  const p = parseOptions(args, PARTITION_OPTIONS.sfdisk);
  const act = [...p.opts].reverse().find((o) => SFDISK_ACTS.has(o.name))?.name;
  if (act !== undefined && (SFDISK_LOOKS.has(act) || (Object.hasOwn(SFDISK_GETS, act) && p.operands.length <= SFDISK_GETS[act]!))) return true;
  return has(p, 'n') && !has(p, ...SFDISK_NOT_DRY) && allKnown(args, p, (n) => SFDISK_NAMES.has(n));
}
