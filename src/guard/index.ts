import { resolve } from 'node:path';
import { protectedFiles } from '../config/store-files.ts';
import type { Config } from '../config/schema.ts';
import { CATALOG_BY_NAME, type ArgIs, type GuardedArgs } from '../tools/catalog-table.ts';
import { patchPaths } from '../tools/patch-sections.ts';
import { checkPaths, daemonStateRoots, gitDirFinding, gitDirWrites, PATH_RULES, realPathOf, resolveRoots, treePaths, writesInside, type PathFs } from './paths/index.ts';
import { checkCommand } from './shell/index.ts';
import { shellFinding } from './shell/rules.ts';
import { checkUrl, HAS_SCHEME, type Lookup, type UrlVerdict } from './ssrf/index.ts';
import { printable } from '../util/printable.ts';
import { verdictOf, type Guard, type GuardFinding, type GuardedCall, type GuardVerdict, type NormalisedCommand, type WriteScope } from './types.ts';

/** How long the gate waits for a URL's DNS answer. */
const GATE_LOOKUP_TIMEOUT_MS = 5_000;

/** The guard's I/O, all injected (util/system-ports.ts builds the system's): the guard itself opens, resolves and times nothing. */
export interface GuardDeps {
  /** Resolves URL hosts; null judges names without resolving them (offline checks, `--no-dns`). */
  readonly lookup: Lookup | null;
  /** realpath and readlink: where paths, the deployment's secrets and program files really lead. */
  readonly fs: PathFs;
  /** The home directory `~` in a program path stands for. */
  readonly home: () => string;
  /** Monotonic milliseconds: how long resolved roots are kept (resolveRoots). */
  readonly now: () => number;
  /** A signal that aborts after `ms`: how long the gate waits for a URL's DNS answer. */
  readonly deadline: (ms: number) => AbortSignal;
}

/**
 * The gate's step 1, and the two judgements it is made of that `check command` and `check url` print:
 * one function each, so the CLI's verdicts are the gate's (same secrets, same start directory, same DNS timeout).
 */
