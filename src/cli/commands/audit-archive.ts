import { createHash } from 'node:crypto';
import { link, open, readFile, unlink, type FileHandle } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import type { Command } from 'commander';
import { configFor } from '../config-option.ts';
import { CliError, EXIT } from '../errors.ts';
import { parseInstant, refuseEmptyText } from '../option-values.ts';
import { printJson, printTable } from '../output.ts';
import { actorName, withStore } from '../store-session.ts';
import { unreadable } from '../../util/file-errors.ts';
import { processIdentity } from '../../util/process-identity.ts';
import type { ChainWalk } from '../../store/audit-file.ts';
import type { AuditRow } from '../../store/schema.ts';

/** Lines buffered before a write: one write per record would make a million-record archive slow. */
const FLUSH_BYTES = 1 << 20;

export function registerAuditArchiveCommands(audit: Command): void {
  audit.command('archive').description('move records stamped before an instant to a file (checked, hashed, synced) and out of the database; the chain\'s newest record stays')
    .requiredOption('--before <instant>', 'ISO date or instant: records stamped before it are archived')
    .requiredOption('--out <file.jsonl>', 'the archive file to write; never overwritten')
    .option('--as <user>', 'who you are (default: the OS account)').option('--json', 'print JSON')
    .action(async (opts: { before: string; out: string; as?: string; json?: boolean }, cmd: Command) => {
      refuseEmptyText(opts, ['out']);
      const before = parseInstant('--before', opts.before)!;
      const actor = await actorName(opts.as);
      const [{ planArchive, plannedRecords, recordArchive, deleteArchivedRecords, listArchives, chainStart, ArchiveConflict }, { ChainWalk }] = await Promise.all([
        import('../../store/audit-archive.ts'), import('../../store/audit-file.ts'),
      ]);
      const outcome = await withStore(configFor(cmd).config, async (db) => {
        // an earlier archive that was recorded but did not finish deleting its rows finishes first
        const leftover = await deleteArchivedRecords(db.db);
        const plan = await planArchive(db.db, before);
        if (!plan) return { archive: null, deleted: leftover };
        const written = await writeArchiveFile(opts.out, plannedRecords(db.db, plan), new ChainWalk(plan.after), plan.last);
        let archive;
        try {
          archive = await recordArchive(db.db, { plan, lastHash: written.lastHash, before, file: resolve(opts.out), fileSha256: written.sha256, actor, from: processIdentity() });
        } catch (err) {
          // the file is an archive only if the database says so (a commit whose answer was lost may have happened)
          const recorded = (await listArchives(db.db).catch(() => [])).some((a) => a.last_seq === plan.last && a.file_sha256 === written.sha256);
          if (!recorded) {
            await unlink(opts.out).catch(() => {});
            if (err instanceof ArchiveConflict) throw new CliError(err.message, EXIT.failure);
            throw err;
          }
          archive = (await chainStart(db.db)).archive!;
        }
        try {
          return { archive, deleted: leftover + await deleteArchivedRecords(db.db) };
        } catch (err) {
          throw new CliError(`records ${archive.first_seq}..${archive.last_seq} are in ${opts.out} and recorded as ${archive.id}, but deleting them from the database failed `
            + `(${(err as Error).message}); keep the file, and run audit archive again (any --before) to finish`, EXIT.failure);
        }
      });
      const { archive } = outcome;
      if (!archive) {
        if (opts.json) printJson({ archived: 0, deleted: outcome.deleted });
        else process.stdout.write(`nothing to archive: no records stamped before ${before.toISOString()} besides the chain's newest${outcome.deleted ? ` (finished deleting ${outcome.deleted} records an earlier archive holds)` : ''}\n`);
        return;
      }
      if (opts.json) { printJson(outcome); return; }
      process.stdout.write(`archived records ${archive.first_seq}..${archive.last_seq} (${archive.records}) to ${resolve(opts.out)}, sha256 ${archive.file_sha256}, as ${archive.id}\n`
        + `the chain in the database now begins after ${archive.last_seq}:${archive.last_hash}\n`
        + `check the file: echo-agent audit verify --file ${resolve(opts.out)} --after ${archive.after_seq}:${archive.after_hash} --head ${archive.last_seq}:${archive.last_hash}\n`);
    });

  audit.command('archives').description('archives made by audit archive, oldest first: ranges, files, hashes').option('--json', 'print JSON')
    .action(async (opts: { json?: boolean }, cmd: Command) => {
      const { listArchives } = await import('../../store/audit-archive.ts');
      const rows = await withStore(configFor(cmd).config, (db) => listArchives(db.db));
      if (opts.json) printJson(rows);
      else printTable(['ARCHIVE', 'RECORDS', 'AFTER', 'HEAD', 'FILE', 'SHA256', 'BY', 'AT'], rows.map((a) => [
        a.id, `${a.first_seq}..${a.last_seq}`, `${a.after_seq}:${a.after_hash}`, `${a.last_seq}:${a.last_hash}`, a.file, a.file_sha256, a.archived_by, a.archived_at.toISOString(),
      ]));
    });
}

