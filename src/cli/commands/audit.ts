import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';
import type { Command } from 'commander';
import type { Config } from '../../config/schema.ts';
import { configFor } from '../config-option.ts';
import { CliError, EXIT } from '../errors.ts';
import { parseLimit, parseSince, refuseEmptyText, sinceOn, type Since } from '../option-values.ts';
import { clip, printJson, printTable, warn } from '../output.ts';
import { actorCell, authorities, detailOf, type Authority } from '../authority.ts';
import { withStore } from '../store-session.ts';
import { unreadable } from '../../util/file-errors.ts';
import type { Executor } from '../../store/db.ts';
import type { AuditRow } from '../../store/schema.ts';
import type { AuditFilter } from '../../store/audit.ts';
import type { TablesVerdict } from '../../store/audit-verify-tables.ts';
import { registerAuditArchiveCommands } from './audit-archive.ts';
import { nearestName } from '../../util/nearest-name.ts';

const configOf = (cmd: Command): Config => configFor(cmd).config;

/**
 * Every kind of audit record this build writes (`grep -rn "kind: '" src` finds where).
 * `audit list --kind` takes these, or a kind the log holds (one another build wrote).
 */
export const AUDIT_KINDS: readonly string[] = [
  'allowlist.added', 'allowlist.revoked',
  'audit.archived',
  'approval.answer_refused', 'approval.answered', 'approval.requested',
  'gate.decision',
  'grant.cleared', 'grant.issued', 'grant.not_issued', 'grant.revoked', 'grant.superseded',
  'job.created', 'job.paused', 'job.removed', 'job.resumed', 'job.schedule_invalid', 'job.updated',
  'run.attempt_abandoned', 'run.delivery', 'run.outcome_discarded', 'run.queued', 'run.started', 'run.state', 'runs.pruned',
];

/** --kind: a known kind, or one the log holds; anything else is a typo that would list nothing (exit 64). */
async function checkKind(exec: Executor, kind: string): Promise<void> {
  if (AUDIT_KINDS.includes(kind)) return;
  const { listAudit } = await import('../../store/audit.ts');
  if ((await listAudit(exec, { kind, limit: 1 })).length > 0) return;
  const near = nearestName(kind, AUDIT_KINDS);
  throw new CliError(`--kind: no audit record kind ${JSON.stringify(kind)}${near ? ` (did you mean "${near}"?)` : ''}; known kinds: ${AUDIT_KINDS.join(', ')}`, EXIT.usage);
}

/** --run: a run the database holds, or one the log names; otherwise say so, as --job does (exit 1). */
async function checkRun(exec: Executor, id: string): Promise<void> {
  const [{ getRun }, { listAudit }] = await Promise.all([import('../../store/runs.ts'), import('../../store/audit.ts')]);
  if (await getRun(exec, id)) return;
  if ((await listAudit(exec, { run_id: id, limit: 1 })).length > 0) return;
  throw new CliError(`no run with id ${JSON.stringify(id)} (\`echo-agent jobs runs JOB\` lists a job's runs)`, EXIT.failure);
}

/** --trace: a trace some record carries; otherwise it is a typo that would list nothing (exit 1). */
async function checkTrace(exec: Executor, trace: string): Promise<void> {
  const { listAudit } = await import('../../store/audit.ts');
  if ((await listAudit(exec, { trace_id: trace, limit: 1 })).length > 0) return;
  throw new CliError(`--trace: no audit record carries trace id ${JSON.stringify(trace)} (\`audit list --json\` shows each record's trace_id; a daemon run's is its run id)`, EXIT.failure);
}

/** The narrowing options `audit list` and `audit export` share. */
interface FilterOptions {
  readonly job?: string; readonly run?: string; readonly kind?: string; readonly outcome?: string; readonly rule?: string; readonly trace?: string; readonly since?: string;
}
const FILTER_FLAGS = ['job', 'run', 'kind', 'outcome', 'rule', 'trace', 'since'] as const;
/** The filters whose empty value would list everything, the opposite of narrowing. */
const TEXT_FILTERS = ['job', 'run', 'kind', 'outcome', 'rule', 'trace'] as const;

