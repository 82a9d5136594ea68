/** A stored tool call as `name(arguments)`: the agent loop stores `{id, name, arguments}`, OpenAI's shape nests them in `function`. */
export function toolCallText(call: unknown): string {
  const c = (call ?? {}) as { name?: unknown; arguments?: unknown; function?: { name?: unknown; arguments?: unknown } };
  const f = c.function ?? c;
  if (typeof f.name !== 'string') return JSON.stringify(call);
  return `${f.name}(${typeof f.arguments === 'string' ? f.arguments : JSON.stringify(f.arguments ?? {})})`;
}
