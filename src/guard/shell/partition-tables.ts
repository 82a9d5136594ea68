import type { OptionSpec } from './flags.ts';

/** Option tables of partitioners and file-system makers, and the options with which they only show or pretend. */

/**
 * Partitioners' short options taking a value, so that letters of an attached value are not read as -l or -p (`parted
 * -aopt`, `fdisk -tgpt`): fdisk.c "b:Bc::C:hH:lL::o:sS:t:u::vVw:W:", sfdisk.c "…o:O:nN:qrsTu:vVX:Y:w:W:", parted "hlmsfva:".
 */
export const PARTITION_OPTIONS: Readonly<Record<string, OptionSpec>> = {
  fdisk: { short: 'bCHoStwW', attached: 'cLu' },
  // sfdisk.c: --color, --lock and --move-data take a value only after `=`
  sfdisk: {
    short: 'oONuXYwW',
    long: ['backup-file', 'label', 'label-nested', 'output', 'partno', 'sector-size', 'unit', 'wipe', 'wipe-partitions'],
    flags: [
      'activate', 'append', 'backup', 'backup-pt-sectors', 'bytes', 'color', 'lock', 'delete', 'dump', 'help', 'force', 'json', 'list', 'list-free', 'list-types',
      'no-act', 'no-reread', 'no-tell-kernel', 'move-data', 'move-use-fsync', 'reorder', 'show-geometry', 'show-pt-geometry', 'quiet', 'verify', 'version',
      'relocate', 'part-uuid', 'part-label', 'part-type', 'part-attrs', 'disk-id', 'Linux', 'show-size', 'discard-free',
    ],
    alias: {
      activate: 'A', append: 'a', backup: 'b', 'backup-file': 'O', dump: 'd', help: 'h', force: 'f', json: 'J', label: 'X', 'label-nested': 'Y', list: 'l',
      'list-free': 'F', 'list-types': 'T', 'no-act': 'n', output: 'o', partno: 'N', reorder: 'r', 'show-geometry': 'G', 'show-pt-geometry': 'G', quiet: 'q',
      verify: 'V', version: 'v', wipe: 'w', 'wipe-partitions': 'W', unit: 'u', Linux: 'L', 'show-size': 's', 'part-type': 'c',
    },
  },
  parted: { short: 'a', long: ['align'] },
  // gptcl.cc (popt): -l is --load-backup FILE and -h --hybrid, not list and help; long names as their letters; -j is
  // --move-main-table (the man page's --adjust-main-table is no option), -k --move-backup-table (1.0.10), -B --byte-swap-name
  sgdisk: {
    short: 'AabBcdhijklmnNrRStTuU',
    long: [
      'attributes', 'set-alignment', 'backup', 'byte-swap-name', 'change-name', 'delete', 'hybrid', 'info', 'move-main-table', 'move-backup-table', 'load-backup',
      'gpttombr', 'new', 'largest-new', 'transpose', 'replicate', 'resize-table', 'typecode', 'transform-bsd', 'partition-guid', 'disk-guid',
    ],
    alias: {
      attributes: 'A', 'set-alignment': 'a', backup: 'b', 'byte-swap-name': 'B', 'change-name': 'c', delete: 'd', hybrid: 'h', info: 'i', 'move-main-table': 'j',
      'move-backup-table': 'k', 'load-backup': 'l', gpttombr: 'm', new: 'n',
      'largest-new': 'N', transpose: 'r', replicate: 'R', 'resize-table': 'S', typecode: 't', 'transform-bsd': 'T', 'partition-guid': 'u', 'disk-guid': 'U',
      'recompute-chs': 'C', 'display-alignment': 'D', 'move-second-header': 'e', 'end-of-largest': 'E', 'first-in-largest': 'f', 'first-aligned-in-largest': 'F',
      mbrtogpt: 'g', 'randomize-guids': 'G', 'align-end': 'I', 'list-types': 'L', clear: 'o', 'print-mbr': 'O', print: 'p', pretend: 'P', sort: 's', verify: 'v',
      version: 'V', zap: 'z', 'zap-all': 'Z', help: '?', usage: '?',
    },
  },
};

/**
 * sfdisk does what its last command option says (sfdisk.c sets `act` anew for each): these only show. `-A`, `-c` and the
 * --part-*, --disk-id ones show what they would set when given no value: `operands` at most (device, partition).
 */
export const SFDISK_LOOKS: ReadonlySet<string> = new Set(['d', 'F', 'g', 'G', 'h', 'J', 'l', 's', 'T', 'v', 'V']);
export const SFDISK_GETS: Readonly<Record<string, number>> = { A: 1, c: 2, 'part-uuid': 2, 'part-label': 2, 'part-attrs': 2, 'disk-id': 1 };
/** Command options: the last one given is what sfdisk does; none, it reads a new table from stdin and writes it. */
export const SFDISK_ACTS: ReadonlySet<string> = new Set([...SFDISK_LOOKS, ...Object.keys(SFDISK_GETS), 'r', 'delete', 'relocate', 'backup-pt-sectors', 'discard-free']);
/**
 * `-n` (--no-act) does everything but write the device; not --discard-free nor --move-data, which act on the disk's
 * sectors apart from the table, and not with a backup file (-O, written anyway, judged as a write).
 */
export const SFDISK_NOT_DRY = ['discard-free', 'move-data'];
