import type { Capability } from '../policy/capabilities.ts';
import type { RiskLevel } from '../policy/risk.ts';

/** JSON Schema of a tool's parameters (draft-07 subset that ajv validates). */
export type JsonSchema = Readonly<Record<string, unknown>>;

/** An argument having one of these values. */
export interface ArgIs {
  readonly arg: string;
  readonly values: readonly string[];
}

/**
 * Which arguments the static guard inspects. The gate reads this instead of
 * hard-coding tool names, so an added tool is guarded by declaring it here.
 */
export interface GuardedArgs {
  /** Arguments holding shell text, each guarded when its condition holds (process: `command` at start, `input` at write). */
  readonly shell?: readonly { readonly arg: string; readonly when?: ArgIs; /** Argument naming the working directory, relative to the workspace. */ readonly cwd?: string }[];
  /** Code in a language the shell guard cannot read (execute_code in node or python): flagged for a person to review. */
  readonly inlineCode?: { readonly arg: string; readonly when: ArgIs };
  /** Arguments holding URLs to check against the SSRF guard. */
  readonly urls?: readonly string[];
  /** Arguments that are a URL or a local path: SSRF-checked when they carry a scheme. */
  readonly urlsOrPaths?: readonly string[];
  /** Arguments holding paths the tool reads. */
  readonly readPaths?: readonly string[];
  /** Arguments holding paths the tool writes. */
  readonly writePaths?: readonly string[];
  /** An argument holding a unified diff: the files it names are read and written (patch); relative to `root` when given. */
  readonly diffPaths?: { readonly diff: string; readonly root?: string };
}

export interface CatalogEntry {
  readonly name: string;
  readonly description: string;
  readonly risk: RiskLevel;
  readonly capabilities: readonly Capability[];
  readonly parameters: JsonSchema;
  readonly guarded?: GuardedArgs;
  /** Config keys that must be set for the tool to be ready. */
  readonly requires?: readonly string[];
  /** Reserved names: in the catalog, never offered, calling them is `unavailable`. */
  readonly reserved?: boolean;
  /** Reaches the network although the seed's capabilities do not say network.outbound (webhooks, a vision service). */
  readonly reachesNetwork?: true;
  /** Starts agents (a sub-agent now, or a child job's later runs) that may call the rest of the run's tool set. */
  readonly hostsAgents?: true;
  /** The argument naming other tools the call will run: the call is as risky as the worst of them (classifyRisk). */
  readonly toolListArg?: string;
}

const str = (description: string, extra: Record<string, unknown> = {}) => ({ type: 'string', description, ...extra });
const int = (description: string, extra: Record<string, unknown> = {}) => ({ type: 'integer', description, ...extra });
const obj = (properties: Record<string, unknown>, required: string[] = []): JsonSchema => ({
  type: 'object',
  properties,
  required,
  additionalProperties: false,
});
const anyArgs: JsonSchema = { type: 'object' };

/** A job's payload as src/jobs/definition.ts takes it (jobs/*.yaml `payload:`), described for the model. */
const JOB_PAYLOAD: JsonSchema = {
  type: 'object',
  description: 'What each run does. kind "steps": the steps are called in order, no model; kind "agent": the prompt goes to the model, which may call the tools in options.tools',
  properties: {
    // no enum: the definition's own message says which field goes with which kind
    kind: { type: 'string', description: '"steps" (with steps) or "agent" (with prompt)' },
    steps: {
      type: 'array', description: 'kind steps: the tool calls, in order (1 to 200)',
      items: obj({ tool: str('Tool name', { minLength: 1 }), args: { type: 'object', description: 'The arguments, as the tool takes them' } }, ['tool']),
    },
    prompt: str('kind agent: what the agent is to do', { minLength: 1 }),
    model: str('kind agent: model name (default: the configured model)', { minLength: 1 }),
  },
  required: ['kind'],
  additionalProperties: false,
};

