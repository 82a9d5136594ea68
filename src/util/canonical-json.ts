import { createHash } from 'node:crypto';

/** JSON with object keys sorted at every depth, so equal values hash equally. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(sortKeys(value)) ?? 'null';
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value && typeof value === 'object' && !(value instanceof Date)) {
    const out: Record<string, unknown> = {};
    for (const key of Object.keys(value).sort()) {
      const v = (value as Record<string, unknown>)[key];
      if (v !== undefined) setOwn(out, key, sortKeys(v));
    }
    return out;
  }
  return value;
}

/**
 * `out[key] = v` for every key: for `__proto__` (an own key of any parsed JSON) assignment would set the
 * prototype instead, and the key would drop out of the JSON and so out of every hash taken of it.
 */
export function setOwn(out: Record<string, unknown>, key: string, v: unknown): void {
  if (key === '__proto__') Object.defineProperty(out, key, { value: v, enumerable: true, writable: true, configurable: true });
  else out[key] = v;
}

export function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}