/**
 * --outcome, --rule: a value some record holds, or one this build can write (a known rule id or outcome with no
 * records yet lists nothing, exit 0, as a known --kind does: "no unattended.dangerous refusals" is good news);
 * else the nearest one known or held, and what the log holds.
 */
async function checkValue(exec: Executor, column: 'outcome' | 'rule', value: string): Promise<void> {
  const [{ auditValues, listAudit }, { knownOutcomes, knownRuleIds }] = await Promise.all([import('../../store/audit.ts'), import('../audit-vocabulary.ts')]);
  const known = await (column === 'rule' ? knownRuleIds() : knownOutcomes());
  if (known.has(value)) return;
  if ((await listAudit(exec, { [column]: value, limit: 1 })).length > 0) return;
  const held = await auditValues(exec, column);
  const near = nearestName(value, [...new Set([...held, ...known])]);
  const shown = held.length > 20 ? `${held.slice(0, 20).join(', ')}, … (${held.length})` : held.join(', ');
  const what = column === 'rule' ? 'rule id' : 'outcome';
  throw new CliError(`--${column}: no ${what} ${JSON.stringify(value)} is known to this build, and no audit record has it${near ? ` (did you mean "${near}"?)` : ''}; the log holds: ${shown || 'none'}`, EXIT.usage);
}

/** The filter the options give, each checked first: a filter no record can match is a mistake to name, not an empty listing. */
async function recordFilter(exec: Executor, opts: FilterOptions, given: Since | undefined): Promise<AuditFilter> {
  const { jobByRef } = await import('../job-ref.ts');
  if (opts.kind) await checkKind(exec, opts.kind);
  const jobId = opts.job ? (await jobByRef(exec, opts.job, { includeRemoved: true })).id : undefined;
  if (opts.run) await checkRun(exec, opts.run);
  if (opts.trace) await checkTrace(exec, opts.trace);
  if (opts.outcome) await checkValue(exec, 'outcome', opts.outcome);
  if (opts.rule) await checkValue(exec, 'rule', opts.rule);
  const since = await sinceOn(exec, given);
  // the job's creating call names no job (it had no id yet): its decision and approval records are listed with it
  const { jobCreationSeqs } = await import('../../store/audit.ts');
  const created = jobId ? await jobCreationSeqs(exec, jobId) : [];
  return {
    ...(jobId ? { job_id: jobId } : {}), ...(created.length ? { with_seqs: created } : {}), ...(opts.run ? { run_id: opts.run } : {}), ...(opts.kind ? { kind: opts.kind } : {}),
    ...(opts.outcome ? { outcome: opts.outcome } : {}), ...(opts.rule ? { rule: opts.rule } : {}),
    ...(opts.trace ? { trace_id: opts.trace } : {}), ...(since ? { since } : {}),
  };
}

/** `audit list` without --limit: one screen of the newest records. */
const DEFAULT_LIST_LIMIT = 50;

/** How many records --all reads (and looks up authorities for) at a time. */
const ALL_PAGE = 5_000;

/**
 * The newest records of a filter and the authority behind each: `limit` + 1 of them (one more than shown: exactly
 * `limit` is no cut), or with no limit all of them, read page by page so each authority lookup stays small.
 */
async function listRecords(exec: Executor, filter: AuditFilter, before: number | undefined, limit: number | undefined): Promise<{ found: AuditRow[]; authority: Map<number, Authority> }> {
  const { listAudit } = await import('../../store/audit.ts');
  if (limit !== undefined) {
    const found = await listAudit(exec, { ...filter, ...(before ? { beforeSeq: before } : {}), limit: limit + 1 });
    return { found, authority: await authorities(exec, found.slice(0, limit)) };
  }
  const found: AuditRow[] = [];
  const authority = new Map<number, Authority>();
  // records appended meanwhile come after the first page's newest, so paging down by seq misses and repeats none
  for (let below = before; ;) {
    const page = await listAudit(exec, { ...filter, ...(below ? { beforeSeq: below } : {}), limit: ALL_PAGE });
    for (const [seq, a] of await authorities(exec, page)) authority.set(seq, a);
    found.push(...page);
    if (page.length < ALL_PAGE) return { found, authority };
    below = page[page.length - 1]!.seq;
  }
}

