/** What a zod schema looks like inside, as far as finding an object's keys needs. */
interface Inspectable { readonly _zod: { readonly def: Readonly<Record<string, unknown>> } }

const WRAPPERS = new Set(['default', 'prefault', 'optional', 'nullable', 'pipe', 'transform']);

/**
 * The keys the config schema allows at `path` (null where it is no fixed set of keys, as under `notify.targets`):
 * what an unknown key there was most likely meant to be.
 */
export function keysAt(schema: unknown, path: readonly PropertyKey[]): string[] | null {
  let s = schema as Inspectable | undefined;
  const unwrap = () => {
    while (s && WRAPPERS.has(s._zod.def.type as string)) s = (s._zod.def.innerType ?? s._zod.def.in) as Inspectable | undefined;
  };
  unwrap();
  for (const key of path) {
    if (!s) return null;
    const def = s._zod.def;
    if (def.type === 'object') s = (def.shape as Record<string, Inspectable>)[String(key)];
    else if (def.type === 'record') s = def.valueType as Inspectable;
    else if (def.type === 'array') s = def.element as Inspectable;
    else return null;
    unwrap();
  }
  return s?._zod.def.type === 'object' ? Object.keys(s._zod.def.shape as object) : null;
}