/**
 * Writes the records to `<out>.partial`, checking the chain as they pass, makes sure every byte is on disk
 * (a short write on a full disk resolves without an error: the file is read back and hashed), then links
 * it to `out` (never replacing a file there) and syncs the directory, so the name survives a power cut.
 */
async function writeArchiveFile(out: string, rows: AsyncIterable<AuditRow>, walk: ChainWalk, last: number): Promise<{ sha256: string; lastHash: string }> {
  const partial = `${out}.partial`;
  let file: FileHandle | null;
  try {
    file = await open(partial, 'wx', 0o600);
  } catch (err) {
    // left by an archive killed before it recorded anything, or one still writing: only a person can tell
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') {
      throw new CliError(`--out: ${partial} already exists: an audit archive to ${out} is running now, or one was interrupted before it recorded anything; when none is running, remove ${partial} and run again (nothing was archived)`, EXIT.cantCreate);
    }
    // the name the person gave: the side file is ours (a missing directory, a read-only one)
    throw new CliError(`--out: cannot create ${out} (${unreadable(err)}); nothing was archived`, EXIT.cantCreate);
  }
  let linked = false;
  try {
    const hash = createHash('sha256');
    let size = 0;
    let buffer = '';
    const flush = async () => {
      const bytes = Buffer.from(buffer);
      buffer = '';
      hash.update(bytes);
      try {
        for (let off = 0; off < bytes.length;) off += (await file!.write(bytes, off)).bytesWritten;
      } catch (err) {
        throw new CliError(`--out: cannot write ${partial} (${unreadable(err)}); nothing was archived`, EXIT.cantCreate);
      }
      size += bytes.length;
    };
    for await (const row of rows) {
      walk.push(row);
      if (walk.firstBad) break;
      buffer += `${JSON.stringify(row)}\n`;
      if (buffer.length >= FLUSH_BYTES) await flush();
    }
    if (walk.firstBad) throw new CliError(`the chain is broken at record ${walk.firstBad.seq} (${walk.firstBad.problem}: ${walk.firstBad.detail}); nothing was archived: run audit verify`, EXIT.failure);
    if (walk.head?.seq !== last) throw new CliError(`records up to ${last} were not all found while archiving; nothing was archived: run audit verify`, EXIT.failure);
    await flush();
    await file.sync();
    await file.close();
    file = null;
    const sha256 = hash.digest('hex');
    const onDisk = await readFile(partial);
    if (onDisk.length !== size || createHash('sha256').update(onDisk).digest('hex') !== sha256) {
      throw new CliError(`--out: ${partial} holds ${onDisk.length} of ${size} bytes after writing (a full disk or a file size limit?); nothing was archived`, EXIT.cantCreate);
    }
    // link, not rename: a file someone created at --out meanwhile is never replaced
    await link(partial, out).catch((err: unknown) => { throw new CliError(`--out: cannot create ${out} (${unreadable(err)}); nothing was archived`, EXIT.cantCreate); });
    linked = true;
    await unlink(partial);
    const dir = await open(dirname(resolve(out)), 'r');
    try { await dir.sync(); } finally { await dir.close(); }
    return { sha256, lastHash: walk.head!.hash };
  } finally {
    await file?.close();
    if (!linked) await unlink(partial).catch(() => {});
  }
}
