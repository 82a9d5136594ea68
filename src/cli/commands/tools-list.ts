import { Option, type Command } from 'commander';
import type { Config } from '../../config/schema.ts';
import { effectiveTools, securityFor, selectionFrom, type EffectiveTools, type ToolSelection } from '../../policy/effective-tools.ts';
import { NETWORK_POLICIES, type NetworkPolicy } from '../../policy/network-policy.ts';
import { SECURITY_PROFILES, type SecurityProfile } from '../../policy/security-profiles.ts';
import { TOOL_PROFILES, type ToolProfile } from '../../policy/tool-profiles.ts';
import { CATALOG } from '../../tools/catalog-table.ts';
import { catalogFacts } from '../../tools/facts.ts';
import { configFor } from '../config-option.ts';
import { printJson, printTable } from '../output.ts';

export interface ToolsListOptions {
  profile?: ToolProfile;
  security?: SecurityProfile;
  network?: NetworkPolicy;
  unattended?: boolean;
  json?: boolean;
}

/**
 * What `tools list` shows: the catalog under the configuration, the options replacing its values. Unattended,
 * the security profile is the daemon's, securityFor: max(profile, daemon) (I4), as the gate and a run's model get it.
 */
export function toolsListView(config: Config, opts: ToolsListOptions): { selection: ToolSelection; result: EffectiveTools; ready: Map<string, string> } {
  const security = securityFor({ security: { ...config.security, profile: opts.security ?? config.security.profile } }, { unattended: opts.unattended === true });
  const selection = selectionFrom(config, {
    security, ...(opts.profile ? { profile: opts.profile } : {}), ...(opts.network ? { network: opts.network } : {}),
  });
  const facts = CATALOG.map((e) => catalogFacts(e, config));
  return { selection, result: effectiveTools(facts, selection), ready: new Map(facts.map((f) => [f.name, f.readinessDetail ?? ''])) };
}

export function registerToolsCommands(program: Command): void {
  const tools = program.command('tools').description('the tool catalog and what a context may use');
  tools
    .command('list')
    .description('the effective tool set with risk, capabilities and readiness, and the rule that removed each absent tool')
    .addOption(new Option('--profile <profile>', 'tool profile (default: tools.profile)').choices(TOOL_PROFILES))
    .addOption(new Option('--security <profile>', 'security profile (default: security.profile)').choices(SECURITY_PROFILES))
    .addOption(new Option('--network <policy>', 'network policy (default: execution.network_policy)').choices(NETWORK_POLICIES))
    .option('--unattended', 'the set of an unattended (daemon) run: the security profile is never looser than daemon')
    .option('--json', 'print JSON')
    .action((opts: ToolsListOptions, cmd: Command) => {
      const { config } = configFor(cmd);
      const { selection, result, ready } = toolsListView(config, opts);
      if (opts.json) {
        printJson({ selection: { profile: selection.profile, security: selection.security, network: selection.network }, ...result });
        return;
      }
      process.stdout.write(`profile=${selection.profile} security=${selection.security} network=${selection.network}\n\noffered (${result.offered.length}):\n`);
      printTable(['TOOL', 'RISK', 'CAPABILITIES', 'READY'], result.offered.map((t) => [t.name, t.risk, t.capabilities.join(',') || '-', ready.get(t.name)]));
      process.stdout.write(`\nremoved (${result.removed.length}):\n`);
      printTable(['TOOL', 'RISK', 'RULE', 'REASON'], result.removed.map((t) => [t.name, t.risk, t.rule, t.reason]));
    });
}
