// The PostgreSQL store: one module per aggregate; every function takes a Db or a transaction.
export * from './db.ts';
export * from './migrate.ts';
export * from './ids.ts';
export * from './schema.ts';
export * from './catalog-schema.ts';
export * from './definition-hash.ts';
export * from './jobs.ts';
export * from './grants.ts';
export * from './runs.ts';
export * from './approvals.ts';
export * from './approver.ts';
export * from './allowlist.ts';
export * from './audit.ts';
export * from './audit-verify.ts';
export * from './decision-sink.ts';
export * from './embedded.ts';