/** The filters given, as a person typed them: `--job, --kind`. */
const filtersGiven = (opts: FilterOptions): string[] => FILTER_FLAGS.filter((f) => opts[f] !== undefined).map((f) => `--${f}`);

/** The tool a record is about, and the approval request it names: `exec (apr_…)`, from its data. */
export function toolCell(data: AuditRow['data']): string {
  const str = (v: unknown) => (typeof v === 'string' && v !== '' ? v : undefined);
  const tool = str(data.tool);
  const approval = str(data.approval_id);
  return [tool, approval && `(${approval})`].filter(Boolean).join(' ');
}

/** A record's SEQ as `audit list` prints it. */
function parseSeq(flag: string, value: string): number {
  const n = /^\d+$/.test(value.trim()) ? Number(value) : NaN;
  if (!Number.isSafeInteger(n) || n < 1) throw new CliError(`${flag}: expected a record's SEQ as audit list prints it (a whole number from 1), got "${value}"`);
  return n;
}

/** `SEQ:HASH` as `audit verify` prints it. */
export function parseHead(value: string, flag = '--head'): { seq: number; hash: string } {
  const m = /^(\d+):([0-9a-f]{64})$/.exec(value.trim());
  if (!m) throw new CliError(`${flag}: expected SEQ:HASH as audit verify prints it (e.g. 42:3f…, 64 hex digits), got "${value}"`);
  return { seq: Number(m[1]), hash: m[2]! };
}

interface Verdict {
  ok: boolean;
  checked: number;
  head: { seq: number; hash: string } | null;
  firstBad?: { seq: number; problem: string; detail: string } | undefined;
  from?: number | null;
  note?: string;
  tables?: TablesVerdict | null;
}

function printVerdict(verdict: Verdict, json: boolean | undefined, what: string): void {
  // snake_case like every other --json output; the store's field stays firstBad
  const { firstBad, ...rest } = verdict;
  // ok: every check passed (exit 0); the chain alone broke when first_bad is there, the tables alone when tables.ok is false
  const ok = verdict.ok && verdict.tables?.ok !== false;
  if (json) printJson({ ...rest, ok, ...(firstBad ? { first_bad: firstBad } : {}) });
  else {
    if (verdict.ok) process.stdout.write(`${what} ok: ${verdict.checked} records${verdict.from && verdict.from > 1 ? ` from ${verdict.from}` : ''}, head ${verdict.head?.seq}:${verdict.head?.hash}\n${verdict.note ? `note: ${verdict.note}\n` : ''}`);
    else process.stdout.write(`${what} BROKEN at record ${verdict.firstBad?.seq}: ${verdict.firstBad?.problem} (${verdict.firstBad?.detail})\n`);
    if (verdict.tables) process.stdout.write(tablesText(verdict.tables, verdict.ok));
  }
  if (!ok) process.exitCode = EXIT.failure;
}

/** The tables against the chain, in words: each finding on a line of its own, with its rule, row and fields. */
function tablesText(t: TablesVerdict, chainOk: boolean): string {
  const archived = t.archived.job_grants + t.archived.approvals;
  const skipped = archived > 0 ? `; not checked: ${t.archived.job_grants} job_grants and ${t.archived.approvals} approvals rows whose records are archived (cannot check: archived)` : '';
  if (t.ok) return `tables vs chain ok: ${t.checked.job_grants} job_grants and ${t.checked.approvals} approvals rows match their audit records${skipped}\n`;
  const lines = t.findings.map((f) => `  ${f.rule} ${f.table} ${f.id}${f.fields.length ? ` [${f.fields.join(', ')}]` : ''}: ${f.detail}`);
  return `tables vs chain: ${t.findings.length} finding(s): rows DIFFER from the audit records (changed outside echo-agent; the chain itself is ${chainOk ? 'intact' : 'broken, see above'})${skipped}\n${lines.join('\n')}\n`;
}

