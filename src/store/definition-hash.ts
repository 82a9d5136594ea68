import { AUTHORISED_FIELDS } from '../jobs/definition.ts';
import { canonicalJson, sha256 } from '../util/canonical-json.ts';
import type { Delivery, Payload } from './schema.ts';

export interface DefinitionFields {
  readonly payload: Payload;
  readonly tools?: readonly string[] | null;
  readonly schedule: string;
  readonly timezone?: string | null;
  readonly delivery?: Delivery | null;
}

/**
 * sha256 of the canonical JSON of the fields a human approves (I2: prompt or steps,
 * model, tool set, schedule, timezone, delivery). The tool set is a set: order and
 * duplicates do not change it.
 */
export function definitionHash(def: DefinitionFields): string {
  const normal: Record<(typeof AUTHORISED_FIELDS)[number], unknown> = {
    payload: JSON.parse(JSON.stringify(def.payload)),
    tools: [...new Set(def.tools ?? [])].sort(),
    schedule: def.schedule.trim(),
    timezone: def.timezone ?? 'UTC',
    delivery: def.delivery ?? null,
  };
  const picked = Object.fromEntries(AUTHORISED_FIELDS.map((k) => [k, normal[k]]));
  return sha256(canonicalJson(picked));
}
