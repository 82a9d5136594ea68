import { createHash } from 'node:crypto';
import { link, open, unlink, type FileHandle } from 'node:fs/promises';
import { basename } from 'node:path';
import type { Command } from 'commander';
import { configFor } from '../config-option.ts';
import { CliError, EXIT } from '../errors.ts';
import { parseInstant, refuseEmptyText } from '../option-values.ts';
import { printJson, printTable } from '../output.ts';
import { actorName, withStore } from '../store-session.ts';
import { unreadable } from '../../util/file-errors.ts';

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
      const [{ planArchive, plannedRecords, recordArchive, deleteArchivedRecords, ArchiveConflict }, { ChainWalk }] = await Promise.all([
        import('../../store/audit-archive.ts'), import('../../store/audit-file.ts'),
      ]);
      const outcome = await withStore(configFor(cmd).config, async (db) => {
        const plan = await planArchive(db.db, before);
        if (!plan) return null;
        const partial = `${opts.out}.partial`;
        const walk = new ChainWalk(plan.after);
        const hash = createHash('sha256');
        let file: FileHandle | null;
        try {
          file = await open(partial, 'wx', 0o600);
        } catch (err) {
          throw new CliError(`--out: cannot create ${partial} (${unreadable(err)})`, EXIT.cantCreate);
        }
        let written = false;
        try {
          let buffer = '';
          const flush = async () => {
            const bytes = Buffer.from(buffer);
            hash.update(bytes);
            await file!.write(bytes);
            buffer = '';
          };
          for await (const row of plannedRecords(db.db, plan)) {
            walk.push(row);
            if (walk.firstBad) break;
            buffer += `${JSON.stringify(row)}\n`;
            if (buffer.length >= FLUSH_BYTES) await flush();
          }
          if (walk.firstBad) throw new CliError(`the chain is broken at record ${walk.firstBad.seq} (${walk.firstBad.problem}: ${walk.firstBad.detail}); nothing was archived: run audit verify`, EXIT.failure);
          if (walk.head?.seq !== plan.last) throw new CliError(`records ${walk.head?.seq ?? plan.after.seq}..${plan.last} were not found while archiving; nothing was archived: run audit verify`, EXIT.failure);
          await flush();
          // on disk before the rows it holds leave the database
          await file!.sync();
          await file!.close();
          file = null;
          // link, not rename: a file someone created at --out meanwhile is never replaced
          await link(partial, opts.out).catch((err: unknown) => { throw new CliError(`--out: cannot create ${opts.out} (${unreadable(err)}); nothing was archived`, EXIT.cantCreate); });
          written = true;
          await unlink(partial);
        } finally {
          await file?.close();
          if (!written) await unlink(partial).catch(() => {});
        }
        const sha256 = hash.digest('hex');
        try {
          const archive = await recordArchive(db.db, { plan, lastHash: walk.head!.hash, before, file: basename(opts.out), fileSha256: sha256, actor });
          const deleted = await deleteArchivedRecords(db.db);
          return { archive, deleted };
        } catch (err) {
          // the file holds records the database still has: remove it, so nobody takes it for an archive
          await unlink(opts.out).catch(() => {});
          if (err instanceof ArchiveConflict) throw new CliError(err.message, EXIT.failure);
          throw err;
        }
      });
      if (!outcome) {
        if (opts.json) printJson({ archived: 0 });
        else process.stdout.write(`nothing to archive: no records stamped before ${before.toISOString()} besides the chain's newest\n`);
        return;
      }
      const { archive } = outcome;
      if (opts.json) { printJson(outcome); return; }
      process.stdout.write(`archived records ${archive.first_seq}..${archive.last_seq} (${archive.records}) to ${opts.out}, sha256 ${archive.file_sha256}, as ${archive.id}\n`
        + `the chain in the database now begins after ${archive.last_seq}:${archive.last_hash}\n`
        + `check the file: echo-agent audit verify --file ${opts.out} --after ${archive.after_seq}:${archive.after_hash} --head ${archive.last_seq}:${archive.last_hash}\n`);
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
