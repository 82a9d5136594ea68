import { homedir } from 'node:os';
import { resolve } from 'node:path';
import { protectedFiles } from '../store/embedded-files.ts';
import type { Config } from '../config/schema.ts';
import { CATALOG_BY_NAME, type ArgIs, type GuardedArgs } from '../tools/catalog-table.ts';
import { patchPaths } from '../tools/catalog/patch.ts';
import { checkPaths, daemonStateRoots, PATH_RULES, realPathOf, resolveRoots, treePaths, writesInside, type PathFs } from './paths/index.ts';
import { checkCommand } from './shell/index.ts';
import { shellFinding } from './shell/rules.ts';
import { checkUrl, HAS_SCHEME, systemLookup, type Lookup } from './ssrf/index.ts';
import { printable } from '../util/printable.ts';
import { verdictOf, type Guard, type GuardFinding, type GuardedCall, type NormalisedCommand, type WriteScope } from './types.ts';

/** How long the gate waits for a URL's DNS answer. */
const GATE_LOOKUP_TIMEOUT_MS = 5_000;

export interface GuardDeps {
  /** false: judge URLs without resolving names (offline checks). */
  readonly dns?: boolean;
  readonly lookup?: Lookup;
  readonly realpath?: (p: string) => Promise<string>;
}


const strings = (args: Readonly<Record<string, unknown>>, names: readonly string[] = []): string[] =>
  names.map((n) => args[n]).filter((v): v is string => typeof v === 'string' && v !== '');

/** The deployment's own secrets as absolute paths (its database files, its config file): the shell guard reads them as secrets. */
export function deploymentSecretPaths(config: Config): string[] {
  return protectedFiles(config).map((p) => resolve(p));
}

/**
 * Step 1 of the gate: the shell, SSRF and workspace guards, applied to the
 * arguments each catalog row declares in `guarded`.
 */