export interface StaticGuard extends Guard {
  /** A shell command as the exec tool's step 1 judges it, started in `cwd` (relative to the workspace; the workspace when left out). */
  inspectCommand(command: string, cwd?: string): Promise<GuardVerdict>;
  /** A URL as a network tool's step 1 judges it: the network policy, the SSRF rules, the DNS answer within GATE_LOOKUP_TIMEOUT_MS. */
  inspectUrl(url: string): Promise<UrlVerdict>;
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
export function createGuard(config: Config, deps: GuardDeps): StaticGuard {
  const { fs, lookup } = deps;
  const pathPolicy = {
    workspace: config.tools.workspace,
    restrictToWorkspace: config.tools.restrict_to_workspace,
    safeWriteRoot: config.tools.safe_write_root,
    // the store's files and the config file only: under systemd and in the image the workspace itself lives in data_dir
    forbiddenRoots: resolveRoots(protectedFiles(config), fs, deps.now),
    // what the daemon and its operators use (data_dir outside the workspace, the skills): refused here, audited and counted
    stateRoots: daemonStateRoots(config, fs, deps.now),
  };
  const guardedOf = (tool: string): GuardedArgs => CATALOG_BY_NAME.get(tool)?.guarded ?? {};
  const deploymentSecrets = deploymentSecretPaths(config);
  // where a tool with a cwd argument starts a command: that directory inside the workspace, or the workspace
  const startDir = (dir: unknown): string => resolve(config.tools.workspace, typeof dir === 'string' && dir !== '' ? dir : '.');

  /** One shell input, matched text as written; `cwd` undefined: a tool that starts nothing (a running process's input). */
  const shellVerdict = async (command: unknown, cwd: string | undefined): Promise<GuardVerdict> => {
    // the deployment's secrets as written and as their symlinks resolve: a shell reads them like /etc/shadow
    const secrets = [...deploymentSecrets, ...await pathPolicy.forbiddenRoots()];
    const verdict = await checkCommand(typeof command === 'string' ? command : '', { ...(cwd ? { cwd } : {}), secrets });
    return { ...verdict, commands: await realFiles(verdict.commands ?? [], fs, deps.home) };
  };
  const urlVerdict = (url: string): Promise<UrlVerdict> =>
    // a slow name server must not hold the gate: past this the name counts as unresolved (an ask)
    checkUrl(url, { lookup, networkPolicy: config.execution.network_policy, allowlist: config.execution.network_allowlist, signal: deps.deadline(GATE_LOOKUP_TIMEOUT_MS) });

  return {
    async inspectCommand(command, cwd) {
      const v = await shellVerdict(command, startDir(cwd));
      return verdictOf(shown(v.findings), v.commands);
    },
    async inspectUrl(url) {
      const v = await urlVerdict(url);
      return { ...v, findings: shown(v.findings) };
    },
    async inspect(call: GuardedCall) {
      const g = guardedOf(call.tool);
      const findings: GuardFinding[] = [];
      let commands: NormalisedCommand[] | undefined;
      for (const shell of (g.shell ?? []).filter((s) => holds(s.when, call.args))) {
        const verdict = await shellVerdict(call.args[shell.arg], shell.cwd ? startDir(call.args[shell.cwd]) : undefined);
        findings.push(...verdict.findings);
        commands = [...commands ?? [], ...verdict.commands ?? []];
      }
      if (g.inlineCode && holds(g.inlineCode.when, call.args)) {
        findings.push(shellFinding('shell.interpreter.inline', `${String(call.args[g.inlineCode.when.arg])}: ${String(call.args[g.inlineCode.arg] ?? '')}`));
      }
      const either = strings(call.args, g.urlsOrPaths);
      const urls = [...strings(call.args, g.urls), ...either.filter((v) => HAS_SCHEME.test(v))];
      // a local image or skill directory is read like any other path, with all below it (a skill copies the directory)
      const local = either.filter((v) => !HAS_SCHEME.test(v));
      for (const url of urls) findings.push(...(await urlVerdict(url)).findings);
      if (g.readPaths || g.writePaths || g.diffPaths || local.length > 0) {
        const touched = diffTargets(g, call.args);
        if (touched === null) findings.push({ rule: 'path.diff_unchecked', severity: 'deny', matched: String(call.args[g.diffPaths!.diff]).slice(0, 120), reason: PATH_RULES['path.diff_unchecked'] });
        const write = [...strings(call.args, g.writePaths), ...touched ?? []];
        const judged = await checkPaths({
          read: [...strings(call.args, g.readPaths), ...touched ?? []],
          write,
          // search_files, a recursive list_dir: a secret anywhere below the path is refused too
          tree: [...treePaths(call.tool, call.args), ...local],
        }, pathPolicy, fs);
        findings.push(...judged);
        // a git directory's config or hooks its name does not show (a gitfile points anywhere): by the text written, by HEAD beside it
        const asked = new Set(judged.filter((f) => f.rule === 'path.credential_write').map((f) => f.matched));
        const texts = Object.values(call.args).filter((v): v is string => typeof v === 'string');
        for (const w of await gitDirWrites(write.filter((p) => !asked.has(printable(p))), texts, config.tools.workspace, fs)) {
          findings.push(gitDirFinding(w, PATH_RULES['path.credential_write']));
        }
      }
      return verdictOf(shown(findings), commands);
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

/** Matched text is the call's own (a model's): it reaches reasons, records and terminals escaped. */
const shown = (findings: readonly GuardFinding[]): GuardFinding[] => findings.map((f) => ({ ...f, matched: printable(f.matched) }));

/**
 * A program named by a path (`./build.sh`, `~/bin/x`) as the file the kernel would run: its real absolute path,
 * symlinks and `..` walked as the kernel walks them, so an "always" for it names one file (SPEC §5 step 9).
 * A path that cannot be resolved (a loop, an unreadable directory) has no scope.
 */
async function realFiles(commands: readonly NormalisedCommand[], fs: PathFs, home: () => string): Promise<NormalisedCommand[]> {
  return Promise.all(commands.map(async (c) => {
    if (c.file !== true) return c;
    const path = c.program === '~' || c.program.startsWith('~/') ? home() + c.program.slice(1) : c.program;
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
