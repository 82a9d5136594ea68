import { has, parseOptions, type OptionSpec } from '../flags.ts';
import type { Emit, Invocation } from '../model.ts';
import { canonical, isBlockDevice, showCanon } from '../paths.ts';
import { isKnown, literal } from '../values.ts';
import { writeTargets } from './targets.ts';

/** Formatters that are only dangerous on a device (mkswap on a swap file is fine). */
const FORMAT_ON_DEVICE = new Set(['mke2fs', 'mkswap', 'mkntfs', 'mkdosfs', 'mkexfatfs', 'mkudffs', 'mkisofs-dev', 'mlabel', 'pvcreate']);
const PARTITIONERS = new Set(['fdisk', 'sfdisk', 'cfdisk', 'gdisk', 'sgdisk', 'parted']);
/**
 * Partitioners' short options taking a value, so that letters of an attached value are not read as -l or -p (`parted
 * -aopt`, `fdisk -tgpt`): fdisk.c "b:Bc::C:hH:lL::o:sS:t:u::vVw:W:", sfdisk.c "…o:O:nN:qrsTu:vVX:Y:w:W:", parted "hlmsfva:".
 */
const PARTITION_OPTIONS: Readonly<Record<string, OptionSpec>> = {
  fdisk: { short: 'bCHoStwW', attached: 'cLu' },
  sfdisk: { short: 'oONuXYwW' },
  parted: { short: 'a', long: ['align'] },
};

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
    emit('shell.device.mkfs', inv.text);
    return;
  }
  if (FORMAT_ON_DEVICE.has(prog)) {
    if (deviceOperand(inv)) emit('shell.device.mkfs', inv.text);
    return;
  }
  if (prog === 'wipefs' || prog === 'blkdiscard') { emit('shell.device.wipe', inv.text); return; }
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
  const wipes =
    (prog === 'shred' && p.operands.some((a) => isBlockDevice(canonical(a.v, inv.cwd)))) ||
    (prog === 'sgdisk' && has(p, 'Z', 'zap-all', 'z', 'zap', 'o', 'clear')) ||
    (prog === 'nvme' && (words[0] === 'format' || words[0] === 'sanitize')) ||
    (prog === 'cryptsetup' && words.some((w) => /^(luksFormat|erase|luksErase|reencrypt)$/.test(w))) ||
    (prog === 'badblocks' && has(p, 'w')) ||
    (prog === 'hdparm' && inv.args.some((a) => /^--(security-erase|trim-sector-ranges|write-sector)/.test(a.v)));
  if (wipes) { emit('shell.device.wipe', inv.text); return; }
  const q = PARTITION_OPTIONS[prog] ? parseOptions(inv.args, PARTITION_OPTIONS[prog]) : p;
  if (PARTITIONERS.has(prog) && !has(q, 'l', 'list', 'p', 'print', 'v', 'version', 'h', 'help') && !words.includes('print')) {
    if (deviceOperand(inv)) emit('shell.device.partition', inv.text);
  }
}