/** The rest of a job definition (jobs/*.yaml top-level keys besides name, schedule, timezone, payload). */
const JOB_OPTIONS: JsonSchema = {
  ...obj({
    tools: { type: 'array', items: { type: 'string' }, description: 'The only tools its runs may use (empty: the default set); every step\'s tool must be listed' },
    delivery: {
      type: ['object', 'null'], description: 'Where each run\'s result is sent',
      properties: { notify: str('A configured notify target', { minLength: 1 }) }, required: ['notify'], additionalProperties: false,
    },
    overlap_policy: { enum: ['skip', 'buffer_one', 'allow', 'cancel_other'], description: 'When a run is due while the last still runs (default skip)' },
    misfire_policy: { enum: ['skip', 'run_once', 'run_all'], description: 'Instants missed while the daemon was down (default run_once)' },
    catchup_window_seconds: int('How late a missed instant may still run (default: daemon.catchup_window_seconds)', { minimum: 0 }),
    jitter_seconds: int('Random delay before each run, at most (default 0)', { minimum: 0 }),
    timeout_seconds: int('Time limit of one run (default 600)', { minimum: 1 }),
    max_retries: int('Retries of a failed run (default 0)', { minimum: 0 }),
    retry_backoff_seconds: int('Wait before a retry (default 30)', { minimum: 0 }),
    max_runs: { type: ['integer', 'null'], minimum: 1, description: 'Runs after which the job stops (null: no limit)' },
  }),
  description: 'The job\'s other settings, as in jobs/*.yaml: tools, delivery, overlap_policy, misfire_policy, timeouts, retries',
};

