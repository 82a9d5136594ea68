import { has, parseOptions, type OptionSpec, type ParsedOptions } from '../flags.ts';
import type { Arg, Emit, Invocation } from '../model.ts';
import { canonical, isBlockDevice, showCanon } from '../paths.ts';
import { isKnown, literal } from '../values.ts';
import { writeTargets } from './targets.ts';
import { PARTITION_OPTIONS } from '../partition-tables.ts';
import { sfdiskLeavesDisk } from './disk-dry-runs.ts';

/** Formatters that are only dangerous on a device (mkswap on a swap file is fine). */
const FORMAT_ON_DEVICE = new Set(['mke2fs', 'mkswap', 'mkntfs', 'mkdosfs', 'mkexfatfs', 'mkudffs', 'mkisofs-dev', 'mlabel', 'pvcreate']);
const PARTITIONERS = new Set(['fdisk', 'sfdisk', 'cfdisk', 'gdisk', 'sgdisk', 'parted']);
/** sgdisk's options that only show or save to a file: with others it writes the disk, whatever it also prints. */
const SGDISK_LOOKS = new Set(['p', 'O', 'v', 'V', 'L', 'i', 'D', 'E', 'f', 'F', 'b', 'a', '?']);
/** `-A list`, `-A N:show`, `-A N:get:BIT` only show attributes. */
const SGDISK_SHOW_ATTRIBUTES = /^(list|\d*:(show|get)(:.*)?)$/;
const sgdiskWrites = (p: ParsedOptions): boolean =>
  p.opts.some((o) => !SGDISK_LOOKS.has(o.name) && !(o.name === 'A' && SGDISK_SHOW_ATTRIBUTES.test(literal(o.value?.v ?? '') ?? '')));
const SGDISK_LETTERS = new Set([...PARTITION_OPTIONS.sgdisk!.short!, ...Object.values(PARTITION_OPTIONS.sgdisk!.alias!)]);
/**
 * `-P`/`--pretend` (gptcl.cc): read before any change is made, it keeps -z, -Z, -m and the final save off the disk; -R
 * still writes the other device. popt stops at the first option it does not know, a -P after it unread, and takes no
 * abbreviation, and with POSIXLY_CORRECT set none after the device: only known options, -P spelled out before the device.
 */
const sgdiskPretends = (args: readonly Arg[], p: ParsedOptions): boolean =>
  parseOptions(args, { ...PARTITION_OPTIONS.sgdisk, posix: true }).opts.some((o) => o.name === 'P' && o.value === null && /^(-[^-].*|--pretend)$/.test(literal(o.arg.v) ?? '')) &&
  p.opts.every((o) => !o.partial && SGDISK_LETTERS.has(o.name)) && !p.unknown;

/** wipefs (util-linux wipefs.c): its options, those taking a value, and those taking one only attached (`--backup[=DIR]`). */
const WIPEFS: OptionSpec = {
  short: 'Oot', attached: 'bl', shortFlags: 'afhiJnpqQV',
  long: ['offset', 'output', 'types'], flags: ['all', 'backup', 'force', 'help', 'lock', 'no-act', 'noheadings', 'json', 'parsable', 'quiet', 'version'],
  alias: { offset: 'o', output: 'O', types: 't', all: 'a', backup: 'b', force: 'f', help: 'h', lock: 'l', 'no-act': 'n', noheadings: 'i', json: 'J', parsable: 'p', quiet: 'q', version: 'V' },
};
const WIPEFS_LETTERS = new Set([...'OotblafhiJnpqQV']);
/**
 * wipefs erases only with -a (every signature) or -o OFFSET, and -n (--no-act) skips the write; without them it lists the
 * signatures it finds. Any option it may not know, or a word not known, is read as erasing.
 */
function wipefsErases(args: readonly Arg[]): boolean {
  const p = parseOptions(args, WIPEFS);
  if (p.unknown || args.some((a) => !isKnown(a.v)) || p.opts.some((o) => o.partial || !WIPEFS_LETTERS.has(o.name))) return true;
  return has(p, 'a', 'o') && !has(p, 'n');
}

const deviceOperand = (inv: Invocation): string | null => {
  for (const a of parseOptions(inv.args).operands) {
    const c = canonical(a.v, inv.cwd);
    if (isBlockDevice(c) || !isKnown(a.v) || (literal(a.v) ?? '').startsWith('/dev/')) return c ? showCanon(c) : a.info.raw;
  }
  return null;
};

export function checkDevices(inv: Invocation, emit: Emit): void {
  for (const t of writeTargets(inv)) {
    if (isBlockDevice(t.path)) emit('shell.device.write', `${inv.text} → ${showCanon(t.path!)}`);
  }
  const prog = inv.program;
  if (prog === 'mkfs' || prog.startsWith('mkfs.') || prog === 'newfs' || prog.startsWith('newfs_')) {
    // SPEC §6 lists mkfs.* as a hard block, dry-run options included
    emit('shell.device.mkfs', inv.text);
    return;
  }
  if (FORMAT_ON_DEVICE.has(prog)) {
    if (deviceOperand(inv)) emit('shell.device.mkfs', inv.text);
    return;
  }
  if (prog === 'blkdiscard' || (prog === 'wipefs' && wipefsErases(inv.args))) { emit('shell.device.wipe', inv.text); return; }
  if (prog === 'wipefs') return;
  // ddrescue IN OUT: only its output is written (reading a failing disk into an image is its point)
  if (prog === 'ddrescue') {
    const out = parseOptions(inv.args).operands[1];
    if (out && isBlockDevice(canonical(out.v, inv.cwd))) emit('shell.device.write', inv.text);
    return;
  }
  // a new pool or volume group takes over whole devices
  if ((prog === 'zpool' && ['create', 'add', 'attach', 'replace', 'labelclear'].includes(literal(inv.args[0]?.v ?? '') ?? '')) || prog === 'vgcreate' || prog === 'pvremove') {
    if (deviceOperand(inv)) { emit('shell.device.mkfs', inv.text); return; }
  }
  const words = inv.args.map((a) => literal(a.v) ?? '');
  const p = parseOptions(inv.args);
  const q = PARTITION_OPTIONS[prog] ? parseOptions(inv.args, PARTITION_OPTIONS[prog]) : p;
  const pretends = prog === 'sgdisk' && sgdiskPretends(inv.args, q);
  const wipes =
    (prog === 'shred' && p.operands.some((a) => isBlockDevice(canonical(a.v, inv.cwd)))) ||
    (prog === 'sgdisk' && !pretends && has(q, 'Z', 'z', 'o', 'zap-all', 'zap', 'clear')) ||
    (prog === 'nvme' && (words[0] === 'format' || words[0] === 'sanitize')) ||
    (prog === 'cryptsetup' && words.some((w) => /^(luksFormat|erase|luksErase|reencrypt)$/.test(w))) ||
    (prog === 'badblocks' && has(p, 'w')) ||
    (prog === 'hdparm' && inv.args.some((a) => /^--(security-erase|trim-sector-ranges|write-sector)/.test(a.v)));
  if (wipes) { emit('shell.device.wipe', inv.text); return; }
  const looks = prog === 'sgdisk' ? !(pretends ? has(q, 'R') : sgdiskWrites(q))
    : prog === 'sfdisk' ? sfdiskLeavesDisk(inv.args) : has(q, 'l', 'list', 'p', 'print', 'v', 'version', 'h', 'help') || words.includes('print');
  if (PARTITIONERS.has(prog) && !looks) {
    if (deviceOperand(inv)) emit('shell.device.partition', inv.text);
  }
}
