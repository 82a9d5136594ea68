import { parseOptions } from '../flags.ts';
import type { Emit, Invocation, RedirFact } from '../model.ts';
import { canonical, isBlockDevice, isCredentialFile, isSecret, showCanon } from '../paths.ts';
import { NON_READERS, PATTERN_FIRST, READERS } from '../program-tables.ts';
import { pathsIn, writeTargets } from './targets.ts';

const WRITES = new Set(['>', '>>', '>|', '&>', '&>>', '<>']);
const READS = new Set(['<', '<>']);

/** Reading /etc/shadow or root's keys: readers even with quoted paths, anything else with a bare path. */
export function checkSecretRead(inv: Invocation, emit: Emit): void {
  if (NON_READERS.has(inv.program) || inv.program === '') return;
  const reader = READERS.has(inv.program);
  let args = inv.args;
  if (PATTERN_FIRST.has(inv.program)) {
    const p = parseOptions(inv.args, { short: 'efABCmd', long: ['regexp', 'file', 'expression', 'max-count', 'context'] });
    const patternGiven = p.opts.some((o) => ['e', 'f', 'regexp', 'file', 'expression'].includes(o.name));
    const pattern = patternGiven ? null : p.operands[0];
    args = inv.args.filter((a) => a !== pattern);
  }
  for (const a of args) {
    if (!reader && a.info.quoted && !a.v.includes('=') && !a.v.includes('@')) continue;
    for (const t of pathsIn(inv, a)) {
      if (isSecret(t.path)) { emit('shell.secret.read', `${inv.text} → ${showCanon(t.path!)}`); return; }
    }
  }
}

export function checkCredentialWrite(inv: Invocation, emit: Emit): void {
  for (const t of writeTargets(inv)) {
    if (isCredentialFile(t.path)) { emit('shell.credential.write', `${inv.text} → ${showCanon(t.path!)}`); return; }
  }
}

/** Redirections: into a device, into a credential file, or from a secret. */
export function checkRedirect(r: RedirFact, emit: Emit): void {
  if (!r.target) return;
  const c = canonical(r.target.v, r.cwd);
  if (!c) return;
  const shown = `${r.fd}${r.op} ${showCanon(c)}`;
  if (WRITES.has(r.op)) {
    if (isBlockDevice(c)) emit('shell.device.write', shown);
    else if (isCredentialFile(c)) emit('shell.credential.write', shown);
  }
  if (READS.has(r.op) && isSecret(c)) emit('shell.secret.read', shown);
}