const FILE_TABLES_NOTE = 'a file holds records only: job_grants and approvals rows are checked against the chain by audit verify without --file, in the database';

/** An export checked with no database: each record against its hash, each against the one before. */
async function verifyFile(file: string, expectHead: { seq: number; hash: string } | undefined, after: { seq: number; hash: string } | undefined): Promise<Verdict> {
  const [{ ChainWalk, parseExportLine }, { GENESIS_HASH }] = await Promise.all([import('../../store/audit-file.ts'), import('../../store/audit.ts')]);
  const walk = new ChainWalk(after, { file: true });
  const stream = createReadStream(file, 'utf8');
  const opened = new Promise<void>((resolve, reject) => { stream.once('open', () => resolve()); stream.once('error', reject); });
  // exit 66, not 1 or 65: a file that cannot be read says nothing about the chain in it, and holds no bad data
  const cannotRead = (err: unknown) => new CliError(`--file: ${file}: cannot read (${unreadable(err)})`, EXIT.noInput);
  await opened.catch((err: unknown) => { throw cannotRead(err); });
  let lineNo = 0;
  let seenAtHead: string | undefined;
  const lines = createInterface({ input: stream, crlfDelay: Infinity });
  try {
    for await (const line of lines) {
      lineNo++;
      if (line.trim() === '') continue;
      try {
        const row = parseExportLine(line, lineNo);
        walk.push(row);
        // the head seen before may lie inside the file, not only at its end
        if (expectHead && row.seq === expectHead.seq) seenAtHead ??= row.hash;
      } catch (err) {
        throw new CliError(`--file: ${file}: ${(err as Error).message}`, EXIT.dataErr);
      }
    }
  } catch (err) {
    // a directory opens fine and fails on the first read (EISDIR)
    if (err instanceof CliError) throw err;
    throw cannotRead(err);
  } finally {
    stream.destroy();
  }
  let firstBad = walk.firstBad ?? undefined;
  // an empty chain exports as an empty file: only a head of 0 seen before says that is all there was
  if (!firstBad && walk.checked === 0 && expectHead?.seq !== 0) firstBad = { seq: 1, problem: 'removed', detail: `the file holds no records (an export of an empty chain passes with --head 0:${GENESIS_HASH})` };
  if (!firstBad && expectHead) {
    const head = walk.head ?? { seq: 0, hash: GENESIS_HASH };
    if (head.seq < expectHead.seq) firstBad = { seq: head.seq + 1, problem: 'removed', detail: `the export ends at ${head.seq}, but record ${expectHead.seq} was seen before` };
    else if ((seenAtHead ?? head.hash) !== expectHead.hash && (seenAtHead !== undefined || head.seq === expectHead.seq)) {
      firstBad = { seq: expectHead.seq, problem: 'edited', detail: `record ${expectHead.seq} no longer has the hash seen before` };
    }
  }
  return { ok: !firstBad, checked: walk.checked, head: walk.head, from: walk.from, ...(firstBad ? { firstBad } : {}) };
}

