/**
 * Rule ids of the operator's log lines and start refusals (not gate decisions): the `rule` field a log pipeline can
 * alert on, looked up like any other with `echo-agent rules show ID`.
 */
export const OPERATOR_RULES = {
  'replicas.queue_mismatch': 'Daemons of one schema consume different queues (Redis beside the PostgreSQL backend, or another queue.prefix): each runs only what reaches its own queue, and hand-offs wait for a reconciler.',
  'migrate.stranded': 'Migrations of this build are missing from a ledger whose newest row is newer (a hotfix build migrated the schema): drizzle would never apply them, so migrate and the daemon refuse until migrate --apply-missing.',
  'embedded.last_out_stops': 'The embedded PostgreSQL is stopped by the last echo-agent process using it; one leaving while others still use it hands the server to them and says to whom.',
  'embedded.server_log_bound': 'The embedded server\'s log passed its size limit and was moved to pg-server.log.1, so the two stay near twice the limit.',
  'embedded.data_dir_group': 'As root, the daemon gave daemon.data_dir (or the cluster) to the postgres account\'s group or owner so the server can reach it; the line names the old and new owner and mode.',
} as const;
