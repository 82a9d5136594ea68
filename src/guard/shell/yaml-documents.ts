import { parseAllDocuments } from 'yaml';

/**
 * The documents of a YAML (or JSON) text as plain values: every `---` document, `<<` merge keys resolved (compose files
 * use them); null when any document has an error (the program reading it would stop there too).
 */
export function yamlDocuments(text: string): unknown[] | null {
  try {
    // a repeated key is the last one's value, as Go's YAML readers take it, not an error
    const docs = parseAllDocuments(text, { merge: true, uniqueKeys: false });
    if (docs.some((d) => d.errors.length > 0)) return null;
    // aliases expanded at most this often: no billion laughs from a here-document
    return docs.map((d) => d.toJS({ maxAliasCount: 100 }) as unknown);
  } catch {
    return null;
  }
}

/** A value as an object with string keys, or null. */
export const record = (v: unknown): Record<string, unknown> | null => (v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : null);
