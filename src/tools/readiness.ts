import type { Config } from '../config/schema.ts';
import type { CatalogEntry } from './catalog-table.ts';

/** Reads a dotted config key such as `services.vision.api_key`. */
function configValue(config: Config, key: string): unknown {
  let cur: unknown = config;
  for (const part of key.split('.')) {
    if (cur === null || typeof cur !== 'object') return undefined;
    cur = (cur as Record<string, unknown>)[part];
  }
  return cur;
}

/** Whether a catalog tool's external dependencies are configured, and which key is missing. */
export function readiness(entry: Pick<CatalogEntry, 'requires' | 'reserved'>, config: Config): readonly [boolean, string] {
  if (entry.reserved) return [false, 'reserved, not implemented'];
  const missing = (entry.requires ?? []).filter((k) => {
    const v = configValue(config, k);
    return v === undefined || v === null || v === '' || (typeof v === 'object' && Object.keys(v).length === 0);
  });
  return missing.length === 0 ? [true, 'ready'] : [false, `missing config: ${missing.join(', ')}`];
}
