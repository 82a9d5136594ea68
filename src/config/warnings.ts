import { CATALOG_BY_NAME } from '../tools/catalog-table.ts';
import type { Config } from './schema.ts';

export interface ConfigWarning {
  readonly path: string;
  readonly message: string;
}

/** Problems that do not stop start-up but that an operator must hear about. */
export function configWarnings(config: Config, known: (name: string) => boolean = (n) => CATALOG_BY_NAME.has(n)): ConfigWarning[] {
  const warnings: ConfigWarning[] = [];
  const lists: Array<[string, readonly string[]]> = [
    ['tools.allow', config.tools.allow],
    ['tools.also_allow', config.tools.also_allow],
    ['tools.deny', config.tools.deny],
    ['permissions.approval.auto_approve', config.permissions.approval.auto_approve],
  ];
  for (const [path, names] of lists) {
    names.forEach((name, i) => {
      if (!known(name)) warnings.push({ path: `${path}[${i}]`, message: `"${name}" matches no known tool` });
    });
  }
  config.permissions.approval.auto_approve.forEach((name, i) => {
    if (CATALOG_BY_NAME.get(name)?.risk === 'dangerous') {
      warnings.push({ path: `permissions.approval.auto_approve[${i}]`, message: `"${name}" is dangerous; auto_approve never applies to it` });
    }
  });
  if (!config.permissions.elevated.enabled && Object.keys(config.permissions.elevated.allow_from).length > 0) {
    warnings.push({ path: 'permissions.elevated.allow_from', message: 'has no effect while permissions.elevated.enabled is false' });
  }
  if (config.execution.network_policy === 'restricted' && config.execution.network_allowlist.length === 0) {
    warnings.push({ path: 'execution.network_allowlist', message: 'is empty, so network_policy restricted allows no host' });
  }
  return warnings;
}
