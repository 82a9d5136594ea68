import { gitCommand } from './git-command.ts';
import type { Arg } from './model.ts';
import { literal } from './values.ts';

/**
 * Files git sub-commands read and print or keep (beside `--no-index`, see checks/files.ts): `git config -f FILE -l`
 * lists an INI file (`~/.aws/credentials`), `commit|tag|notes|merge -F FILE` makes it a message in the repository,
 * `hash-object -w`, `archive --add-file`, `blame --contents`, `merge-file -p`, `interpret-trailers` and `send-email`
 * print, store or mail the files they are given.
 */
interface GitReads {
  /** Options whose value is a file read (long names without `--`, short letters). */
  readonly files: readonly string[];
  /** Operands are files read too. */
  readonly operands?: boolean;
  /** Other options taking a value, so the word after is no operand. */
  readonly values?: readonly string[];
}

const MESSAGE: GitReads = { files: ['F', 'file'], values: ['m', 'message', 'C', 'c', 'reuse-message', 'reedit-message', 'fixup', 'squash', 'author', 'date', 'trailer', 'cleanup', 'u', 'S', 'gpg-sign', 'pathspec-from-file'] };
const GIT_READS: Readonly<Record<string, GitReads>> = {
  config: { files: ['f', 'file'] },
  commit: { ...MESSAGE, files: ['F', 'file', 't', 'template'] },
  tag: MESSAGE, notes: MESSAGE, merge: MESSAGE, 'commit-tree': { files: ['F'], values: ['p', 'm', 'S'] },
  'hash-object': { files: [], operands: true, values: ['t', 'path'] },
  archive: { files: ['add-file'] },
  blame: { files: ['contents'] },
  'merge-file': { files: [], operands: true, values: ['L'] },
  'interpret-trailers': { files: [], operands: true, values: ['trailer', 'where', 'if-exists', 'if-missing'] },
  'send-email': { files: [], operands: true, values: ['from', 'to', 'cc', 'bcc', 'subject', 'in-reply-to', 'smtp-server', 'smtp-server-port', 'smtp-user', 'smtp-pass', 'identity', 'smtp-encryption', 'smtp-domain', 'smtp-auth'] },
};

const valueArg = (a: Arg, from: number): Arg => ({ v: a.v.slice(from), info: a.info });

/** The files `git …` reads the contents of and hands over (as option values or operands). */
export function gitReadFiles(args: readonly Arg[]): Arg[] {
  const [sub, ...words] = gitCommand(args).words;
  const name = literal(sub?.v ?? '');
  const spec = name !== null && Object.hasOwn(GIT_READS, name) ? GIT_READS[name]! : null;
  if (!spec) return [];
  const takes = (o: string): boolean => spec.files.includes(o) || (spec.values ?? []).includes(o);
  const out: Arg[] = [];
  for (let i = 0; i < words.length; i++) {
    const a = words[i]!;
    const w = literal(a.v) ?? '';
    if (w === '--') { if (spec.operands) out.push(...words.slice(i + 1)); break; }
    const long = /^--([^=]+)(=)?/.exec(w);
    const short = long ? null : /^-([A-Za-z])/.exec(w);
    const opt = long?.[1] ?? short?.[1];
    if (opt === undefined) { if (spec.operands) out.push(a); continue; }
    if (!takes(opt)) continue;
    // `--file=F`, `-FF`, or the next word
    const value = long?.[2] ? valueArg(a, a.v.indexOf('=') + 1) : short && w.length > 2 ? valueArg(a, 2) : words[++i];
    if (value && spec.files.includes(opt)) out.push(value);
  }
  return out;
}
