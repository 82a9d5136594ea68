import { isAlias, visit, type Document, type LineCounter } from 'yaml';

/** What a config author most likely meant by a YAML alias error: a value starting with `*`, unquoted. */
export const ALIAS_HINT = 'a value starting with * is read as a YAML alias: quote it ("*/5 * * * *")';

/** A parser message about an alias, with the hint added. */
export function withAliasHint(message: string): string {
  return /\balias\b/i.test(message) ? `${message}; ${ALIAS_HINT}` : message;
}

/**
 * The first alias with no anchor of its name before it (`name: *foo`): the parser accepts it and reading the
 * document fails, so it is found here to be reported where it is, as the parser's own problems are.
 */
export function unanchoredAlias(doc: Document, lines: LineCounter): { message: string; line?: number; column?: number } | null {
  const anchors = new Set<string>();
  let found: { message: string; line?: number; column?: number } | null = null;
  visit(doc, (_key, node) => {
    if (found) return visit.BREAK;
    const anchor = (node as { anchor?: string }).anchor;
    if (anchor) anchors.add(anchor);
    if (isAlias(node) && !anchors.has(node.source)) {
      const at = node.range ? lines.linePos(node.range[0]) : undefined;
      found = { message: `*${node.source} is an alias with no anchor; ${ALIAS_HINT}`, ...(at ? { line: at.line, column: at.col } : {}) };
      return visit.BREAK;
    }
    return undefined;
  });
  return found;
}
