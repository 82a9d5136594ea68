import { has, parseOptions, type OptionSpec } from '../flags.ts';
import type { Arg, Emit, Invocation, RedirFact } from '../model.ts';
import { canonical, holdsSecret, isAnySecret, isBlockDevice, isCredentialFile, isLoginFile, isSecret, isUserSecret, showCanon } from '../paths.ts';
import { AWK_OPTIONS, AWK_PROGRAM_GIVEN } from '../awk-program.ts';
import { AWKS, NAME_LISTS, NON_READERS, PATTERN_FIRST, READERS, TRANSFER_OPTIONS } from '../program-tables.ts';
import { perFileCommands } from '../embedded-code.ts';
import { gitCommand } from '../git-command.ts';
import { gitReadFiles } from '../git-reads.ts';
import { innerProgram } from '../unwrap.ts';
import { isLister, listerStarts } from '../listers.ts';
import { pathsIn, treeSources, writeTargets, type Target } from './targets.ts';
import { servedDirs } from '../file-servers.ts';
import { outputFiles } from '../output-files.ts';
import { WRAPPERS } from '../wrapper-tables.ts';
import { staticNames } from './static-names.ts';

const WRITES = new Set(['>', '>>', '>|', '&>', '&>>', '<>']);
const READS = new Set(['<', '<>']);
/** Programs that use keys or change file metadata without printing contents. */
const KEY_USERS = new Set(['ssh', 'ssh-keygen', 'ssh-add', 'ssh-copy-id', 'chmod', 'chown', 'chgrp', 'mkdir', 'touch', 'setfacl', 'chattr', 'restorecon', 'rm', 'shred', 'sftp', 'kinit']);
/** `klist -k KEYTAB` lists a keytab's principals; -K would print its keys too. */
const listsKeytab = (inv: Invocation): boolean => inv.program === 'klist' && !inv.args.some((a) => /^-[A-Za-z]*K/.test(a.v));
/** Options of copy tools whose value is a key or config, not a file to copy. */
const TRANSFER: Readonly<Record<string, OptionSpec>> = TRANSFER_OPTIONS;

/** Searchers' and sed's options that give the pattern or script (then the first operand is a file), or take a value. */
const SEARCH_PATTERN = { spec: { short: 'efABCmd', long: ['regexp', 'file', 'expression', 'max-count', 'context'] }, given: ['e', 'f', 'regexp', 'file', 'expression'] };
/** awk's options and those giving the program (awk-program.ts). */
const AWK_PROGRAM = { spec: AWK_OPTIONS, given: AWK_PROGRAM_GIVEN };

/** What a copy reads: its operands but the destination. */
function sources(inv: Invocation, spec: OptionSpec): readonly Arg[] {
  const p = parseOptions(inv.args, spec);
  const toDir = has(p, 't', 'target-directory');
  return toDir || p.operands.length < 2 ? p.operands : p.operands.slice(0, -1);
}
const SYSRQ = '/proc/sysrq-trigger';

/** Reading /etc/shadow, root's SSH directory or a private key. */
export function checkSecretRead(inv: Invocation, emit: Emit): void {
  const prog = inv.program;
  if (prog === 'getent' && inv.args.some((a) => /^g?shadow$/.test(a.v))) { emit('shell.secret.read', inv.text); return; }
  // `git diff --no-index A B` prints the files it is given (an alias may say --no-index)
  const gitReads = prog === 'git' && gitCommand(inv.args).words.some((a) => a.v === '--no-index');
  // `git config -f ~/.aws/credentials -l`, `git commit -F /etc/shadow`: files git prints or keeps
  if (prog === 'git') {
    const read = gitReadFiles(inv.args).flatMap((a) => pathsIn(inv, a)).find((t) => isAnySecret(t.path));
    if (read) { emit('shell.secret.read', `${inv.text} → ${showCanon(read.path!)}`); return; }
  }
  if (prog === '' || (NON_READERS.has(prog) && !gitReads) || KEY_USERS.has(prog) || listsKeytab(inv)) return;
  const reader = READERS.has(prog) || gitReads;
  let args = inv.args;
  if (TRANSFER[prog]) args = sources(inv, TRANSFER[prog]);
  else if (PATTERN_FIRST.has(prog)) {
    const t = AWKS.has(prog) ? AWK_PROGRAM : SEARCH_PATTERN;
    const p = parseOptions(inv.args, t.spec);
    const patternGiven = has(p, ...t.given);
    const pattern = patternGiven ? null : p.operands[0];
    args = inv.args.filter((a) => a !== pattern);
  }
  let login: Target | undefined;
  for (const a of args) {
    // outside known readers, quoted text is data unless it is an option value or curl's @file
    const bare = !a.info.quoted || a.v.includes('=') || a.v.includes('@');
    for (const t of pathsIn(inv, a)) {
      if ((isSecret(t.path) && (reader || bare)) || (reader && isUserSecret(t.path))) {
        emit('shell.secret.read', `${inv.text} → ${showCanon(t.path!)}`);
        return;
      }
      if (reader && !login && isLoginFile(t.path) && !usesLogin(inv, a)) login = t;
    }
  }
  if (login) emit('shell.credential.read', `${inv.text} → ${showCanon(login.path!)}`);
  // a recursive copy or archive reads every secret below its sources (`cp -r /root x`, `tar czf x.tgz ~/.ssh`)
  const tree = [...treeSources(inv), ...findReads(inv), ...listedReads(inv), ...servedDirs(inv), ...staticNames(inv)].find((t) => holdsSecret(t.path));
  if (tree) emit('shell.secret.read', `${inv.text} → ${showCanon(tree.path!)} (holds secrets, read recursively)`);
}

