import { and, asc, eq, isNull, sql } from 'drizzle-orm';
import type { AllowlistRecord, AllowlistStore } from '../approval/ports.ts';
import { appendAudit } from './audit.ts';
import type { Executor } from './db.ts';
import { newId } from './ids.ts';
import { allowlistRecords, type AllowlistRow } from './schema.ts';

export interface NewAllowlistRecord {
  readonly tool: string;
  readonly scope: string;
  readonly created_by: string;
  readonly reason: string;
  readonly approval_id: string;
}

export async function findAllowlist(exec: Executor, tool: string, scope: string): Promise<AllowlistRow | null> {
  const [row] = await exec.select().from(allowlistRecords)
    .where(and(eq(allowlistRecords.tool, tool), eq(allowlistRecords.scope, scope), isNull(allowlistRecords.revoked_at)));
  return row ?? null;
}

/** Idempotent: a live record for (tool, scope) is returned as it is. */
export async function addAllowlist(exec: Executor, r: NewAllowlistRecord): Promise<AllowlistRow> {
  return exec.transaction(async (tx) => {
    const [created] = await tx.insert(allowlistRecords).values({ id: newId('alw'), ...r })
      .onConflictDoNothing({ target: [allowlistRecords.tool, allowlistRecords.scope], where: sql`revoked_at is null` })
      .returning();
    if (!created) return (await findAllowlist(tx, r.tool, r.scope))!;
    await appendAudit(tx, {
      kind: 'allowlist.added', actor: r.created_by, reason: r.reason,
      data: { allowlist_id: created.id, tool: r.tool, scope: r.scope, approval_id: r.approval_id },
    });
    return created;
  });
}

export async function revokeAllowlist(exec: Executor, r: { id: string; by: string; why: string }): Promise<AllowlistRow | null> {
  return exec.transaction(async (tx) => {
    const [row] = await tx.update(allowlistRecords)
      .set({ revoked_at: sql`now()`, revoked_by: r.by, revoked_why: r.why })
      .where(and(eq(allowlistRecords.id, r.id), isNull(allowlistRecords.revoked_at))).returning();
    if (!row) return null;
    await appendAudit(tx, {
      kind: 'allowlist.revoked', actor: r.by, reason: r.why,
      data: { allowlist_id: row.id, tool: row.tool, scope: row.scope, approval_id: row.approval_id },
    });
    return row;
  });
}

export async function listAllowlist(exec: Executor, f: { tool?: string; includeRevoked?: boolean } = {}): Promise<AllowlistRow[]> {
  return exec.select().from(allowlistRecords)
    .where(and(f.tool ? eq(allowlistRecords.tool, f.tool) : undefined, f.includeRevoked ? undefined : isNull(allowlistRecords.revoked_at)))
    .orderBy(asc(allowlistRecords.created_at), asc(allowlistRecords.id));
}

export function toRecord(row: AllowlistRow): AllowlistRecord {
  return { id: row.id, tool: row.tool, scope: row.scope, created_by: row.created_by, created_at: row.created_at, reason: row.reason };
}

export interface DbAllowlistStore extends AllowlistStore {
  list(f?: { tool?: string; includeRevoked?: boolean }): Promise<AllowlistRow[]>;
  revoke(id: string, by: string, why: string): Promise<AllowlistRow | null>;
}

/** Step 9's records in PostgreSQL (the gate's AllowlistStore port). */
export function allowlistStore(exec: Executor): DbAllowlistStore {
  return {
    async find(tool, scope) {
      const row = await findAllowlist(exec, tool, scope);
      return row ? toRecord(row) : null;
    },
    async add(r) {
      return toRecord(await addAllowlist(exec, r));
    },
    list: (f) => listAllowlist(exec, f),
    revoke: (id, by, why) => revokeAllowlist(exec, { id, by, why }),
  };
}
