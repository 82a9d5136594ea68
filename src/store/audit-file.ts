import { auditHash, GENESIS_HASH } from './audit.ts';
import type { AuditProblem } from './audit-verify.ts';
import type { AuditRow } from './schema.ts';

/**
 * The chain checked record by record as it streams past, with no database: for
 * `audit export` (which warns when what it writes is broken) and for
 * `audit verify --file` on an export kept elsewhere. Each record must match its
 * own hash; consecutive records must link (seq + 1, prev_hash = previous hash).
 */
export class ChainWalk {
  private prev: { seq: number; hash: string } | null = null;
  private first: number | null = null;

  /**
   * `after`: the record the walk's first record must follow; the genesis unless the start was archived.
   * `file`: the records come from a file someone kept, which may be a filtered export: a gap says so.
   */
  constructor(
    private readonly after: { seq: number; hash: string } = { seq: 0, hash: GENESIS_HASH },
    private readonly opts: { file?: boolean } = {},
  ) {}
  checked = 0;
  firstBad: { seq: number; problem: AuditProblem; detail: string } | null = null;

  push(row: AuditRow): void {
    this.checked++;
    if (this.firstBad) return;
    this.first ??= row.seq;
    if (auditHash(row) !== row.hash) {
      this.firstBad = { seq: row.seq, problem: 'edited', detail: `record ${row.seq} does not match its hash` };
      return;
    }
    // an unfiltered export starts where the chain does (the genesis, or after an archive): a later start lost records
    const prev = this.prev ?? this.after;
    if (row.seq !== prev.seq + 1 || row.prev_hash !== prev.hash) {
      const archived = this.prev === null && this.after.seq === 0 && row.seq > 1
        ? `; if the records before it were archived, give the head of the archive before it: --after SEQ:HASH (audit archives lists them)` : '';
      // records alone cannot tell a filter from a deletion, so the verdict stays 'removed'
      const filtered = this.opts.file ? `; or the file is an export filtered with --job or --since, which is no contiguous chain and cannot be verified (export unfiltered for that)` : '';
      this.firstBad = row.seq > prev.seq + 1 && row.prev_hash !== prev.hash
        ? { seq: prev.seq + 1, problem: 'removed', detail: `records ${prev.seq + 1}..${row.seq - 1} are missing${archived}${filtered}` }
        : { seq: row.seq, problem: row.seq <= prev.seq ? 'reordered' : 'edited', detail: `record ${row.seq} does not follow record ${prev.seq}` };
      return;
    }
    this.prev = { seq: row.seq, hash: row.hash };
  }

  /** The last linked record. */
  get head(): { seq: number; hash: string } | null {
    return this.prev;
  }

  /** Where the walk began: 1 for an export from the start. */
  get from(): number | null {
    return this.first;
  }
}

/** One exported line back into a record; the error names the line and what is wrong with it. */
export function parseExportLine(line: string, lineNo: number): AuditRow {
  let v: unknown;
  try {
    v = JSON.parse(line);
  } catch {
    throw new Error(`line ${lineNo}: not JSON`);
  }
  const r = v as Record<string, unknown>;
  if (!r || typeof r !== 'object' || typeof r.seq !== 'number' || typeof r.at !== 'string' || typeof r.kind !== 'string'
    || typeof r.prev_hash !== 'string' || typeof r.hash !== 'string' || Number.isNaN(Date.parse(r.at))) {
    throw new Error(`line ${lineNo}: not an audit record as audit export writes it (seq, at, kind, prev_hash, hash)`);
  }
  return { ...(r as unknown as AuditRow), at: new Date(r.at), data: (r.data ?? {}) as Record<string, unknown> };
}
