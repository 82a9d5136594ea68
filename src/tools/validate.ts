import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import type { JsonSchema } from './catalog-table.ts';
import { meantParameter } from '../jobs/near-words.ts';

// verbose: an error carries the schema it failed, so an unknown field can be matched to where it belongs
const ajv = new Ajv({ allErrors: true, strict: false, useDefaults: false, verbose: true });
const compiled = new WeakMap<JsonSchema, ValidateFunction>();

/** Validates params against a tool's JSON Schema; returns a message naming each bad field, or null. */
export function validateParams(schema: JsonSchema, params: unknown): string | null {
  let fn = compiled.get(schema);
  if (!fn) {
    fn = ajv.compile(schema);
    compiled.set(schema, fn);
  }
  if (fn(params)) return null;
  const errors = fn.errors ?? [];
  return errors.map((e) => describe(e, errors)).join('; ');
}

function describe(e: ErrorObject, all: readonly ErrorObject[]): string {
  const where = e.instancePath ? e.instancePath.slice(1).replace(/\//g, '.') : '';
  switch (e.keyword) {
    case 'required':
      return `${join(where, String(e.params.missingProperty))}: is required`;
    case 'additionalProperties': {
      const field = String(e.params.additionalProperty);
      const home = nestedHome(e.parentSchema, field);
      const near = home ? undefined : nearParameter(e, field, all);
      return `${join(where, field)}: is not a known parameter${home ? `; put it under ${join(where, home)}` : near ? ` (did you mean ${near}?)` : ''}`;
    }
    case 'enum':
      return `${where || '(params)'}: expected one of ${(e.params.allowedValues as unknown[]).map(String).join(', ')}`;
    default:
      return `${where || '(params)'}: ${e.message ?? 'is invalid'}`;
  }
}

/** The parameter an unknown one most likely meant: a required one missing beside it first (`paht` beside a missing `path`), else one not given. */
function nearParameter(e: ErrorObject, field: string, all: readonly ErrorObject[]): string | undefined {
  const missing = all.filter((o) => o.keyword === 'required' && o.instancePath === e.instancePath).map((o) => String(o.params.missingProperty));
  const given = e.data !== null && typeof e.data === 'object' ? Object.keys(e.data) : [];
  const known = Object.keys((e.parentSchema as { properties?: Record<string, unknown> } | undefined)?.properties ?? {});
  return meantParameter(field, missing, known.filter((k) => !given.includes(k)));
}

/** The object-valued property of `schema` that has `field` among its own (cronjob's `tools` belongs in `options`). */
function nestedHome(schema: unknown, field: string): string | null {
  const properties = (schema as { properties?: Record<string, { properties?: Record<string, unknown> }> } | undefined)?.properties ?? {};
  return Object.keys(properties).find((name) => Object.hasOwn(properties[name]?.properties ?? {}, field)) ?? null;
}

function join(a: string, b: string): string {
  return a ? `${a}.${b}` : b;
}
