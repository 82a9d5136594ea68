import type { EmbeddedCodeSpec } from './code-tables.ts';
import { SORT_OPTIONS, TRANSFER_OPTIONS } from './program-tables.ts';
import { WRAPPERS } from './wrapper-tables.ts';

/**
 * More programs that run a command from their options (part of EMBEDDED_CODE): sort's compressor, split's --filter (run
 * with the shell for each piece), strace's `-o '|CMD'` / `'!CMD'` (its output piped to CMD), tcpdump's -z post-rotate
 * command, rsync's --rsync-path (run with the shell at the other end), netcat's and socat's commands (fed by the network); and clients reading commands on stdin in which
 * `!CMD` runs a shell: ed, ftp, sftp (in batch mode too).
 */
const BANG: readonly RegExp[] = [/^\s*!(?<code>.*)$/s];
/** ed: `!CMD`, and `r !CMD`, `w !CMD`, `e !CMD` after an address. */
const ED_BANG: readonly RegExp[] = [/^\s*[0-9,.$;'a-z+-]*\s*(?:[rweE]\s*)?!(?<code>.*)$/s];
const STRACE_PIPE: readonly RegExp[] = [/^\s*[|!](?<code>.*)$/s];
/** A program or command run with a network connection as its stdin and stdout. */
const NET: readonly RegExp[] = [/^(?<net>.*\S.*)$/s];
/** socat's EXEC:cmd and SYSTEM:cmd addresses (their options after a comma). */
const SOCAT: readonly RegExp[] = [/^(?:exec|system):(?<net>[^,]*\S[^,]*)/i];
const NCAT = { short: 'ecpsiwdgGmox', long: ['exec', 'sh-exec', 'lua-exec', 'source-port', 'source', 'wait', 'idle-timeout', 'delay', 'max-conns', 'output', 'hex-dump', 'proxy', 'proxy-type', 'proxy-auth', 'allow', 'allowfile', 'deny', 'denyfile'], alias: { exec: 'e', 'sh-exec': 'c' } };

export const FILTER_CODE: Readonly<Record<string, EmbeddedCodeSpec>> = {
  sort: { spec: SORT_OPTIONS, options: { 'compress-program': true } },
  split: {
    spec: { short: 'abCdlnt', long: ['suffix-length', 'additional-suffix', 'bytes', 'line-bytes', 'lines', 'number', 'separator', 'filter', 'numeric-suffixes', 'hex-suffixes'] },
    options: { filter: true },
  },
  strace: { spec: WRAPPERS.strace!, options: { o: STRACE_PIPE, output: STRACE_PIPE } },
  tcpdump: { spec: { short: 'BcCDEFGiIjmMQrsTVwWyzZ', long: ['buffer-size', 'interface', 'time-stamp-type', 'snapshot-length', 'direction', 'relinquish-privileges'] }, options: { z: true } },
  rsync: { spec: TRANSFER_OPTIONS.rsync, options: { e: true, rsh: true, 'rsync-path': true } },
  // netcat's -e PROG and -c CMD (ncat --exec, --sh-exec), socat's EXEC:/SYSTEM: addresses: run with the peer as stdin
  ncat: { spec: NCAT, options: { e: NET, c: NET } }, nc: { spec: NCAT, options: { e: NET, c: NET } }, netcat: { spec: NCAT, options: { e: NET, c: NET } },
  socat: { anyWord: SOCAT },
  ed: { stdin: ED_BANG }, red: { stdin: ED_BANG }, ftp: { stdin: BANG }, sftp: { stdin: BANG, files: { '-b': BANG } },
};
