import type { SubAgentHost } from '../agent/host.ts';
import type { Config } from '../config/schema.ts';
import { neverInDaemonRun } from '../policy/daemon-reach.ts';
import { RULES } from '../policy/rules.ts';
import { validateParams } from '../tools/validate.ts';
import { buildContext } from '../tools/context.ts';
import { createGuard } from '../guard/index.ts';
import { systemGuardDeps } from '../util/system-ports.ts';
import type { JobChangeDeps, JobServiceDeps } from '../jobs/service.ts';
import { clarifyTool, type Clarifier } from '../tools/catalog/clarify.ts';
import { cronjobTool } from '../tools/catalog/cronjob.ts';
import { delegateTaskTool } from '../tools/catalog/delegate-task.ts';
import { editFileTool } from '../tools/catalog/edit-file.ts';
import { execTool } from '../tools/catalog/exec.ts';
import { executeCodeTool } from '../tools/catalog/execute-code.ts';
import { imageGenerateTool } from '../tools/catalog/image-generate.ts';
import { knowledgeIndexTool } from '../tools/catalog/knowledge-index.ts';
import { knowledgeSearchTool } from '../tools/catalog/knowledge-search.ts';
import { listDirTool } from '../tools/catalog/list-dir.ts';
import { memoryTool } from '../tools/catalog/memory.ts';
import { messageTool } from '../tools/catalog/message.ts';
import { notifyTool } from '../tools/catalog/notify.ts';
import { patchTool } from '../tools/catalog/patch.ts';
import { processTool } from '../tools/catalog/process.ts';
import { readFileTool } from '../tools/catalog/read-file.ts';
import { readSpillTool } from '../tools/catalog/read-spill.ts';
import { searchFilesTool } from '../tools/catalog/search-files.ts';
import { sessionSearchTool } from '../tools/catalog/session-search.ts';
import { skillInstallTool } from '../tools/catalog/skill-install.ts';
import { skillManageTool } from '../tools/catalog/skill-manage.ts';
import { skillViewTool } from '../tools/catalog/skill-view.ts';
import { skillsListTool } from '../tools/catalog/skills-list.ts';
import { spawnTaskTool } from '../tools/catalog/spawn-task.ts';
import { taskTool } from '../tools/catalog/task.ts';
import { textToSpeechTool } from '../tools/catalog/text-to-speech.ts';
import { todoTool } from '../tools/catalog/todo.ts';
import { visionAnalyzeTool } from '../tools/catalog/vision-analyze.ts';
import { webFetchTool } from '../tools/catalog/web-fetch.ts';
import { webSearchTool } from '../tools/catalog/web-search.ts';
import { workflowTool } from '../tools/catalog/workflow.ts';
import { writeFileTool } from '../tools/catalog/write-file.ts';
import type { NetDeps } from '../tools/net-deps.ts';
import { pgSpillStore } from '../store/spills.ts';
import { ProcessTable } from '../tools/process-table.ts';
import { ToolRegistry } from '../tools/registry.ts';
import type { Tool } from '../tools/types.ts';
import { jobToolSet, usableByRuns } from '../session/job-preview.ts';

/** What the built-in tools need from the process that hosts them. */
export interface ToolHost extends JobServiceDeps {
  /** clarify's channel to a person; null (daemon) means "no one to ask". */
  readonly clarifier?: Clarifier | null;
  /** delegate_task's runtime, bound after the registry is built. */
  readonly agentHost?: SubAgentHost | null;
  /** The process tool's background processes; the host kills them at shutdown. */
  readonly processes?: ProcessTable;
}

/**
 * Every tool of the catalog, as implemented in this build.
 * `extra`: external tools (MCP-style); policy still judges them by their declaration (I7).
 */
export function builtinTools(config: Config, host: ToolHost, net: NetDeps = {}, extra: readonly Tool[] = []): ToolRegistry {
  const { db } = host;
  const spill = pgSpillStore(db);
  const staticGuard = createGuard(config, systemGuardDeps({ dns: false }));
  // the registry holds the cronjob tool, whose definitions are checked against the registry
  let registry: ToolRegistry | undefined;
  const jobs: JobChangeDeps = {
    db, ...(host.enqueue ? { enqueue: host.enqueue } : {}), ...(host.now ? { now: host.now } : {}),
    childLimits: config.tools.child_jobs,
    checks: {
      knownTool: (name) => registry?.get(name) !== undefined, notifyTargets: Object.keys(config.notify.targets),
      defaultCatchupWindowSeconds: config.daemon.catchup_window_seconds,
      // checked before anyone is asked to approve: a step that cannot pass would fail every run
      stepProblem: (name, args) => {
        const tool = registry?.get(name);
        if (!tool) return null;
        const invalid = validateParams(tool.parameters, args);
        if (invalid) return `invalid arguments: ${invalid}`;
        const never = neverInDaemonRun(registry!.facts(name)!, args);
        return never ? `no daemon run can make this call (${never}: ${RULES[never]})` : null;
      },
      toolProblem: (name) => {
        const facts = registry?.facts(name);
        const never = facts ? neverInDaemonRun(facts, {}) : null;
        return never ? `no daemon run can use this tool (${never}: ${RULES[never]}); remove it from tools` : null;
      },
      // no DNS: a name's addresses tonight are not known now, so only what holds whatever it resolves to refuses here
      stepFindings: async (name, args) => {
        const { findings } = await staticGuard.inspect({ tool: name, args }, buildContext({ unattended: true, session_key: 'cron:definition-check' }));
        if (findings.length === 0) return null;
        const hard = findings.find((f) => f.severity === 'deny');
        return hard ? `refused by the guard in every context (${hard.rule}: ${hard.reason}, matched: ${hard.matched})`
          : `flagged by the guard (${findings.map((f) => f.rule).join(', ')}), and a flagged call cannot run unattended because nobody can approve it (unattended.flagged)`;
      },
    },
    grantScope: (job) => (registry ? usableByRuns(jobToolSet(config, registry, job.tools, job.payload)) : []),
  };
  registry = new ToolRegistry([
    ...extra,
    // files
    readFileTool(config, spill), readSpillTool(config, spill), listDirTool(config), searchFilesTool(config), writeFileTool(config), editFileTool(config), patchTool(config),
    // knowledge and sessions
    knowledgeIndexTool(config, db), knowledgeSearchTool(config, db), sessionSearchTool(config, db), memoryTool(config, db), todoTool(config, db),
    taskTool(config, jobs), workflowTool(config, jobs),
    // messaging
    notifyTool(config, net), messageTool(config, net), clarifyTool(config, host.clarifier ?? null),
    // network and media
    webFetchTool(config, net), webSearchTool(config, net), visionAnalyzeTool(config, net), imageGenerateTool(config, net), textToSpeechTool(config, net),
    // execution (never offered under the daemon profile, I4)
    execTool(config), executeCodeTool(config), processTool(config, host.processes ?? new ProcessTable(16, config.tools.exec.max_output_bytes)),
    // agents
    delegateTaskTool(config, host.agentHost ?? null), spawnTaskTool(config, jobs),
    // skills
    skillsListTool(config, db), skillViewTool(config, db), skillInstallTool(config, db, net), skillManageTool(config, db),
    // scheduling
    cronjobTool(config, jobs),
  ]);
  return registry;
}