/** The filter options, the same on `audit list` and `audit export`. */
function filterOptions(cmd: Command): Command {
  return cmd.option('--job <job>', 'one job (id or name), with the decision and approval records of the call that created it').option('--run <id>', 'one run')
    .option('--kind <kind>', 'one kind of record, e.g. gate.decision or run.state (an unknown kind is refused with the known ones)')
    .option('--outcome <outcome>', 'one outcome, e.g. deny (every refusal), allow, failed (a known one with no records lists nothing)')
    .option('--rule <rule>', 'one rule id, e.g. unattended.policy_deny or shell.rm.recursive_root (a known one with no records lists nothing; an unknown one is refused)')
    .option('--trace <id>', 'one call\'s or run\'s records: the trace_id a record carries (a daemon run\'s is its run id); leads from a job.created or grant.issued line to the decision behind it')
    .option('--since <when>', 'ISO date or instant, or a time ago: 90m, 24h, 2d, 1w');
}

export function registerAuditCommands(program: Command): void {
  const audit = program.command('audit').description('the append-only, hash-chained audit log');
  filterOptions(audit.command('list').description('newest records first'))
    .option('--before <seq>', 'only records before this SEQ: the next page of a long history')
    .option('--limit <n>', `how many (default ${DEFAULT_LIST_LIMIT}); when more match, a warning on standard error says so, with --json too`)
    .option('--all', 'every matching record, not one page (a whole log is better read with audit export, which streams it)')
    .option('--json', 'print JSON: an array of the same records the table shows')
    .action(async (opts: FilterOptions & { before?: string; limit?: string; all?: boolean; json?: boolean }, cmd: Command) => {
      // an empty filter would list everything, the opposite of narrowing
      refuseEmptyText(opts, [...TEXT_FILTERS]);
      if (opts.all && opts.limit !== undefined) throw new CliError('--all and --limit: give one; --all lists every matching record');
      const limit = opts.all ? undefined : parseLimit('--limit', opts.limit ?? String(DEFAULT_LIST_LIMIT));
      const since = parseSince('--since', opts.since);
      const before = opts.before === undefined ? undefined : parseSeq('--before', opts.before);
      const { found, authority } = await withStore(configOf(cmd), async (db) => listRecords(db.db, await recordFilter(db.db, opts, since), before, limit));
      const shown = limit === undefined ? found : found.slice(0, limit);
      // the same page in text and JSON, so a script's query reads the same as the table a person checks it with; the
      // cut is said on stderr (stdout stays the bare array) with how to reach the rest: an incident's history is often longer
      if (limit !== undefined && found.length > limit) {
        warn(`showing the newest ${limit}; use --limit for more, --all for every one, or the same command with --before ${shown[shown.length - 1]!.seq} for the older ones`);
      }
      if (opts.json) printJson(shown.map((r) => ({ ...r, authority: authority.get(r.seq) ?? null })));
      else printTable(['SEQ', 'AT', 'KIND', 'ACTOR', 'JOB', 'RUN', 'STEP', 'OUTCOME', 'TOOL', 'RULE', 'AUTHORITY', 'REASON'], shown.map((r) => [
        r.seq, r.at.toISOString(), r.kind, actorCell(r), r.job_id ?? '', r.run_id ?? '', r.step ?? '', r.outcome ?? '', toolCell(r.data), r.rule ?? '', authority.get(r.seq)?.text ?? '', clip(detailOf(r), 100),
      ]));
    });
  audit.command('verify').description('check the hash chain: detects edited, removed and reordered records; in the database, also job_grants and approvals rows that differ from their records (exit 1 when either is found; 66 when --file cannot be read)')
    .option('--head <seq:hash>', 'a head seen before (from an earlier verify or the daemon log): also detects a cut or rewritten tail')
    .option('--file <export.jsonl>', 'check an unfiltered `audit export` or an `audit archive` file instead of the database (no database needed)')
    .option('--after <seq:hash>', 'with --file: the record the file\'s first record follows (the head of the archive before it), when it does not start at the genesis')
    .option('--json', 'print JSON')
    .action(async (opts: { head?: string; file?: string; after?: string; json?: boolean }, cmd: Command) => {
      const expectHead = opts.head === undefined ? undefined : parseHead(opts.head);
      const after = opts.after === undefined ? undefined : parseHead(opts.after, '--after');
      if (after && opts.file === undefined) throw new CliError('--after: only with --file; the database knows where its chain begins');
      if (opts.file !== undefined) {
        if (opts.file.trim() === '') throw new CliError('--file: expected a path to an audit export');
        // an export holds records only: the job_grants and approvals rows are checked against the chain in the database alone
        const file = await verifyFile(opts.file, expectHead, after);
        printVerdict({ ...file, tables: null, ...(file.note ? {} : { note: FILE_TABLES_NOTE }) }, opts.json, `audit file ${opts.file}`);
        return;
      }
      const { verifyAudit } = await import('../../store/audit-verify.ts');
      printVerdict(await withStore(configOf(cmd), (db) => verifyAudit(db.db, { tables: true, ...(expectHead ? { expectHead } : {}) })), opts.json, 'audit chain');
    });
  registerAuditArchiveCommands(audit);
  filterOptions(audit.command('export').description('every record in chain order as JSON lines; unfiltered, it is checked as it is written (exit 1 when broken)'))
    .option('--json', 'the closing summary on stderr as one JSON object (the records are JSON lines either way)')
    .action(async (opts: FilterOptions & { json?: boolean }, cmd: Command) => {
      refuseEmptyText(opts, [...TEXT_FILTERS]);
      const since = parseSince('--since', opts.since);
      const filtered = filtersGiven(opts);
      const unchecked = `a filtered export (${filtered.join(', ')}) is not a contiguous chain`;
      const [{ exportAudit, GENESIS_HASH }, { ChainWalk }, { chainStart }, { inSnapshot }] = await Promise.all([
        import('../../store/audit.ts'), import('../../store/audit-file.ts'), import('../../store/audit-archive.ts'), import('../../store/db.ts'),
      ]);
      let walk = null as InstanceType<typeof ChainWalk> | null;
      let exported = 0;
      let start = { seq: 0, hash: GENESIS_HASH };
      // one snapshot: an archive that commits meanwhile would cut rows out from under the walk
      await withStore(configOf(cmd), (db) => inSnapshot(db.db, async (tx) => {
        // archived records are in their files; rows an interrupted archive left behind are not the chain's
        start = (await chainStart(tx)).after;
        // a filtered export is not contiguous, so only the full one can be checked on the way out
        walk = filtered.length > 0 ? null : new ChainWalk(start);
        const filter = await recordFilter(tx, opts, since);
        for await (const row of exportAudit(tx, { ...filter, afterSeq: start.seq })) {
          walk?.push(row);
          exported++;
          process.stdout.write(`${JSON.stringify(row)}\n`);
        }
      }));
      if (walk?.firstBad) process.exitCode = EXIT.failure;
      if (opts.json) {
        // stdout carries the records, so the summary a script reads goes to stderr
        const head = walk?.head ?? start;
        const summary = walk ? { exported, checked: true, ok: !walk.firstBad, head: { seq: head.seq, hash: head.hash }, after: start, first_bad: walk.firstBad }
          : { exported, checked: false, why_unchecked: unchecked };
        process.stderr.write(`${JSON.stringify(summary)}\n`);
      } else if (!walk) {
        // said in text mode too: such a file kept for later fails audit verify --file as "removed"
        process.stderr.write(`exported ${exported} records, unchecked: ${unchecked}, so audit verify --file cannot check it; export unfiltered for that\n`);
      } else if (walk.firstBad) {
        process.stderr.write(`warning: the exported chain is BROKEN at record ${walk.firstBad.seq}: ${walk.firstBad.problem} (${walk.firstBad.detail})\n`);
      } else {
        const head = walk.head ?? start;
        const after = start.seq > 0 ? ` --after ${start.seq}:${start.hash}` : '';
        process.stderr.write(`exported ${walk.checked} records${after ? ` (after archived record ${start.seq})` : ''}, chain ok, head ${head.seq}:${head.hash}; check the file later with: echo-agent audit verify --file FILE${after} --head ${head.seq}:${head.hash}\n`);
      }
    });
}
