import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import type { JsonSchema } from './catalog-table.ts';

const ajv = new Ajv({ allErrors: true, strict: false, useDefaults: false });
const compiled = new WeakMap<JsonSchema, ValidateFunction>();

/** Validates params against a tool's JSON Schema; returns a message naming each bad field, or null. */
export function validateParams(schema: JsonSchema, params: unknown): string | null {
  let fn = compiled.get(schema);
  if (!fn) {
    fn = ajv.compile(schema);
    compiled.set(schema, fn);
  }
  if (fn(params)) return null;
  return (fn.errors ?? []).map(describe).join('; ');
}

function describe(e: ErrorObject): string {
  const where = e.instancePath ? e.instancePath.slice(1).replace(/\//g, '.') : '';
  switch (e.keyword) {
    case 'required':
      return `${join(where, String(e.params.missingProperty))}: is required`;
    case 'additionalProperties':
      return `${join(where, String(e.params.additionalProperty))}: is not a known parameter`;
    case 'enum':
      return `${where || '(params)'}: expected one of ${(e.params.allowedValues as unknown[]).map(String).join(', ')}`;
    default:
      return `${where || '(params)'}: ${e.message ?? 'is invalid'}`;
  }
}

function join(a: string, b: string): string {
  return a ? `${a}.${b}` : b;
}