/** The seed's complete tool catalog: one row a tool. */
export const CATALOG: readonly CatalogEntry[] = [
  // read_only
  {
    name: 'read_file', description: 'Read the content of a file', risk: 'read_only', capabilities: ['fs.read'],
    parameters: obj({ path: str('File path'), offset: int('First line (1-based)', { minimum: 1 }), limit: int('Number of lines', { minimum: 1 }) }, ['path']),
    guarded: { readPaths: ['path'] },
  },
  {
    name: 'list_dir', description: 'List the entries of a directory', risk: 'read_only', capabilities: ['fs.read'],
    parameters: obj({ path: str('Directory path'), recursive: { type: 'boolean' } }, ['path']),
    guarded: { readPaths: ['path'] },
  },
  {
    name: 'search_files', description: 'Search file names and contents', risk: 'read_only', capabilities: ['fs.read'],
    parameters: obj({ path: str('Directory to search'), glob: str('File name glob'), pattern: str('Text or regular expression to find'), max_results: int('Result limit', { minimum: 1, maximum: 1000 }) }, ['path']),
    guarded: { readPaths: ['path'] },
  },
  {
    name: 'knowledge_search', description: 'Search the knowledge base', risk: 'read_only', capabilities: ['knowledge.read'],
    parameters: obj({ query: str('Search terms', { minLength: 1 }), limit: int('Result limit', { minimum: 1, maximum: 100 }) }, ['query']),
  },
  {
    name: 'session_search', description: 'Search past sessions', risk: 'read_only', capabilities: ['session.read'],
    parameters: obj({ query: str('Search terms', { minLength: 1 }), limit: int('Result limit', { minimum: 1, maximum: 100 }) }, ['query']),
  },
  {
    name: 'skills_list', description: 'List installed skills', risk: 'read_only', capabilities: ['skill.read'],
    parameters: obj({}),
  },
  {
    name: 'skill_view', description: 'Show the details of a skill', risk: 'read_only', capabilities: ['skill.read'],
    parameters: obj({ name: str('Skill name', { minLength: 1 }) }, ['name']),
  },
  {
    name: 'agents_list', description: 'Reserved name; not implemented', risk: 'read_only', capabilities: [],
    parameters: anyArgs, reserved: true,
  },
  {
    name: 'agents_route', description: 'Reserved name; not implemented', risk: 'read_only', capabilities: [],
    parameters: anyArgs, reserved: true,
  },
  {
    name: 'web_fetch', description: 'Fetch a web page', risk: 'read_only', capabilities: ['network.outbound'],
    parameters: obj({ url: str('http(s) URL', { minLength: 1 }), max_bytes: int('Response size limit', { minimum: 1 }) }, ['url']),
    guarded: { urls: ['url'] },
  },
  {
    name: 'web_search', description: 'Search the web', risk: 'read_only', capabilities: ['network.outbound'],
    parameters: obj({ query: str('Search terms', { minLength: 1 }), limit: int('Result limit', { minimum: 1, maximum: 50 }) }, ['query']),
    requires: ['services.web_search.url'],
  },
  {
    name: 'vision_analyze', description: 'Analyse an image', risk: 'read_only', capabilities: ['media.read'],
    parameters: obj({ image: str('Image path or http(s) URL', { minLength: 1 }), question: str('What to look for') }, ['image']),
    guarded: { urlsOrPaths: ['image'] },
    requires: ['services.vision.base_url', 'services.vision.api_key'], reachesNetwork: true,
  },
  {
    name: 'read_spill', description: 'Read content spilled from a large tool output', risk: 'read_only', capabilities: ['fs.read'],
    parameters: obj({ spill_id: str('Spill id', { minLength: 1 }), offset: int('Character offset (0-based)', { minimum: 0 }), limit: int('Characters to read (capped at tools.spill_threshold_bytes)', { minimum: 1 }) }, ['spill_id']),
  },
  // write
  {
    name: 'write_file', description: 'Write a file', risk: 'write', capabilities: ['fs.write'],
    parameters: obj({ path: str('File path'), content: str('New content') }, ['path', 'content']),
    guarded: { writePaths: ['path'] },
  },
  {
    name: 'edit_file', description: 'Edit a file by exact-match replacement', risk: 'write', capabilities: ['fs.read', 'fs.write'],
    parameters: obj({ path: str('File path'), old_text: str('Exact text to replace', { minLength: 1 }), new_text: str('Replacement'), replace_all: { type: 'boolean' } }, ['path', 'old_text', 'new_text']),
    guarded: { readPaths: ['path'], writePaths: ['path'] },
  },
  {
    name: 'patch', description: 'Apply a unified diff to files', risk: 'write', capabilities: ['fs.read', 'fs.write'],
    parameters: obj({ diff: str('Unified diff', { minLength: 1 }), root: str('Directory the diff paths are relative to') }, ['diff']),
    guarded: { readPaths: ['root'], diffPaths: { diff: 'diff', root: 'root' } },
  },
  {
    name: 'knowledge_index', description: 'Build the knowledge base index', risk: 'write', capabilities: ['knowledge.write', 'fs.read'],
    parameters: obj({ path: str('File or directory to index') }, ['path']),
    guarded: { readPaths: ['path'] },
  },
  {
    name: 'todo', description: 'Manage the task list', risk: 'write', capabilities: ['task.write'],
    parameters: obj({ action: { enum: ['add', 'list', 'done', 'remove'] }, text: str('Item text'), id: str('Item id') }, ['action']),
  },
  {
    name: 'task', description: 'Create and schedule tasks', risk: 'write', capabilities: ['task.write'],
    parameters: obj({ action: { enum: ['create', 'list', 'show', 'cancel'] }, title: str('Task title'), prompt: str('What to do'), id: str('Task id') }, ['action']),
    hostsAgents: true,
  },
  {
    name: 'workflow', description: 'Orchestrate workflows', risk: 'write', capabilities: ['workflow.write'],
    parameters: obj({ action: { enum: ['create', 'list', 'show', 'run'] }, name: str('Workflow name'), steps: { type: 'array', items: { type: 'object' } }, id: str('Workflow id') }, ['action']),
    hostsAgents: true,
  },
  {
    name: 'notify', description: 'Send a notification', risk: 'write', capabilities: ['message.send'],
    parameters: obj({ target: str('Configured notification target', { minLength: 1 }), text: str('Notification text', { minLength: 1 }), title: str('Title') }, ['target', 'text']),
    requires: ['notify.targets'], reachesNetwork: true,
  },
  {
    name: 'message', description: 'Send a message', risk: 'write', capabilities: ['message.send'],
    parameters: obj({ target: str('Configured message target', { minLength: 1 }), text: str('Message text', { minLength: 1 }) }, ['target', 'text']),
    requires: ['notify.targets'], reachesNetwork: true,
  },
  {
    name: 'clarify', description: 'Ask the user a clarifying question', risk: 'write', capabilities: ['message.ask'],
    parameters: obj({ question: str('Question', { minLength: 1 }), options: { type: 'array', items: { type: 'string' } } }, ['question']),
  },
  {
    name: 'memory', description: 'Read and write memory', risk: 'write', capabilities: ['memory.read', 'memory.write'],
    parameters: obj({ action: { enum: ['get', 'set', 'delete', 'list'] }, key: str('Memory key'), value: str('Value to store') }, ['action']),
  },
  {
    name: 'image_generate', description: 'Generate an image', risk: 'write', capabilities: ['media.generate', 'network.outbound'],
    parameters: obj({ prompt: str('Image description', { minLength: 1 }), size: { enum: ['256x256', '512x512', '1024x1024'] } }, ['prompt']),
    requires: ['services.image.base_url', 'services.image.api_key'],
  },
  {
    name: 'text_to_speech', description: 'Turn text into speech', risk: 'write', capabilities: ['media.generate', 'network.outbound'],
    parameters: obj({ text: str('Text to speak', { minLength: 1 }), voice: str('Voice name') }, ['text']),
    requires: ['services.speech.base_url', 'services.speech.api_key'],
  },
  // exec
  {
    name: 'exec', description: 'Run a process or command', risk: 'exec', capabilities: ['process.exec'],
    parameters: obj({ command: str('Command line', { minLength: 1 }), shell: { type: 'boolean', description: 'Run with bash -c (needed for pipes, redirections, variables, globs)' }, cwd: str('Working directory'), timeout_seconds: int('Timeout', { minimum: 1 }) }, ['command']),
    guarded: { shell: [{ arg: 'command', cwd: 'cwd' }], readPaths: ['cwd'] },
  },
  {
    name: 'execute_code', description: 'Run a code snippet', risk: 'exec', capabilities: ['code.exec', 'process.exec'],
    parameters: obj({ language: { enum: ['node', 'python', 'bash', 'sh'] }, code: str('Source code', { minLength: 1 }), cwd: str('Working directory'), timeout_seconds: int('Timeout', { minimum: 1 }) }, ['language', 'code']),
    guarded: {
      shell: [{ arg: 'code', when: { arg: 'language', values: ['bash', 'sh'] }, cwd: 'cwd' }],
      inlineCode: { arg: 'code', when: { arg: 'language', values: ['node', 'python'] } },
      readPaths: ['cwd'],
    },
  },
  {
    name: 'process', description: 'Manage processes (start, signal, stdin)', risk: 'exec', capabilities: ['process.exec', 'process.manage'],
    parameters: obj({
      action: { enum: ['start', 'list', 'signal', 'write', 'read'] }, command: str('Command line (start)'), shell: { type: 'boolean', description: 'Run with bash -c (start)' },
      cwd: str('Working directory (start)'), id: str('Process id'), signal: str('Signal name'), input: str('Text for stdin (write)'), eof: { type: 'boolean', description: 'Close stdin after writing (write)' }, offset: int('Output offset (read)', { minimum: 0 }),
    }, ['action']),
    // what is written to a process's stdin may be read by a shell
    guarded: {
      shell: [{ arg: 'command', when: { arg: 'action', values: ['start'] }, cwd: 'cwd' }, { arg: 'input', when: { arg: 'action', values: ['write'] } }],
      readPaths: ['cwd'],
    },
  },
  {
    name: 'delegate_task', description: 'Delegate a task to a sub-agent', risk: 'exec', capabilities: [],
    // a sub-agent is a model turn: without an endpoint it could only fail when run
    requires: ['model.base_url'],
    parameters: obj({ prompt: str('Task for the sub-agent', { minLength: 1 }), tools: { type: 'array', items: { type: 'string' } } }, ['prompt']),
    hostsAgents: true, toolListArg: 'tools',
  },
  {
    name: 'spawn_task', description: 'Start a sub-agent task in the background', risk: 'exec', capabilities: [],
    // a sub-agent is a model turn: without an endpoint it could only fail when run
    requires: ['model.base_url'],
    parameters: obj({ prompt: str('Task for the sub-agent', { minLength: 1 }), tools: { type: 'array', items: { type: 'string' } } }, ['prompt']),
    hostsAgents: true, toolListArg: 'tools',
  },
  // dangerous
  {
    name: 'cronjob', description: 'Create and manage scheduled jobs', risk: 'dangerous', capabilities: ['scheduler.write'],
    parameters: {
      type: 'object',
      properties: {
        action: { enum: ['create', 'list', 'show', 'update', 'pause', 'resume', 'remove', 'run'] },
        id: str('Job id'),
        name: str('Job name'),
        schedule: str('Cron expression, "every <duration>" or "at <ISO instant>"'),
        timezone: str('IANA time zone'),
        payload: JOB_PAYLOAD,
        options: JOB_OPTIONS,
        note: str('Pause note'),
      },
      required: ['action'],
      additionalProperties: false,
    },
  },
  {
    name: 'skill_install', description: 'Install an external skill package', risk: 'dangerous', capabilities: ['skill.install', 'network.outbound', 'fs.write'],
    parameters: obj({ source: str('Local directory, archive or http(s) URL', { minLength: 1 }) }, ['source']),
    guarded: { urlsOrPaths: ['source'] },
  },
  {
    name: 'skill_manage', description: 'Manage or remove skills', risk: 'dangerous', capabilities: ['skill.write', 'fs.write'],
    parameters: obj({ action: { enum: ['enable', 'disable', 'remove'] }, name: str('Skill name', { minLength: 1 }) }, ['action', 'name']),
  },
];

export const CATALOG_BY_NAME: ReadonlyMap<string, CatalogEntry> = new Map(CATALOG.map((e) => [e.name, e]));

export const TOOL_NAMES: readonly string[] = CATALOG.map((e) => e.name);