export function createGuard(config: Config, deps: GuardDeps = {}): Guard {
  const lookup: Lookup | null = deps.dns === false ? null : (deps.lookup ?? systemLookup);
  const fs = deps.realpath ? { realpath: deps.realpath } : undefined;
  const pathPolicy = {
    workspace: config.tools.workspace,
    restrictToWorkspace: config.tools.restrict_to_workspace,
    safeWriteRoot: config.tools.safe_write_root,
    // the store's files and the config file only: under systemd and in the image the workspace itself lives in data_dir
    forbiddenRoots: resolveRoots(protectedFiles(config), fs),
    // what the daemon and its operators use (data_dir outside the workspace, the skills): refused here, audited and counted
    stateRoots: daemonStateRoots(config, fs),
  };
  const guardedOf = (tool: string): GuardedArgs => CATALOG_BY_NAME.get(tool)?.guarded ?? {};
  const deploymentSecrets = deploymentSecretPaths(config);

  return {
    async inspect(call: GuardedCall) {
      const g = guardedOf(call.tool);
      const findings: GuardFinding[] = [];
      let commands: NormalisedCommand[] | undefined;
      for (const shell of (g.shell ?? []).filter((s) => holds(s.when, call.args))) {
        const command = call.args[shell.arg];
        const dir = shell.cwd ? call.args[shell.cwd] : undefined;
        // where the tool will start it: its cwd argument inside the workspace, or the workspace
        const cwd = shell.cwd ? resolve(config.tools.workspace, typeof dir === 'string' && dir !== '' ? dir : '.') : undefined;
        // the deployment's secrets as written and as their symlinks resolve: a shell reads them like /etc/shadow
        const secrets = [...deploymentSecrets, ...await pathPolicy.forbiddenRoots()];
        const verdict = await checkCommand(typeof command === 'string' ? command : '', { ...(cwd ? { cwd } : {}), secrets });
        findings.push(...verdict.findings);
        commands = [...commands ?? [], ...await realFiles(verdict.commands ?? [], fs)];
      }
      if (g.inlineCode && holds(g.inlineCode.when, call.args)) {
        findings.push(shellFinding('shell.interpreter.inline', `${String(call.args[g.inlineCode.when.arg])}: ${String(call.args[g.inlineCode.arg] ?? '')}`));
      }
      const either = strings(call.args, g.urlsOrPaths);
      const urls = [...strings(call.args, g.urls), ...either.filter((v) => HAS_SCHEME.test(v))];
      // a local image or skill directory is read like any other path, with all below it (a skill copies the directory)
      const local = either.filter((v) => !HAS_SCHEME.test(v));
      for (const url of urls) {
        // a slow name server must not hold the gate: past this the name counts as unresolved (an ask)
        const signal = AbortSignal.timeout(GATE_LOOKUP_TIMEOUT_MS);
        const verdict = await checkUrl(url, { lookup, networkPolicy: config.execution.network_policy, allowlist: config.execution.network_allowlist, signal });
        findings.push(...verdict.findings);
      }
      if (g.readPaths || g.writePaths || g.diffPaths || local.length > 0) {
        const touched = diffTargets(g, call.args);
        if (touched === null) findings.push({ rule: 'path.diff_unchecked', severity: 'deny', matched: String(call.args[g.diffPaths!.diff]).slice(0, 120), reason: PATH_RULES['path.diff_unchecked'] });
        findings.push(...await checkPaths({
          read: [...strings(call.args, g.readPaths), ...touched ?? []],
          write: [...strings(call.args, g.writePaths), ...touched ?? []],
          // search_files, a recursive list_dir: a secret anywhere below the path is refused too
          tree: [...treePaths(call.tool, call.args), ...local],
        }, pathPolicy, fs));
      }
      // matched text is the call's own (a model's): it reaches reasons, records and terminals escaped
      return verdictOf(findings.map((f) => ({ ...f, matched: printable(f.matched) })), commands);
    },
    async writeScope(call: GuardedCall): Promise<WriteScope> {
      const g = guardedOf(call.tool);
      if (!writesFiles(call.tool)) return 'not_files';
      const touched = diffTargets(g, call.args);
      if (touched === null) return 'outside';
      const writes = [...strings(call.args, g.writePaths), ...touched];
      return writes.length === 0 || await writesInside(writes, config.tools.workspace, fs) ? 'workspace' : 'outside';
    },
  };
}

/**
 * A program named by a path (`./build.sh`, `~/bin/x`) as the file the kernel would run: its real absolute path,
 * symlinks and `..` walked as the kernel walks them, so an "always" for it names one file (SPEC §5 step 9).
 * A path that cannot be resolved (a loop, an unreadable directory) has no scope.
 */
async function realFiles(commands: readonly NormalisedCommand[], fs: PathFs | undefined): Promise<NormalisedCommand[]> {
  return Promise.all(commands.map(async (c) => {
    if (c.file !== true) return c;
    const path = c.program === '~' || c.program.startsWith('~/') ? homedir() + c.program.slice(1) : c.program;
    try {
      return { ...c, program: await realPathOf(path, fs) };
    } catch {
      return { ...c, file: false };
    }
  }));
}

/** Whether a tool's writes are files (its catalog row names the paths it writes), which a workspace policy can judge. */
export function writesFiles(tool: string): boolean {
  const g = CATALOG_BY_NAME.get(tool)?.guarded;
  return Boolean(g?.writePaths || g?.diffPaths);
}

/** The files a diff argument would change; null when they cannot be known (malformed, absolute or escaping paths). */
function diffTargets(g: GuardedArgs, args: Readonly<Record<string, unknown>>): string[] | null {
  if (!g.diffPaths) return [];
  const diff = args[g.diffPaths.diff];
  const root = g.diffPaths.root ? args[g.diffPaths.root] : undefined;
  return typeof diff === 'string' ? patchPaths(diff, typeof root === 'string' && root !== '' ? root : '.') : [];
}

function holds(when: ArgIs | undefined, args: Readonly<Record<string, unknown>>): boolean {
  if (!when) return true;
  const v = args[when.arg];
  return typeof v === 'string' && when.values.includes(v);
}