/** `curl --netrc-file F`: curl logs in with F, as it does with ~/.netrc by itself; it does not print it. */
function usesLogin(inv: Invocation, a: Arg): boolean {
  const given = (option: string): boolean => a.v.startsWith(`${option}=`) || inv.args[inv.args.indexOf(a) - 1]?.v === option;
  // curl's login file; a dotenv file handed to a container's environment (`docker run --env-file .env`) is not printed
  return (inv.program === 'curl' && given('--netrc-file')) || given('--env-file');
}

const readsFiles = (p: string | null): boolean => p !== null && READERS.has(p) && !NON_READERS.has(p) && !KEY_USERS.has(p);

/** `find START… -exec READER {} +`, `fd . START -x READER`: a search of everything below START (`.` when none), like `grep -r`; nothing when no reader runs. */
function findReads(inv: Invocation): Target[] {
  return isLister(inv) && perFileCommands(inv).some((words) => readsFiles(innerProgram(words))) ? listerStarts(inv) : [];
}

/**
 * `find START | xargs READER`, `find START | while read f; do READER "$f"; done`, `READER $(find START)`, `tar -T list`:
 * the reader gets the names find (or fd) lists, everything below START, like `find START -exec READER {} +`.
 */
function listedReads(inv: Invocation): Target[] {
  // cpio and pax read the files a list names (see ListingFiles.nameLists), not their operands
  if (!readsFiles(inv.program) && !NAME_LISTS[inv.program]) return [];
  return [...(inv.appendsArgs ? inv.upstream : []), ...(inv.listedBy ?? [])].filter(isLister).flatMap(listerStarts);
}

/** A wrapper's own output files (`time -o F CMD`, `strace -o F CMD`, `script F`): a device or a credential file, as a redirection there. */
export function checkWrapperOutputs(name: string, args: readonly Arg[], emit: Emit): void {
  if (!Object.hasOwn(WRAPPERS, name)) return;
  for (const a of outputFiles(name, args)) checkRedirect({ op: '>', fd: '', target: a, text: null, inner: [], cwd: null }, emit);
}

export function checkCredentialWrite(inv: Invocation, emit: Emit): void {
  for (const t of writeTargets(inv)) {
    if (t.path && showCanon(t.path) === SYSRQ) emit('shell.system.power', `${inv.text} → ${SYSRQ}`);
    else if (isCredentialFile(t.path)) { emit('shell.credential.write', `${inv.text} → ${showCanon(t.path!)}`); return; }
  }
}

/** Redirections: into a device, the sysrq trigger or a credential file; from a secret. */
export function checkRedirect(r: RedirFact, emit: Emit): void {
  if (!r.target) return;
  const c = canonical(r.target.v, r.cwd);
  if (!c) return;
  const shown = `${r.fd}${r.op} ${showCanon(c)}`;
  if (WRITES.has(r.op)) {
    if (isBlockDevice(c)) emit('shell.device.write', shown);
    else if (showCanon(c) === SYSRQ) emit('shell.system.power', shown);
    else if (isCredentialFile(c)) emit('shell.credential.write', shown);
  }
  if (READS.has(r.op) && isAnySecret(c)) emit('shell.secret.read', shown);
  else if (READS.has(r.op) && isLoginFile(c)) emit('shell.credential.read', shown);
}
