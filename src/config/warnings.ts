import { isIP } from 'node:net';
import { judgeAddress } from '../guard/ssrf/address-rules.ts';
import { normaliseHost } from '../guard/ssrf/check-url.ts';
import { blockedName } from '../guard/ssrf/name-rules.ts';
import { CATALOG_BY_NAME } from '../tools/catalog-table.ts';
import { formatPath, nowhere, type KeyPath, type Locate, type Location } from './locate.ts';
import type { Config } from './schema.ts';

export interface ConfigWarning extends Location {
  readonly path: string;
  readonly message: string;
  /** The daemon refuses to start with this configuration here, whoever runs it: `config validate` fails (exit 78). */
  readonly fatal?: true;
}

/** A warning at a key path, with its place in the file where `locate` knows it. */
export function warningAt(locate: Locate, keys: KeyPath, message: string, fatal?: boolean): ConfigWarning {
  return { path: formatPath(keys), message, ...locate(keys), ...(fatal ? { fatal: true as const } : {}) };
}

/** Problems that do not stop start-up but that an operator must hear about. */
export function configWarnings(config: Config, known: (name: string) => boolean = (n) => CATALOG_BY_NAME.has(n), locate: Locate = nowhere): ConfigWarning[] {
  const warnings: ConfigWarning[] = [];
  const add = (keys: KeyPath, message: string) => warnings.push(warningAt(locate, keys, message));
  const lists: Array<[KeyPath, readonly string[]]> = [
    [['tools', 'allow'], config.tools.allow],
    [['tools', 'also_allow'], config.tools.also_allow],
    [['tools', 'deny'], config.tools.deny],
    [['permissions', 'approval', 'auto_approve'], config.permissions.approval.auto_approve],
  ];
  for (const [keys, names] of lists) {
    names.forEach((name, i) => {
      if (!known(name)) add([...keys, i], `"${name}" matches no known tool`);
    });
  }
  config.permissions.approval.auto_approve.forEach((name, i) => {
    if (CATALOG_BY_NAME.get(name)?.risk === 'dangerous') add(['permissions', 'approval', 'auto_approve', i], `"${name}" is dangerous; auto_approve never applies to it`);
  });
  if (!config.permissions.elevated.enabled && Object.keys(config.permissions.elevated.allow_from).length > 0) {
    add(['permissions', 'elevated', 'allow_from'], 'has no effect while permissions.elevated.enabled is false');
  }
  if (config.execution.network_policy === 'restricted' && config.execution.network_allowlist.length === 0) {
    add(['execution', 'network_allowlist'], 'is empty, so network_policy restricted allows no host');
  }
  for (const [name, target] of Object.entries(config.notify.targets)) {
    const refused = refusedTarget(target.url);
    if (refused) add(['notify', 'targets', name, 'url'], `${refused}; the guarded fetch refuses it, so deliveries to it will fail`);
  }
  return warnings;
}

/**
 * Why the guarded fetch refuses a URL's host whatever DNS says (a literal address or a name it judges by
 * itself), in the guard's own terms, or null. Names that need DNS are left to the fetch: no lookup here.
 */
function refusedTarget(url: string): string | null {
  let host: string;
  try {
    host = normaliseHost(new URL(url).hostname);
  } catch {
    return null; // the schema has refused it already
  }
  const kind = (rule: string) => rule.replace(/^ssrf\.(ip|name)\./, '').replace(/_/g, ' ');
  if (isIP(host) !== 0) {
    const [block] = judgeAddress(host).blocks;
    return block ? `${host} is ${kind(block.rule)} (${block.rule})` : null;
  }
  const named = blockedName(host);
  const what = kind(named?.rule ?? '');
  return named ? `${host} is ${/^[aeiou]/.test(what) ? 'an' : 'a'} ${what} name (${named.rule})` : null;
}
