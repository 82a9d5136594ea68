import { parseDefinition } from '../../src/jobs/service.ts';
import { CATALOG_BY_NAME } from '../../src/tools/catalog-table.ts';

/** The definition checks with this build's catalog and one notify target, `ops`. */
export const catalogChecks = { knownTool: (n: string) => CATALOG_BY_NAME.has(n), notifyTargets: ['ops'] };

/** A definition that parses: one list_dir step. */
export const baseDefinition = { name: 'n', schedule: '0 3 * * *', payload: { kind: 'steps', steps: [{ tool: 'list_dir', args: {} }] } };

/** What parseDefinition says is wrong with `def`; a definition it accepts fails the test. */
export function definitionProblem(def: Record<string, unknown>): string {
  try {
    parseDefinition(def, catalogChecks);
  } catch (err) {
    return (err as Error).message;
  }
  throw new Error('the definition was accepted');
}
