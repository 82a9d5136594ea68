import type { AllowlistStore } from '../approval/ports.ts';
import type { Config } from '../config/schema.ts';
import type { Database } from '../store/db.ts';

/** Step 9's records for a dry run: read from the database when one runs, never started for a check. */
export interface CheckAllowlist extends AllowlistStore {
  /** Set once step 9 was reached and no database could be asked; says why. */
  readonly notConsulted: () => string | null;
  close(): Promise<void>;
}

export function checkAllowlist(config: Config): CheckAllowlist {
  let opened: Promise<Database | null> | undefined;
  let missing: string | null = null;
  const open = async (): Promise<Database | null> => {
    const [{ runningDatabaseUrl }, { openDatabase }] = await Promise.all([import('../store/embedded.ts'), import('../store/db.ts')]);
    let url: string | null;
    try {
      url = await runningDatabaseUrl(config);
    } catch (err) {
      // e.g. a data dir owned by the daemon's user: the check still answers, and says what it could not see
      missing = `the embedded database's files in ${config.daemon.data_dir} could not be read (${(err as NodeJS.ErrnoException).code ?? (err as Error).message}), so persistent approvals were not looked up`;
      return null;
    }
    if (!url) {
      missing = 'no database is running (start the daemon, or set database.url), so persistent approvals were not looked up';
      return null;
    }
    return openDatabase({ url, poolMax: 1 });
  };
  return {
    async find(tool, scope) {
      const database = await (opened ??= open());
      if (!database) return null;
      const { findAllowlist, toRecord } = await import('../store/allowlist.ts');
      try {
        const row = await findAllowlist(database.db, tool, scope);
        return row ? toRecord(row) : null;
      } catch (err) {
        missing = `the database could not be asked (${(err as Error).message}), so persistent approvals were not looked up`;
        return null;
      }
    },
    add: async () => {
      throw new Error('a dry run records no approvals');
    },
    notConsulted: () => missing,
    async close() {
      await (await opened)?.close();
    },
  };
}
