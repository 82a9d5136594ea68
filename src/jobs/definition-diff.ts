import { canonicalJson } from '../util/canonical-json.ts';
import { AUTHORISED_FIELDS } from './definition.ts';

/** A field as the definition hash reads it: the tool list is a set, a schedule's outer spaces and a missing zone or delivery mean nothing. */
function normal(field: (typeof AUTHORISED_FIELDS)[number], value: unknown): unknown {
  if (field === 'tools') return Array.isArray(value) ? [...new Set(value.map(String))].sort() : [];
  if (field === 'schedule') return typeof value === 'string' ? value.trim() : value ?? null;
  if (field === 'timezone') return value ?? 'UTC';
  return value === undefined ? null : JSON.parse(JSON.stringify(value)) as unknown;
}

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);
const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/;

function collect(a: unknown, b: unknown, path: string, out: string[]): void {
  if (canonicalJson(a) === canonicalJson(b)) return;
  if (isObject(a) && isObject(b)) {
    for (const key of [...new Set([...Object.keys(a), ...Object.keys(b)])].sort()) {
      collect(a[key], b[key], IDENTIFIER.test(key) ? `${path}.${key}` : `${path}[${JSON.stringify(key)}]`, out);
    }
  } else if (Array.isArray(a) && Array.isArray(b) && a.length === b.length) {
    a.forEach((x, i) => collect(x, b[i], `${path}[${i}]`, out));
  } else {
    out.push(path);
  }
}

/**
 * Where a job's definition differs from the one a human approved, as paths (`payload.steps[0].args.path`,
 * `tools`, `schedule`), never values: a value may hold what the job was given (I11). A list of another
 * length is named whole, and the tool list as one set. Pure.
 */
export function definitionDifferences(approved: Readonly<Record<string, unknown>>, current: Readonly<Record<string, unknown>>): string[] {
  const out: string[] = [];
  for (const field of AUTHORISED_FIELDS) {
    const [a, b] = [normal(field, approved[field]), normal(field, current[field])];
    if (field === 'tools') {
      if (canonicalJson(a) !== canonicalJson(b)) out.push(field);
    } else collect(a, b, field, out);
  }
  return out;
}
